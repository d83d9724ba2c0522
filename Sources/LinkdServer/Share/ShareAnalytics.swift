import Foundation
import LinkStore
import WebFallback

/// A store of the landing page's buttons: the App Store or Google Play.
enum StorePlatform: String, CaseIterable, Sendable {
    case ios, android
}

/// What is counted on the request path for a link: one event into the `ShareEventBuffer` (one lock, one dictionary
/// update: a person's opening adds to the link's click total, last opening and day row at once; written to the store
/// by `ShareEventFlushService`) and one Prometheus counter (an atomic add). An event the full buffer refuses is
/// counted in `linkd_share_events_dropped_total` instead. No address or user agent is kept: the user agent is read
/// for its class (`UserAgentKind`) and dropped; a person's opening keeps its campaign and the referring site's host
/// (`ShareSource`), never the `Referer` itself.
final class ShareAnalytics: Sendable {
    let buffer: ShareEventBuffer
    let metrics: AnalyticsMetrics

    /// - Parameters: see the properties.
    init(buffer: ShareEventBuffer, metrics: AnalyticsMetrics) {
        self.buffer = buffer
        self.metrics = metrics
    }

    /// Counts a share page shown: a click of a person on a platform with where it came from (`source`, read only
    /// for a person), or a preview of a link-preview crawler.
    func recordOpen(linkID: String, app: String, client: UserAgentKind, source: @autoclosure () -> ShareSource = ShareSource(), at date: Date = Date()) {
        let (event, audience): (ShareEvent, AnalyticsMetrics.Audience) = switch client {
        case .iOS: (.clickIOS, .ios)
        case .android: (.clickAndroid, .android)
        case .desktop: (.clickDesktop, .desktop)
        case .crawler: (.preview, .preview)
        }
        record(event, linkID: linkID, app: app, at: date, source: event.isClick ? source() : nil)
        metrics.recordOpen(app: app, audience)
    }

    /// Counts a store redirect.
    func recordStoreRedirect(linkID: String, app: String, platform: StorePlatform) {
        record(platform == .ios ? .installIOS : .installAndroid, linkID: linkID, app: app)
        metrics.recordStoreRedirect(app: app, platform)
    }

    /// Counts a claim code made.
    func recordClaimMade(linkID: String, app: String) {
        record(.claimMade, linkID: linkID, app: app)
        metrics.recordClaims(app: app, .made)
    }

    /// Counts a claim code claimed.
    func recordClaimClaimed(linkID: String, app: String) {
        record(.claimClaimed, linkID: linkID, app: app)
        metrics.recordClaims(app: app, .claimed)
    }

    private func record(_ event: ShareEvent, linkID: String, app: String, at date: Date = Date(), source: ShareSource? = nil) {
        if !buffer.record(event, linkID: linkID, app: app, at: date, source: source) { metrics.recordDroppedEvent() }
    }
}
