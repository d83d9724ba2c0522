public import Foundation
import Synchronization

// Custom paths through the front: which link holds a path of an app, from memory (`CustomPathIndex`, every entry
// believed for `customPathWindow`) or the store.
extension StoreFront {
    /// How long memory believes which link holds a path (or that none does) before it reads the store again: the
    /// store reads an unknown path costs (one per path and window), and how long a path another instance gave to
    /// a new link still answers as its old holder here.
    public static let customPathWindow: Duration = .seconds(60)
    /// The most paths remembered.
    public static let customPathCapacity = 100_000

    /// The link holding `path` of `app` (any case: the caller compares the spelling), from memory when it knows
    /// and the record is cached, else read and remembered. Concurrent requests for one path share one read.
    public func link(app: String, path: String) async throws -> LinkRecord? {
        switch customPaths.lookup(app: app, path: path) {
        case .link(let id):
            return try await link(id: id)
        case .unknown:
            return nil
        case .miss:
            let key = CustomPathIndex.key(app: app, path: path)
            let read = customPathReads.withLock { reads in
                if let running = reads[key] { return running }
                let task = Task { try await self.readCustomPath(app: app, path: path) }
                reads[key] = task
                return task
            }
            let result = await read.result
            customPathReads.withLock { reads in
                if reads[key] == read { reads[key] = nil }
            }
            return try result.get()
        }
    }

    /// Reads a path's holder from the store and remembers the answer.
    private func readCustomPath(app: String, path: String) async throws -> LinkRecord? {
        let record = try await backend.fetchLink(app: app, path: path)
        if let record { cache.put(record) }
        customPaths.put(app: app, path: path, linkID: record?.id)
        return record
    }

    /// The link holding `path` of `app` from memory only (the caller reads the store on `miss`).
    public func cachedLink(app: String, path: String) -> CachedShortLink {
        switch customPaths.lookup(app: app, path: path) {
        case .link(let id): cache.get(id).map { .record($0) } ?? .miss
        case .unknown: .unknown
        case .miss: .miss
        }
    }

    /// The custom paths of `app`'s live links but those of the `outside` shapes (its `share.pathPatterns`), newest
    /// first, at most `limit` (for its well-known files and the cap on them).
    public func liveCustomPaths(app: String, now: Date = Date(), limit: Int, outside: CustomPathShapes = CustomPathShapes()) async throws -> [String] {
        try await backend.liveCustomPaths(app: app, now: now, limit: limit, outside: outside)
    }

    /// Notes a new link's custom path: it holds it from now on; a link that held it before (revoked or expired, its
    /// path released by the insert) is dropped from the cache so that its record is read again without the path.
    func noteCustomPath(of record: LinkRecord) {
        guard let path = record.path else { return }
        if let before = customPaths.put(app: record.app, path: path, linkID: record.id) { cache.remove(before) }
    }
}
