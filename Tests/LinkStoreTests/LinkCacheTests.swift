import Foundation
import LinkStore
import LinkdTestSupport
import Testing

/// The link cache: records packed into bytes, found by id and short id, bounded by records and by bytes.
@Suite("LinkCache")
struct LinkCacheTests {
    static func hexID(_ n: Int) -> String {
        let digits = String(n, radix: 16)
        return String(repeating: "0", count: 32 - digits.count) + digits
    }

    static func shortID(_ n: Int) -> String {
        let digits = String(n, radix: 36)
        return "s" + String(repeating: "0", count: 10 - digits.count) + digits
    }

    /// A typical record: a hex id, a short id, one param, a title.
    static func record(_ n: Int, title: String? = nil) -> LinkRecord {
        LinkRecord(
            id: hexID(n), app: "coin", route: "Canvas", params: ["coinId": "coin-\(n)"], owner: nil,
            title: title ?? "COIN \(n)", created: Date(timeIntervalSince1970: 1_700_000_000 + Double(n) / 1000),
            expires: Date(timeIntervalSince1970: 2_000_000_000), shortID: shortID(n))
    }

    @Test("a record comes back exactly as it went in, whatever its fields")
    func roundTrip() {
        let records = [
            Self.record(1),
            LinkRecord(
                id: "not-a-hex-id", app: "handz", route: "Library/FlowDetail", params: [:], owner: nil, title: nil,
                created: Date(timeIntervalSinceReferenceDate: 0.123456789), expires: Date(timeIntervalSinceReferenceDate: -5),
                generation: 1, status: .revoked),
            // 32 characters but upper-case hex: kept as text, still found by its exact spelling.
            LinkRecord(
                id: String(repeating: "AB", count: 16), app: "a", route: "r", params: ["k": "v"], owner: "", title: "",
                created: Date(), expires: Date.distantFuture, generation: Int(Int32.max) * 4, status: .deleted),
            LinkRecord(
                id: Self.hexID(0xFFFF_FFFF_FFFF), app: "ordentus", route: "Orders/Detail",
                params: ["orderId": "o-1", "tab": "items", "emoji": "🦊 ünïcødé", "long": String(repeating: "x", count: 5000)],
                owner: "user-42", title: "Ein Titel mit \"Zeichen\" & <Tags>", created: Date(timeIntervalSince1970: 1.5),
                expires: Date(timeIntervalSince1970: 4_000_000_000), generation: 7, status: .active,
                campaign: Campaign(source: "Newsletter", medium: "email", name: "Spring Sale"), shortID: "Ab3xYz09Qq1",
                path: "/spring"),
        ]
        let cache = LinkCache(capacity: 100)
        for record in records { cache.put(record) }
        for record in records {
            #expect(cache.get(record.id) == record)
            if let shortID = record.shortID { #expect(cache.get(shortID: shortID) == record) }
        }
        #expect(cache.get(String(repeating: "ab", count: 16)) == nil, "the lower-case spelling is another id")
        #expect(cache.count == records.count)
    }

    @Test("dates in whole seconds or milliseconds, and more distinct routes than the shared strings hold, come back exactly")
    func compactFieldsRoundTrip() {
        let cache = LinkCache(capacity: 20_000)
        let dates: [(Double, Double)] = [
            (1_700_000_000, 2_000_000_000), (1_700_000_000.123, 1_700_000_000.124), (1_700_000_000.5, 1_700_000_000.25),
            (978_307_200, 978_307_200), (978_307_199.999, 4_102_444_800), (1_700_000_000.1234, 1_800_000_000),
        ]
        // The reference date itself as -0.0 and +0.0: both come back with their sign.
        for (n, zero) in [-0.0, 0.0].enumerated() {
            let record = LinkRecord(
                id: Self.hexID(90_000 + n), app: "coin", route: "Canvas", params: [:], owner: nil, title: nil,
                created: Date(timeIntervalSinceReferenceDate: zero), expires: Date(timeIntervalSinceReferenceDate: 60))
            cache.put(record)
            #expect(cache.get(record.id)?.created.timeIntervalSinceReferenceDate.bitPattern == zero.bitPattern)
        }
        var records: [LinkRecord] = []
        // 5,000 distinct routes and param names: past the 4,096 strings shared, the rest are written in the record.
        for n in 0..<5_000 {
            let (created, expires) = dates[n % dates.count]
            records.append(LinkRecord(
                id: Self.hexID(n), app: n % 2 == 0 ? "coin" : "handz", route: "Route\(n)", params: ["name\(n)": "v", "coinId": "c"],
                owner: nil, title: nil, created: Date(timeIntervalSince1970: created), expires: Date(timeIntervalSince1970: expires),
                shortID: Self.shortID(n)))
        }
        for record in records { cache.put(record) }
        for record in records {
            #expect(cache.get(record.id) == record)
            #expect(cache.get(record.id)?.created.timeIntervalSinceReferenceDate.bitPattern
                == record.created.timeIntervalSinceReferenceDate.bitPattern)
            #expect(cache.get(record.id)?.expires.timeIntervalSinceReferenceDate.bitPattern
                == record.expires.timeIntervalSinceReferenceDate.bitPattern)
        }
    }

    @Test("a typical link takes at most 100 bytes with its share of the indexes, so a million fit the default 128 MiB")
    func typicalSize() {
        let cache = LinkCache(capacity: 200_000, maxBytes: 64 << 20)
        // 90,000: the indexes three quarters full, as a million links leave them (a million in 2^21 slots).
        for n in 0..<90_000 {
            cache.put(LinkRecord(
                id: Self.hexID(n), app: "coin", route: "Canvas", params: ["coinId": "coin-\(n)"], owner: nil, title: "COIN \(n)",
                created: Date(timeIntervalSince1970: 1_767_225_600), expires: Date(timeIntervalSince1970: 2_082_758_400),
                shortID: "m" + String(repeating: "0", count: 10 - String(n).count) + String(n)))
        }
        #expect(cache.count == 90_000)
        #expect(cache.bytes / cache.count <= 100, "\(cache.bytes / cache.count) bytes a link")
        #expect(cache.get(Self.hexID(89_999))?.title == "COIN 89999")
    }

    @Test("a record too large to pack, or with an id over 255 bytes, is not cached and nothing else is lost")
    func oversized() {
        let cache = LinkCache(capacity: 100)
        cache.put(Self.record(1))
        var huge = Self.record(2)
        huge.params = ["blob": String(repeating: "y", count: 70_000)]
        cache.put(huge)
        var longID = Self.record(3)
        longID.id = String(repeating: "i", count: 300)
        cache.put(longID)
        #expect(cache.get(huge.id) == nil)
        #expect(cache.get(longID.id) == nil && cache.get(shortID: Self.shortID(3)) == nil)
        #expect(cache.get(Self.hexID(1)) == Self.record(1))
        // Replacing a cached record by one too large drops the old copy: never a stale answer.
        var grown = Self.record(1)
        grown.params["blob"] = String(repeating: "z", count: 70_000)
        cache.put(grown)
        #expect(cache.get(Self.hexID(1)) == nil && cache.get(shortID: Self.shortID(1)) == nil)
    }

    @Test("puts, replacements and removals agree with a dictionary while the indexes grow and shrink")
    func agreesWithADictionary() {
        var generator = SplitMix64(seed: 7)
        let cache = LinkCache(capacity: 1_000_000, maxBytes: 1 << 30)
        var model: [String: LinkRecord] = [:]
        for step in 0..<40_000 {
            let n = Int.random(in: 0..<3000, using: &generator)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                let record = Self.record(n, title: "v\(step)")
                cache.put(record)
                model[record.id] = record
            case 4..<6:
                cache.remove(Self.hexID(n))
                model[Self.hexID(n)] = nil
            default:
                let expected = model[Self.hexID(n)]
                #expect(cache.get(Self.hexID(n)) == expected, "step \(step)")
                #expect(cache.get(shortID: Self.shortID(n)) == expected, "step \(step)")
            }
        }
        #expect(cache.count == model.count)
        for n in 0..<3000 { #expect(cache.get(Self.hexID(n)) == model[Self.hexID(n)]) }
    }

    @Test("both bounds hold, and an answer is the latest record or none, never an older one")
    func bounded() {
        var generator = SplitMix64(seed: 11)
        for (capacity, maxBytes) in [(500, 1 << 30), (1_000_000, 64 << 10), (10, 1 << 20)] {
            let cache = LinkCache(capacity: capacity, maxBytes: maxBytes)
            var latest: [String: LinkRecord] = [:]
            for step in 0..<20_000 {
                let n = Int.random(in: 0..<5000, using: &generator)
                if Int.random(in: 0..<3, using: &generator) == 0 {
                    let record = Self.record(n, title: "v\(step)")
                    cache.put(record)
                    latest[record.id] = record
                } else if let found = cache.get(Self.hexID(n)) {
                    #expect(found == latest[found.id], "capacity \(capacity), step \(step)")
                }
                #expect(cache.count <= capacity)
                #expect(cache.bytes <= max(maxBytes, 64 << 10))
            }
            #expect(cache.count > 0)
        }
    }

    @Test("records that are read stay while new ones push the cache past its bound")
    func readRecordsStay() {
        let cache = LinkCache(capacity: 1000)
        for n in 0..<1000 { cache.put(Self.record(n)) }
        for hot in 0..<50 { #expect(cache.get(Self.hexID(hot)) != nil) }
        for n in 1000..<6000 {
            cache.put(Self.record(n))
            if n % 10 == 0 {
                for hot in 0..<50 { #expect(cache.get(shortID: Self.shortID(hot)) != nil, "hot link \(hot) after \(n)") }
            }
        }
        #expect(cache.get(Self.hexID(500)) == nil, "a link read once, long ago, went")
        #expect(cache.count <= 1000)
    }

    @Test("a fill skips cached records, stops at nine tenths, and puts in nothing after a removal")
    func fill() {
        let cache = LinkCache(capacity: 100)
        let newer = Self.record(1, title: "newer")
        cache.put(newer)
        let mark = cache.removalMark
        #expect(cache.fill((0..<10).map { Self.record($0) }, removalMark: mark) == .filled(9))
        #expect(cache.get(Self.hexID(1)) == newer, "the fill's older copy did not replace the cached one")
        let stale = cache.removalMark
        cache.remove(Self.hexID(2))
        #expect(cache.fill([Self.record(2)], removalMark: stale) == .changed)
        #expect(cache.get(Self.hexID(2)) == nil)
        #expect(cache.fill((10..<200).map { Self.record($0) }, removalMark: cache.removalMark) == .full(81))
        #expect(cache.count == 90)
    }

    @Test("a refresh keeps every record answering while it runs, replaces what it reads, and drops what it did not read")
    func refresh() {
        // Small segments, so that the refresh crosses many of them and evicts the replaced copies as it goes.
        let cache = LinkCache(capacity: 2000, maxBytes: 256 << 10)
        for n in 0..<1000 { cache.put(Self.record(n)) }
        #expect(cache.count == 1000)
        cache.beginRefresh()
        // The store now holds 0..<990 (10 links deleted where no feed told), 5 of them with a new title, and 1000..<1010.
        let store = (0..<990).map { Self.record($0, title: $0 % 200 == 0 ? "renamed \($0)" : nil) } + (1000..<1010).map { Self.record($0) }
        var lowest = cache.count
        for start in stride(from: 0, to: store.count, by: 100) {
            #expect(cache.refresh(Array(store[start..<(start + 100)]), removalMark: cache.removalMark) == .filled(100))
            lowest = min(lowest, cache.count)
            // Links not read yet still answer, by id and by short id, reads moving nothing meanwhile.
            for n in [995, 999] {
                #expect(cache.get(Self.hexID(n)) == Self.record(n))
                #expect(cache.get(shortID: Self.shortID(n)) == Self.record(n))
            }
        }
        #expect(lowest >= 1000, "the cache never lost a record while refreshing")
        // A removal during the refresh: the page read before it is read again.
        let stale = cache.removalMark
        cache.remove(Self.hexID(3))
        #expect(cache.refresh([Self.record(3)], removalMark: stale) == .changed)
        #expect(cache.endRefresh() == 10)
        #expect(cache.count == 999)
        for n in 990..<1000 {
            #expect(cache.get(Self.hexID(n)) == nil, "link \(n), gone from the store, left the cache")
            #expect(cache.get(shortID: Self.shortID(n)) == nil)
        }
        #expect(cache.get(Self.hexID(3)) == nil, "the removed link was not put back")
        #expect(cache.get(Self.hexID(200))?.title == "renamed 200")
        #expect(cache.get(shortID: Self.shortID(1005)) == Self.record(1005))
        #expect(cache.endRefresh() == 0, "no refresh runs")
        // Reads move records again after it, and the bounds hold.
        for n in 2000..<5000 { cache.put(Self.record(n)) }
        #expect(cache.count <= 2000)
        #expect(cache.bytes <= 256 << 10)
    }

    @Test("a refresh stops at nine tenths of the cache, and emptying the cache meanwhile leaves nothing for its end to drop")
    func refreshBounds() {
        let cache = LinkCache(capacity: 100)
        for n in 0..<90 { cache.put(Self.record(n)) }
        cache.beginRefresh()
        #expect(cache.refresh((0..<200).map { Self.record($0) }, removalMark: cache.removalMark) == .full(90))
        #expect(cache.endRefresh() == 0)
        #expect(cache.count == 90)
        cache.beginRefresh()
        cache.removeAll()
        #expect(cache.refresh((500..<510).map { Self.record($0) }, removalMark: cache.removalMark) == .filled(10))
        #expect(cache.endRefresh() == 0)
        #expect(cache.count == 10)
        // A refresh the store could not finish keeps what it did not reach.
        cache.beginRefresh()
        #expect(cache.refresh((500..<505).map { Self.record($0) }, removalMark: cache.removalMark) == .filled(5))
        #expect(cache.endRefresh(keepingUnread: true) == 0)
        #expect(cache.count == 10)
        #expect(cache.get(Self.hexID(509)) == Self.record(509))
    }
}
