import Foundation
import LinkStore
import WebFallback

/// A store of the landing page's buttons: the App Store or Google Play.
enum StorePlatform: String, CaseIterable, Sendable {
    case ios, android
}

/// What is counted on the request path for a link's analytics: one event into the `StatsBuffer` (a lock and a
/// dictionary update; written to the store by `StatsFlushService`) and one Prometheus counter (an atomic add).
/// No address or user agent is kept: the user agent is read for its class (`UserAgentKind`) and dropped.
final class ShareAnalytics: Sendable {
    let buffer: StatsBuffer
    let metrics: AnalyticsMetrics

    /// - Parameters: see the properties.
    init(buffer: StatsBuffer, metrics: AnalyticsMetrics) {
        self.buffer = buffer
        self.metrics = metrics
    }

    /// Counts a share page shown: a click of a person on a platform, or a preview of a link-preview crawler.
    func recordOpen(linkID: String, app: String, client: UserAgentKind, at date: Date = Date()) {
        let (event, audience): (StatsBuffer.Event, AnalyticsMetrics.Audience) = switch client {
        case .iOS: (.clickIOS, .ios)
        case .android: (.clickAndroid, .android)
        case .desktop: (.clickDesktop, .desktop)
        case .crawler: (.preview, .preview)
        }
        buffer.record(event, linkID: linkID, app: app, at: date)
        metrics.recordOpen(app: app, audience)
    }

    /// Counts a store redirect.
    func recordStoreRedirect(linkID: String, app: String, platform: StorePlatform) {
        buffer.record(platform == .ios ? .installIOS : .installAndroid, linkID: linkID, app: app)
        metrics.recordStoreRedirect(app: app, platform)
    }

    /// Counts a claim code made.
    func recordClaimMade(linkID: String, app: String) {
        buffer.record(.claimMade, linkID: linkID, app: app)
        metrics.recordClaims(app: app, .made)
    }

    /// Counts a claim code claimed.
    func recordClaimClaimed(linkID: String, app: String) {
        buffer.record(.claimClaimed, linkID: linkID, app: app)
        metrics.recordClaims(app: app, .claimed)
    }
}
