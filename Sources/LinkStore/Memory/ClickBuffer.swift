public import Foundation
import Synchronization

/// Clicks counted on the request path (memory only), drained in batches into the store.
public final class ClickBuffer: Sendable {
    fileprivate let pending = Mutex<[String: LinkClicks]>([:])
    /// Held by a flush from drain to write, and by `counted`, so that a count never misses the batch in flight.
    private let flushLock = AsyncLock()

    /// Creates an empty buffer.
    public init() {}

    /// Counts one click of a link.
    public func record(linkID: String, at date: Date = Date()) {
        pending.withLock { clicks in
            var entry = clicks[linkID] ?? LinkClicks(count: 0, lastOpened: nil)
            entry.count += 1
            entry.lastOpened = date
            clicks[linkID] = entry
        }
    }

    /// Takes every pending click, leaving the buffer empty.
    public func drain() -> [String: LinkClicks] {
        pending.withLock { clicks in
            let taken = clicks
            clicks = [:]
            return taken
        }
    }

    /// Writes pending clicks into the store; on failure they are put back.
    public func flush(into store: StoreFront) async throws {
        try await flushLock.run { try await self.write(self.drain(), into: store) }
    }

    /// The clicks of a link: what `stored` reads from the store plus what is counted but not yet written, read
    /// while no flush is between the two (so a click is counted exactly once).
    public func counted(linkID: String, stored: @Sendable () async throws -> LinkClicks) async throws -> LinkClicks {
        try await flushLock.run {
            var total = try await stored()
            total.add(self.pending(linkID: linkID))
            return total
        }
    }

    /// Listed links with the clicks counted but not yet written added to their stored ones, the listing read while
    /// no flush is between the two (so a click is counted exactly once).
    public func counted(listing: @Sendable () async throws -> [ListedLink]) async throws -> [ListedLink] {
        try await flushLock.run {
            var links = try await listing()
            self.pending.withLock { clicks in
                for index in links.indices {
                    if let more = clicks[links[index].record.id] { links[index].clicks.add(more) }
                }
            }
            return links
        }
    }

    private func write(_ batch: [String: LinkClicks], into store: StoreFront) async throws {
        do {
            try await store.addClicks(batch)
        } catch {
            pending.withLock { clicks in
                for (id, click) in batch { clicks[id, default: LinkClicks(count: 0, lastOpened: nil)].add(click) }
            }
            throw error
        }
    }
}

extension ClickBuffer {
    /// Clicks of one link counted but not yet written (for an up-to-date inspector view).
    public func pending(linkID: String) -> LinkClicks {
        pending.withLock { $0[linkID] ?? LinkClicks(count: 0, lastOpened: nil) }
    }
}
