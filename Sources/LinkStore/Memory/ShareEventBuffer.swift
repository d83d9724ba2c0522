public import Foundation
import Synchronization

/// Everything counted for links on the request path — a share page shown (a person's click by platform, or a
/// crawler's preview), a store redirect, a claim code made or claimed — held in memory (one lock, one dictionary
/// keyed by link id) until the flush writes it: the click totals and last openings, and the daily rows, in one
/// store transaction.
///
/// Bounded: at most `capacity` links have events pending. An event of a link with none pending while `capacity`
/// links have is not counted (`record` answers false; the server counts it in a metric); events of links already
/// pending are always counted. A failed flush puts its batch back whole, so for a moment after one the buffer may
/// hold up to twice `capacity` links (the batch, and the links added while it was being written); no link is added
/// until it is back under `capacity`.
///
/// What a crash loses: the events counted since the last flush that succeeded (one flush interval's worth while
/// the store answers). A graceful stop flushes.
public final class ShareEventBuffer: Sendable {
    /// The default of `capacity`.
    public static let defaultCapacity = 100_000

    /// The most links with events pending that a new link is added beside.
    public let capacity: Int
    private let pending = Mutex<[String: LinkEvents]>([:])
    /// Held by a flush from drain to write (or put-back), and by `counted`, so that a count never misses the batch
    /// in flight nor sees it twice.
    private let flushLock = AsyncLock()

    /// An empty buffer holding events of at most `capacity` links (at least 1).
    public init(capacity: Int = ShareEventBuffer.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// Counts one `event` of the link `linkID` of `app` at `date` (a click with its `source`), with one acquisition
    /// of one lock. False (nothing counted) when the link has no events pending and `capacity` links have.
    @discardableResult
    public func record(_ event: ShareEvent, linkID: String, app: String, at date: Date = Date(), source: ShareSource? = nil) -> Bool {
        pending.withLock { links in
            // Under the cap, one hash of the id finds the link's events or makes them; at the cap, only a link
            // already pending is counted.
            if links.count < capacity {
                links[linkID, default: LinkEvents(app: app)].count(event, at: date, source: source)
                return true
            }
            guard let index = links.index(forKey: linkID) else { return false }
            links.values[index].count(event, at: date, source: source)
            return true
        }
    }

    /// How many links have events pending.
    public var pendingLinks: Int { pending.withLock { $0.count } }

    /// Takes every pending event, leaving the buffer empty.
    ///
    /// The empty dictionary grows again as links come (a dozen rehashes to a busy interval's 25,000 links, 2 % of the
    /// event loop under a long tail). Reserving the last batch's size instead was measured and left out: the
    /// reserved storage, megabytes allocated beside the batch being written, left malloc's heap fragmented, and the
    /// resident size under the uniform million-link load climbed from 194 MB to 236 MB (docs/benchmarks.md).
    public func drain() -> ShareEventBatch {
        ShareEventBatch(links: pending.withLock { links in
            let taken = links
            links = [:]
            return taken
        })
    }

    /// Writes the pending events into the store (click totals and day rows in one transaction); on failure they are
    /// put back for the next flush.
    public func flush(into store: StoreFront) async throws {
        try await flushLock.run {
            let batch = self.drain()
            guard !batch.isEmpty else { return }
            do {
                try await store.addShareEvents(batch)
            } catch {
                self.putBack(batch)
                throw error
            }
        }
    }

    /// The clicks of a link: what `stored` reads from the store plus what is counted but not yet written, read
    /// while no flush is between the two (so a click is counted exactly once).
    public func counted(linkID: String, stored: @Sendable () async throws -> LinkClicks) async throws -> LinkClicks {
        try await flushLock.run {
            var total = try await stored()
            total.add(self.pendingClicks(linkID: linkID))
            return total
        }
    }

    /// Listed links with the clicks counted but not yet written added to their stored ones, the listing read while
    /// no flush is between the two (so a click is counted exactly once).
    public func counted(listing: @Sendable () async throws -> [ListedLink]) async throws -> [ListedLink] {
        try await flushLock.run {
            var links = try await listing()
            self.pending.withLock { pending in
                for index in links.indices {
                    if let more = pending[links[index].record.id] { links[index].clicks.add(more.clicks) }
                }
            }
            return links
        }
    }

    /// Clicks of one link counted but not yet written.
    public func pendingClicks(linkID: String) -> LinkClicks {
        pending.withLock { $0[linkID]?.clicks ?? LinkClicks(count: 0, lastOpened: nil) }
    }

    /// Adds a batch that could not be written back to the pending events, whatever the cap: they were counted.
    private func putBack(_ batch: ShareEventBatch) {
        pending.withLock { links in
            for (id, events) in batch.links { links[id, default: LinkEvents(app: events.app)].add(events) }
        }
    }
}
