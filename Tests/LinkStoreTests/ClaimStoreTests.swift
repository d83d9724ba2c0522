import Foundation
import LinkStore
import LinkdTestSupport
import Testing

/// Claim codes and daily counters in both stores: a claim is taken once even by two instances at once, the live
/// cap holds, expiry counts each code once on its link's day, counters add up across flushes and instances.
@Suite("Claims and daily counters in the store")
struct ClaimStoreTests {
    static func claim(_ key: UInt8, link: String = "0123456789abcdef0123456789abcdef", expires: Date) -> ClaimRecord {
        ClaimRecord(
            lookupKey: Data(repeating: key, count: 32), linkID: link, app: "handz", platform: "android",
            sealedToken: Data([1, 2, 3]), created: expires.addingTimeInterval(-60), expires: expires)
    }

    @Test("a claim is taken once, also by two instances at once; unknown and expired keys give nothing", arguments: Backend.allCases)
    func claimedOnce(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let first = try await location.open()
        let second = backend == .postgres ? try await location.open() : first
        let later = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded(.down))  // stored to the second
        for key in UInt8(1)...20 { #expect(try await first.insertClaim(Self.claim(key, expires: later), maxPerLink: 100)) }
        // 20 codes, each claimed by two callers at once: every code is taken exactly once.
        let taken = try await withThrowingTaskGroup(of: Int.self) { group in
            for key in UInt8(1)...20 {
                for store in [first, second] {
                    group.addTask { try await store.redeemClaim(lookupKey: Data(repeating: key, count: 32)) == nil ? 0 : 1 }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(taken == 20)
        let record = Self.claim(30, expires: later)
        #expect(try await first.insertClaim(record, maxPerLink: 100))
        #expect(try await second.redeemClaim(lookupKey: record.lookupKey) == record)
        #expect(try await first.redeemClaim(lookupKey: Data(repeating: 99, count: 32)) == nil)
        #expect(try await first.insertClaim(Self.claim(40, expires: Date().addingTimeInterval(-1)), maxPerLink: 100))
        #expect(try await first.redeemClaim(lookupKey: Data(repeating: 40, count: 32)) == nil, "expired")
        if second !== first { await second.close() }
        await first.close()
    }

    @Test("the per-link cap counts unexpired codes; the live count and a peek read without taking; expiry counts each once on its day and deletes it", arguments: Backend.allCases)
    func capAndExpiry(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        let now = Date()
        #expect(try await store.insertClaim(Self.claim(1, expires: now.addingTimeInterval(-5)), maxPerLink: 2, now: now))
        #expect(try await store.insertClaim(Self.claim(2, expires: now.addingTimeInterval(60)), maxPerLink: 2, now: now))
        #expect(try await store.insertClaim(Self.claim(3, expires: now.addingTimeInterval(60)), maxPerLink: 2, now: now))
        #expect(try await !store.insertClaim(Self.claim(4, expires: now.addingTimeInterval(60)), maxPerLink: 2, now: now),
                "the link has two live ones")
        let other = Self.claim(5, link: "fedcba9876543210fedcba9876543210", expires: now.addingTimeInterval(60))
        #expect(try await store.insertClaim(other, maxPerLink: 2, now: now), "the cap is per link")
        #expect(try await store.liveClaimCount(now: now) == 3, "unexpired codes of every link")
        // A peek leaves the code in place: it can still be taken, once.
        #expect(try await store.peekClaim(lookupKey: other.lookupKey, now: now)?.linkID == other.linkID)
        #expect(try await store.peekClaim(lookupKey: Self.claim(1, expires: now).lookupKey, now: now) == nil, "expired")
        #expect(try await store.redeemClaim(lookupKey: other.lookupKey, now: now)?.linkID == other.linkID)
        #expect(try await store.peekClaim(lookupKey: other.lookupKey, now: now) == nil)
        #expect(try await store.expireClaims(now: now) == ["handz": 1])
        #expect(try await store.expireClaims(now: now) == [:], "counted once")
        let today = StatsDay(now)
        let rows = try await store.linkStats(linkID: "0123456789abcdef0123456789abcdef", from: today, to: today)
        #expect(rows.count == 1 && rows.first?.1.claimsExpired == 1)
        await store.close()
    }

    @Test("counters add up per link and day across flushes; app sums and top links", arguments: Backend.allCases)
    func countersAddUp(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        let buffer = ShareEventBuffer()
        let day = StatsDay(number: 20_000)
        let a = String(repeating: "a", count: 32), b = String(repeating: "b", count: 32)
        for _ in 0..<3 { buffer.record(.clickIOS, linkID: a, app: "handz", at: day.start) }
        buffer.record(.preview, linkID: a, app: "handz", at: day.start)
        buffer.record(.clickDesktop, linkID: b, app: "handz", at: day.start.addingTimeInterval(86_400))
        try await buffer.flush(into: store)
        for _ in 0..<2 { buffer.record(.clickAndroid, linkID: b, app: "handz", at: day.start.addingTimeInterval(86_400 + 10)) }
        buffer.record(.installAndroid, linkID: b, app: "handz", at: day.start.addingTimeInterval(86_400 + 10))
        try await buffer.flush(into: store)
        #expect(buffer.drain().isEmpty)

        let next = StatsDay(number: day.number + 1)
        let aRows = try await store.linkStats(linkID: a, from: day, to: next)
        #expect(aRows.map(\.0) == [day])
        #expect(aRows.first?.1.clicksIOS == 3 && aRows.first?.1.previews == 1)
        let bRows = try await store.linkStats(linkID: b, from: day, to: next)
        #expect(bRows.first?.1 == { var c = LinkDayCounts(); c.clicksDesktop = 1; c.clicksAndroid = 2; c.installsAndroid = 1; return c }())
        let byDay = try await store.appStatsByDay(app: "handz", from: day, to: next)
        #expect(byDay.map { $0.1.clicks } == [3, 3])
        let top = try await store.appTopLinks(app: "handz", from: day, to: next, limit: 1)
        #expect(top.links.count == 1 && top.links.first?.counts.clicks == 3 && top.exact)
        #expect(try await store.appTopLinks(app: "handz", from: day, to: next, limit: 10).links.map(\.linkID) == [a, b], "ties by link id")
        #expect(try await store.appTopLinks(app: "handz", from: day, to: next, limit: 10, exactRowLimit: 0).links.map(\.linkID) == [a, b])
        #expect(try await store.appStatsByDay(app: "coin", from: day, to: next).isEmpty)
        await store.close()
    }
}
