import Foundation
import Logging
import Synchronization

// Filling the link cache at start, so that a store of a million links answers from memory from the first minutes on.
extension StoreFront {
    /// Starts `warmLinkCache` in the background when the front warms its cache; asked while one runs, it runs once
    /// more after it (the cache was emptied, or a refresh asked for, meanwhile). `refreshing`: every record is read
    /// again and those not found are dropped (`LinkCache.beginRefresh`), the cache answering all along.
    func requestWarmup(refreshing: Bool = false) {
        guard warmsLinkCache else { return }
        let starts = warmup.withLock { state in
            if state.running { state.again = true }
            state.refreshAgain = state.refreshAgain || refreshing
            defer { state.running = true }
            return !state.running
        }
        guard starts else { return }
        Task {
            while true {
                let refresh = warmup.withLock { state in
                    defer { state.refreshAgain = false }
                    return state.refreshAgain
                }
                await warmLinkCache(refreshing: refresh)
                let again = warmup.withLock { state in
                    defer { state.again = false }
                    state.running = state.again
                    return state.again
                }
                if !again { return }
            }
        }
    }

    /// The links read per query while warming.
    static let warmupPageSize = 2000
    /// The records put into the cache under one hold of its lock while warming.
    static let warmupChunkSize = 250
    /// The pause after each page a refresh reads: the cache answers all along, so a refresh is in no hurry, and its
    /// reads and re-packing take a smaller share of the cores the requests need (a million links on PostgreSQL:
    /// about 30 s instead of 15, the share page's p99 during it 12–13 ms instead of up to 80; docs/benchmarks.md).
    static let refreshPagePause: Duration = .milliseconds(30)

    /// Fills the link cache with the store's active links, newest first (the listing's order), a page at a time,
    /// until every one is in or the cache is nine tenths full (`LinkCache.fill`: it never evicts). A page read
    /// while a record was removed (another instance's revocation or deletion, through the feed) is read again, so
    /// an older copy never hides the change. A failed read is logged and retried after a second, at most three
    /// times in a row. Runs in the background (`open(…, warmsLinkCache: true)`, the daemon) and again after the
    /// cache was emptied by another instance's manifest.
    ///
    /// `refreshing` (a shared store's full reload): every record read is written anew (`LinkCache.refresh`) and, at
    /// the end, the records not read again are dropped: a link deleted or revoked where the change feed did not tell
    /// leaves the cache, and the cache answers throughout instead of starting empty. A refresh stopped by failed
    /// reads keeps the records it did not reach (the next full reload checks them).
    func warmLinkCache(refreshing: Bool = false) async {
        let started = ContinuousClock.now
        if refreshing { cache.beginRefresh() }
        var after: LinkPosition?
        var warmed = 0
        var failures = 0
        var retriesOfPage = 0
        var outcome = "every active link"
        var readFailed = false
        pages: while !closed.load(ordering: .acquiring), !Task.isCancelled {
            let mark = cache.removalMark
            let page: [ListedLink]
            do {
                page = try await backend.listLinks(LinkListQuery(status: .active, after: after, limit: Self.warmupPageSize))
                failures = 0
            } catch {
                failures += 1
                logger.warning("warming the link cache: a read failed", metadata: ["error": "\(error)", "failures": "\(failures)"])
                if failures >= 3 { (outcome, readFailed) = ("stopped after 3 failed reads", true); break }
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            guard let last = page.last else { break }
            // A few hundred records at a time: the cache's lock is never held long against the event loops.
            chunks: for start in stride(from: 0, to: page.count, by: Self.warmupChunkSize) {
                let chunk = page[start..<min(page.count, start + Self.warmupChunkSize)].map(\.record)
                switch refreshing ? cache.refresh(chunk, removalMark: mark) : cache.fill(chunk, removalMark: mark) {
                case .filled(let count):
                    warmed += count
                case .full(let count):
                    warmed += count
                    outcome = "the cache is full"
                    break pages
                case .changed:
                    retriesOfPage += 1
                    // Read the page again (what was put in before the removal stays: the removal saw it).
                    if retriesOfPage < 3 { continue pages }
                    break chunks
                }
            }
            retriesOfPage = 0
            after = LinkPosition(of: last.record)
            if page.count < Self.warmupPageSize { break }
            if refreshing { try? await Task.sleep(for: Self.refreshPagePause) }
        }
        let dropped = refreshing ? cache.endRefresh(keepingUnread: readFailed) : 0
        let took = (ContinuousClock.now - started).components
        var metadata: Logger.Metadata = [
            "links": "\(warmed)", "megabytes": "\(cache.bytes >> 20)", "outcome": "\(outcome)",
            "milliseconds": "\(took.seconds * 1000 + took.attoseconds / 1_000_000_000_000_000)",
        ]
        if refreshing { metadata["dropped"] = "\(dropped)" }
        logger.info(refreshing ? "link cache refreshed" : "link cache warmed", metadata: metadata)
    }
}

/// Whether a warm-up of the link cache runs, and whether one more was asked for meanwhile.
struct WarmupState {
    var running = false
    var again = false
    /// The next run refreshes (a full reload asked for it).
    var refreshAgain = false
}
