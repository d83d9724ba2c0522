public import Foundation
import Synchronization

/// Analytics events counted on the request path (memory only: one lock and one dictionary update per event),
/// drained in batches into the day rows of the store by the flush service.
public final class StatsBuffer: Sendable {
    /// What happened to a link.
    public enum Event: Sendable {
        /// A person opened the share page on iOS.
        case clickIOS
        /// A person opened the share page on Android.
        case clickAndroid
        /// A person opened the share page on a desktop browser.
        case clickDesktop
        /// A link-preview crawler fetched the share page.
        case preview
        /// A store redirect to the App Store.
        case installIOS
        /// A store redirect to Google Play.
        case installAndroid
        /// A claim code was made.
        case claimMade
        /// A claim code was claimed.
        case claimClaimed
    }

    private let pending = Mutex<[LinkDayKey: LinkDayCounts]>([:])

    /// Creates an empty buffer.
    public init() {}

    /// Counts one event of a link of `app` on the UTC day of `date`.
    public func record(_ event: Event, linkID: String, app: String, at date: Date = Date()) {
        let key = LinkDayKey(linkID: linkID, app: app, day: StatsDay(date))
        pending.withLock { counts in
            counts[key, default: LinkDayCounts()].count(event)
        }
    }

    /// Takes every pending count, leaving the buffer empty.
    public func drain() -> [LinkDayKey: LinkDayCounts] {
        pending.withLock { counts in
            let taken = counts
            counts = [:]
            return taken
        }
    }

    /// Writes pending counts into the store; on failure they are put back for the next flush.
    public func flush(into store: StoreFront) async throws {
        let batch = drain()
        guard !batch.isEmpty else { return }
        do {
            try await store.addLinkStats(batch)
        } catch {
            pending.withLock { counts in
                for (key, value) in batch { counts[key, default: LinkDayCounts()].add(value) }
            }
            throw error
        }
    }
}

extension LinkDayCounts {
    /// Adds one `event`.
    mutating func count(_ event: StatsBuffer.Event) {
        switch event {
        case .clickIOS: clicksIOS += 1
        case .clickAndroid: clicksAndroid += 1
        case .clickDesktop: clicksDesktop += 1
        case .preview: previews += 1
        case .installIOS: installsIOS += 1
        case .installAndroid: installsAndroid += 1
        case .claimMade: claimsMade += 1
        case .claimClaimed: claimsClaimed += 1
        }
    }
}
