import Foundation
import LinkStore
import LinkdTestSupport
import Testing

/// The share-event buffer: one record counts a click on the link's total, last opening and day row together; the
/// cap on pending links; one flush writes both kinds of counts.
@Suite("Share-event buffer")
struct ShareEventBufferTests {
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    static func id(_ n: Int) -> String {
        String(repeating: "0", count: 32 - String(n, radix: 16).count) + String(n, radix: 16)
    }

    @Test("one record of a person's open counts the click total, the last opening and the day row; a preview only its day row")
    func oneRecordCountsBoth() throws {
        let buffer = ShareEventBuffer()
        #expect(buffer.record(.clickAndroid, linkID: Self.id(1), app: "handz", at: Self.t0))
        #expect(buffer.record(.preview, linkID: Self.id(1), app: "handz", at: Self.t0.addingTimeInterval(60)))
        #expect(buffer.record(.installIOS, linkID: Self.id(2), app: "coin", at: Self.t0))
        #expect(buffer.pendingClicks(linkID: Self.id(1)) == LinkClicks(count: 1, lastOpened: Self.t0))
        let batch = buffer.drain()
        #expect(buffer.pendingLinks == 0)
        let first = try #require(batch.links[Self.id(1)])
        #expect(first.app == "handz")
        #expect(first.clicks == LinkClicks(count: 1, lastOpened: Self.t0), "a preview is no click")
        #expect(first.days == [StatsDay(Self.t0): { var c = LinkDayCounts(); c.clicksAndroid = 1; c.previews = 1; return c }()])
        #expect(batch.clickTotals.map(\.linkID) == [Self.id(1)], "a link with no click gets no click row")
        #expect(batch.dayRows.map(\.key) == [
            LinkDayKey(linkID: Self.id(1), app: "handz", day: StatsDay(Self.t0)),
            LinkDayKey(linkID: Self.id(2), app: "coin", day: StatsDay(Self.t0)),
        ])
    }

    @Test("a batch's chunks hold every link once, in id order (hex ids and others mixed, long shared prefixes); each link's days in order")
    func chunksInIDOrder() {
        var links: [String: LinkEvents] = [:]
        var generator = SystemRandomNumberGenerator()
        var ids = (0..<3_000).map { _ in (0..<32).map { _ in String(Int.random(in: 0..<16, using: &generator), radix: 16) }.joined() }
        ids += (1...40).map(Self.id) + [
            "0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdee", "0123456789ABCDEF0123456789ABCDEF",
            "0123456789abcdef", "0123456789abcdef0123456789abcdef0", "", "é-not-hex", "e-not-hex", "ffffffffffffffffffffffffffffffff",
        ]
        for (n, id) in ids.enumerated() {
            var events = LinkEvents(app: "handz")
            events.count(.clickIOS, at: Self.t0.addingTimeInterval(Double(n % 3) * 86_400))
            events.count(.clickIOS, at: Self.t0)
            links[id] = events
        }
        let batch = ShareEventBatch(links: links)
        let expected = links.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let ascii = links.keys.filter { $0.utf8.allSatisfy { $0 < 0x80 } }
        #expect(ascii.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } == ascii.sorted(), "for ASCII ids, the strings' order")
        let chunks = Array(batch.chunks(of: 7))
        #expect(chunks.count == (links.count + 6) / 7)
        #expect(chunks.flatMap { $0.clickTotals.map(\.linkID) } == expected)
        #expect(batch.clickTotals.map(\.linkID) == expected)
        let dayRows = chunks.flatMap(\.dayRows)
        #expect(dayRows.map(\.key.linkID) == expected.flatMap { id in Array(repeating: id, count: links[id]!.days.count) })
        #expect(dayRows.map(\.key) == batch.dayRows.map(\.key) && dayRows.map(\.counts) == batch.dayRows.map(\.counts))
        for (a, b) in zip(dayRows, dayRows.dropFirst()) where a.key.linkID == b.key.linkID {
            #expect(a.key.day < b.key.day)
        }
    }

    @Test("day counters add field by field and are zero only when every field is: each stored column counts")
    func dayCountsArithmetic() {
        let columns = LinkDayCounts.columns.count
        let counts = LinkDayCounts(values: Array(1...columns))
        var doubled = counts
        doubled.add(counts)
        #expect(doubled.values == (1...columns).map { $0 * 2 })
        #expect(LinkDayCounts().isZero)
        for column in 0..<columns {
            var one = Array(repeating: 0, count: columns)
            one[column] = 1
            #expect(!LinkDayCounts(values: one).isZero, "column \(LinkDayCounts.columns[column])")
        }
    }

    @Test("a link's events count the same however they are held: across midnight, with and without sources, merged")
    func eventsAcrossDaysAndSources() {
        let day1 = StatsDay(number: 20_000), day2 = StatsDay(number: 20_001)
        let late = day1.start.addingTimeInterval(86_399), early = day2.start.addingTimeInterval(1)
        let newsletter = ShareSource(campaign: "newsletter||", referrer: "t.co")
        var events = LinkEvents(app: "handz")
        events.count(.clickIOS, at: late)
        events.count(.clickIOS, at: late, source: newsletter)
        events.count(.preview, at: late)
        events.count(.clickAndroid, at: early)
        events.count(.clickAndroid, at: early, source: ShareSource())
        #expect(events.clicks == LinkClicks(count: 4, lastOpened: early))
        var ios = LinkDayCounts(), android = LinkDayCounts()
        ios.clicksIOS = 2
        ios.previews = 1
        android.clicksAndroid = 2
        #expect(events.days == [day1: ios, day2: android])
        // Openings without campaign or referrer count no source: `(none)` is what the day's clicks leave.
        var first = DaySources()
        first.add(newsletter)
        #expect(events.sources == [day1: first])
        // Merged into a link's events held another way (a batch put back): the sums.
        var merged = LinkEvents(app: "handz", days: [day1: ios], sources: [day1: first])
        merged.add(events)
        #expect(merged.days[day1]?.clicksIOS == 4 && merged.days[day2] == android)
        #expect(merged.sources[day1]?.counts[.campaign] == ["newsletter||": 2])
        #expect(merged == LinkEvents(
            app: "handz", clicks: events.clicks,
            days: [day1: { var c = ios; c.add(ios); return c }(), day2: android],
            sources: [day1: { var s = first; s.add(first); return s }()]))
    }

    @Test("records and drains at once: every drained link has as many clicks on its total as on its day rows")
    func totalsAndRowsMoveTogether() async {
        let buffer = ShareEventBuffer()
        let perTask = 20_000
        let drained = await withTaskGroup(of: [ShareEventBatch].self) { group in
            for task in 0..<4 {
                group.addTask {
                    for n in 0..<perTask {
                        // Across midnight too: each link gets rows of two days.
                        buffer.record(.clickIOS, linkID: Self.id(n % 7), app: "handz", at: Self.t0.addingTimeInterval(Double(task * 50_000 + n)))
                    }
                    return []
                }
            }
            group.addTask {
                var batches: [ShareEventBatch] = []
                for _ in 0..<2_000 {
                    batches.append(buffer.drain())
                    await Task.yield()
                }
                return batches
            }
            return await group.reduce(into: [ShareEventBatch]()) { $0 += $1 } + [buffer.drain()]
        }
        var total = 0
        for batch in drained {
            for (id, events) in batch.links {
                let inRows = events.days.values.map(\.clicks).reduce(0, +)
                #expect(events.clicks.count == inRows, "link \(id): \(events.clicks.count) on its total, \(inRows) on its rows")
                total += events.clicks.count
            }
        }
        #expect(total == 4 * perTask)
    }

    @Test("a flood of distinct links stops at the cap; links already pending keep counting; a drain makes room")
    func capOnPendingLinks() throws {
        let buffer = ShareEventBuffer(capacity: 100)
        var dropped = 0
        for n in 0..<10_000 where !buffer.record(.clickDesktop, linkID: Self.id(n), app: "handz", at: Self.t0) { dropped += 1 }
        #expect(buffer.pendingLinks == 100)
        #expect(dropped == 9_900)
        for _ in 0..<5 { #expect(buffer.record(.clickIOS, linkID: Self.id(7), app: "handz", at: Self.t0)) }
        #expect(buffer.record(.claimMade, linkID: Self.id(7), app: "handz", at: Self.t0))
        #expect(!buffer.record(.claimMade, linkID: Self.id(100), app: "handz", at: Self.t0))
        #expect(buffer.pendingLinks == 100)
        #expect(buffer.pendingClicks(linkID: Self.id(7)).count == 6)
        #expect(buffer.pendingClicks(linkID: Self.id(100)).count == 0)
        let batch = buffer.drain()
        #expect(batch.links.count == 100)
        #expect(batch.links[Self.id(7)]?.days[StatsDay(Self.t0)]?.claimsMade == 1)
        #expect(buffer.record(.clickDesktop, linkID: Self.id(100), app: "handz", at: Self.t0), "room again after the drain")
    }

    @Test("a flush of 20,000 links is written whole; a total without a date keeps the stored last opening", arguments: Backend.allCases)
    func largeFlush(backend: Backend) async throws {
        let store = try await StoreLocation(backend).open()
        let buffer = ShareEventBuffer()
        for n in 0..<20_000 { buffer.record(n % 2 == 0 ? .clickIOS : .preview, linkID: Self.id(n), app: "handz", at: Self.t0) }
        try await buffer.flush(into: store)
        #expect(try await store.clicks(linkID: Self.id(19_998)) == LinkClicks(count: 1, lastOpened: Self.t0))
        #expect(try await store.clicks(linkID: Self.id(19_999)).count == 0)
        let day = StatsDay(Self.t0)
        #expect(try await store.appStatsByDay(app: "handz", from: day, to: day).first?.1.clicks == 10_000)
        #expect(try await store.appStatsByDay(app: "handz", from: day, to: day).first?.1.previews == 10_000)
        let undated = ShareEventBatch(links: [Self.id(0): LinkEvents(app: "handz", clicks: LinkClicks(count: 2, lastOpened: nil))])
        try await store.addShareEvents(undated)
        #expect(try await store.clicks(linkID: Self.id(0)) == LinkClicks(count: 3, lastOpened: Self.t0))
        await store.close()
    }

    @Test("one flush writes the click totals and the day rows", arguments: Backend.allCases)
    func flushWritesBoth(backend: Backend) async throws {
        let store = try await StoreLocation(backend).open()
        let buffer = ShareEventBuffer()
        let day = StatsDay(Self.t0)
        for _ in 0..<2 { buffer.record(.clickIOS, linkID: Self.id(1), app: "handz", at: Self.t0) }
        buffer.record(.preview, linkID: Self.id(1), app: "handz", at: Self.t0)
        buffer.record(.installAndroid, linkID: Self.id(2), app: "handz", at: Self.t0)
        try await buffer.flush(into: store)
        #expect(buffer.pendingLinks == 0)
        #expect(try await store.clicks(linkID: Self.id(1)) == LinkClicks(count: 2, lastOpened: Self.t0))
        #expect(try await store.clicks(linkID: Self.id(2)) == LinkClicks(count: 0, lastOpened: nil), "an install is no click")
        let rows = try await store.linkStats(linkID: Self.id(1), from: day, to: day)
        #expect(rows.first?.1 == { var c = LinkDayCounts(); c.clicksIOS = 2; c.previews = 1; return c }())
        #expect(try await store.linkStats(linkID: Self.id(2), from: day, to: day).first?.1.installsAndroid == 1)
        await store.close()
    }
}
