import Foundation
import LinkStore
import LinkdTestSupport
import Testing

/// The warm-up at open: the store's active links put into the link cache in the background, newest first.
@Suite("Link cache warm-up")
struct LinkCacheWarmupTests {
    /// Waits (at most 30 s) until `condition` holds.
    static func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }

    @Test("every active link, over several pages, is in memory after the warm-up; revoked and expired ones are not", arguments: Backend.allCases)
    func warmsActiveLinks(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let writer = try await location.open()
        // Whole seconds: both stores keep them exactly.
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let records = (0..<4500).map { n in
            LinkRecord(
                id: LinkCacheTests.hexID(n), app: "coin", route: "Canvas", params: ["coinId": "coin-\(n)"], owner: "o\(n % 7)",
                title: "COIN \(n)", created: now.addingTimeInterval(Double(n - 5000)),
                expires: now.addingTimeInterval(n % 100 == 0 ? -60 : 86_400), shortID: LinkCacheTests.shortID(n))
        }
        _ = try await writer.importLinks(records, dryRun: false)
        for n in stride(from: 1, to: 4500, by: 50) { try await writer.revokeLink(id: LinkCacheTests.hexID(n)) }
        await writer.close()
        let active = records.filter { $0.expires > now && (Int($0.id, radix: 16)! % 50) != 1 }
        #expect(active.count == 4500 - 45 - 90)

        let store = try await location.open(cacheCapacity: 100_000, warmsLinkCache: true)
        try await Self.eventually { store.cachedLinkCount >= active.count }
        #expect(store.cachedLinkCount == active.count)
        for record in active { #expect(store.cachedLink(id: record.id) == record) }
        for n in [0, 100, 1, 51, 4451] { #expect(store.cachedLink(id: LinkCacheTests.hexID(n)) == nil, "link \(n)") }
        #expect(store.cachedLink(shortID: LinkCacheTests.shortID(4499)) == .record(records[4499]))
        await store.close()

        // A cache that holds fewer: the newest links go in first, and it stops at nine tenths.
        let small = try await location.open(cacheCapacity: 1000, warmsLinkCache: true)
        try await Self.eventually { small.cachedLinkCount >= 900 }
        try await Task.sleep(for: .milliseconds(200))
        #expect(small.cachedLinkCount == 900)
        let newest = active.sorted { $0.created > $1.created }.prefix(900)
        for record in newest { #expect(small.cachedLink(id: record.id) == record) }
        await small.close()
    }

    @Test("on a shared store, the first listening catches up from the open: the warmed cache stays, and a revocation made meanwhile is in force")
    func sharedStoreKeepsTheWarmCache() async throws {
        let url = try TestPostgres.shared().freshDatabase()
        let timing = PostgresTiming(syncInterval: .seconds(30))
        let other = try await StoreFront.open(.postgres(url: url, timing: timing))
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let records = (0..<50).map { n in
            LinkRecord(
                id: LinkCacheTests.hexID(n), app: "coin", route: "Canvas", params: ["coinId": "coin-\(n)"], owner: nil,
                title: nil, created: now.addingTimeInterval(Double(n)), expires: now.addingTimeInterval(86_400),
                shortID: LinkCacheTests.shortID(n))
        }
        var expired = records[0]
        (expired.id, expired.shortID, expired.expires) = (LinkCacheTests.hexID(99), LinkCacheTests.shortID(99), now.addingTimeInterval(-60))
        _ = try await other.importLinks(records + [expired], dryRun: false)
        let store = try await StoreFront.open(.postgres(url: url, timing: timing), cacheCapacity: 1000, warmsLinkCache: true)
        try await Self.eventually { store.cachedLinkCount >= 50 }
        // An expired link is not warmed, but cached once read: a full reload would drop it, a catch-up keeps it.
        #expect(try await store.link(id: expired.id) == expired)
        // Revoked elsewhere after this open, before it listens.
        try await other.revokeLink(id: LinkCacheTests.hexID(7))
        let sync = Task { try await store.synchronize(onKeysChanged: {}) }
        try await Self.eventually { store.isRevoked(linkID: LinkCacheTests.hexID(7), generation: 1) }
        #expect(store.isRevoked(linkID: LinkCacheTests.hexID(7), generation: 1))
        #expect(store.cachedLink(id: LinkCacheTests.hexID(7)) == nil, "the revoked link's record left the cache")
        try await Task.sleep(for: .milliseconds(300))
        #expect(store.cachedLinkCount == 50, "the other records stayed: no full reload emptied the cache")
        #expect(store.cachedLink(id: expired.id) == expired)
        sync.cancel()
        await store.close()
        await other.close()
    }

    @Test("on a shared store, a full reload reads every link again while the cache answers, and drops the links deleted where the feed did not tell")
    func fullReloadRefreshesInPlace() async throws {
        let url = try TestPostgres.shared().freshDatabase()
        let database = String(url.split(separator: "/").last!.split(separator: "?").first!)
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let records = (0..<4500).map { n in
            LinkRecord(
                id: LinkCacheTests.hexID(n), app: "coin", route: "Canvas", params: ["coinId": "coin-\(n)"], owner: nil,
                title: "COIN \(n)", created: now.addingTimeInterval(Double(n - 5000)), expires: now.addingTimeInterval(86_400),
                shortID: LinkCacheTests.shortID(n))
        }
        let writer = try await StoreFront.open(.postgres(url: url))
        _ = try await writer.importLinks(records, dryRun: false)
        await writer.close()
        let timing = PostgresTiming(syncInterval: .milliseconds(100), fullResyncInterval: .milliseconds(500))
        let store = try await StoreFront.open(.postgres(url: url, timing: timing), cacheCapacity: 100_000, warmsLinkCache: true)
        try await Self.eventually { store.cachedLinkCount >= 4500 }
        #expect(store.cachedLinkCount == 4500)
        // Gone from the table with no change in the feed (as if the change had been pruned unseen): only a full
        // reload can tell.
        let gone = [17, 2222, 4499]
        try TestPostgres.shared().psql(
            "DELETE FROM links WHERE id IN (\(gone.map { "'\(LinkCacheTests.hexID($0))'" }.joined(separator: ", ")))", database: database)
        let sync = Task { try await store.synchronize(onKeysChanged: {}) }
        // Sampled through a few full reloads (one every half second): the cache never starts over from empty.
        var lowest = Int.max
        let until = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < until {
            lowest = min(lowest, store.cachedLinkCount)
            try await Task.sleep(for: .milliseconds(2))
        }
        try await Self.eventually { gone.allSatisfy { store.cachedLink(id: LinkCacheTests.hexID($0)) == nil } }
        sync.cancel()
        #expect(lowest >= 4497, "the fewest records cached while the store reloaded: \(lowest)")
        for n in gone {
            #expect(store.cachedLink(id: LinkCacheTests.hexID(n)) == nil, "link \(n)")
            #expect(store.cachedLink(shortID: LinkCacheTests.shortID(n)) == .miss, "short id of link \(n)")
        }
        #expect(store.cachedLinkCount == 4497)
        for n in [0, 18, 2221, 4498] { #expect(store.cachedLink(id: LinkCacheTests.hexID(n)) == records[n]) }
        await store.close()
    }
}
