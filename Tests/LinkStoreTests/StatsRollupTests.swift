import Foundation
import LinkStore
import LinkdTestSupport
import Testing

/// The stats rollups in both stores: the app's days and top links read from them give the numbers the day rows
/// give (summed here from each link's day rows) over ranges whole and partial in their months, after a reopen, and
/// after the `stats-rollups-v1` migration builds them from day rows stored before it.
@Suite("Stats rollups in the store")
struct StatsRollupTests {
    /// Links of two apps; 2024-01-20 to 2024-04-10 (days 19742…19823: four months, one of them February of a leap
    /// year).
    static let links = (0..<6).map { String(format: "%032x", $0 + 1) }
    static let first = StatsDay(number: 19_742), last = StatsDay(number: 19_823)
    static func app(_ link: String) -> String { Int(link.suffix(1), radix: 16)! % 2 == 0 ? "coin" : "handz" }

    /// Opens, previews, installs and claims on most days of the span, over several flushes (one a link, or with
    /// `oneFlush` a single one for every link, day and month); an expired claim.
    static func record(into store: StoreFront, oneFlush: Bool = false) async throws {
        let buffer = ShareEventBuffer()
        let kinds: [ShareEvent] = [.clickIOS, .clickAndroid, .clickDesktop, .preview, .installIOS, .installAndroid]
        for (index, link) in links.enumerated() {
            for day in stride(from: first.number, through: last.number, by: 1) where (day + index) % 7 != 0 {
                for event in 0..<((day * (index + 3)) % 5 + index) {
                    buffer.record(kinds[(event + day) % kinds.count], linkID: link, app: app(link), at: StatsDay(number: day).start)
                }
            }
            if !oneFlush { try await buffer.flush(into: store) }
        }
        if oneFlush { try await buffer.flush(into: store) }
        let expires = StatsDay(number: 19_800).start.addingTimeInterval(3_600)
        let claim = ClaimRecord(lookupKey: Data(repeating: 9, count: 32), linkID: links[1], app: app(links[1]),
                                platform: "ios", sealedToken: Data([1]), created: expires.addingTimeInterval(-60), expires: expires)
        #expect(try await store.insertClaim(claim, maxPerLink: 5, now: expires.addingTimeInterval(-60)))
        #expect(try await store.expireClaims(now: expires.addingTimeInterval(1)) == [app(links[1]): 1])
    }

    /// Ranges whole and partial in their months, inside one month, across three, at the edges and beyond.
    static let ranges: [(Int, Int)] = [
        (19_742, 19_823), (19_723, 19_813), (19_753, 19_783), (19_754, 19_782), (19_760, 19_770), (19_785, 19_790),
        (19_742, 19_742), (19_813, 19_830), (19_700, 19_741), (19_770, 19_800),
    ]

    /// Checks the app views of the store against sums of its links' day rows over every range.
    static func checkAgainstDayRows(_ store: StoreFront) async throws {
        for (from, to) in ranges {
            let from = StatsDay(number: from), to = StatsDay(number: to)
            var days: [String: [Int: LinkDayCounts]] = [:], totals: [String: [LinkTotals]] = [:]
            for link in links {
                var total = LinkDayCounts()
                for (day, counts) in try await store.linkStats(linkID: link, from: from, to: to) {
                    days[app(link), default: [:]][day.number, default: LinkDayCounts()].add(counts)
                    total.add(counts)
                }
                if !total.isZero { totals[app(link), default: []].append(LinkTotals(linkID: link, counts: total)) }
            }
            for app in ["handz", "coin"] {
                let byDay = try await store.appStatsByDay(app: app, from: from, to: to)
                let expected = (days[app] ?? [:]).sorted { $0.key < $1.key }
                #expect(byDay.map(\.0.number) == expected.map(\.key), "\(app) \(from.number)…\(to.number)")
                #expect(byDay.map(\.1) == expected.map(\.value), "\(app) \(from.number)…\(to.number)")
                let ranked = (totals[app] ?? []).sorted { ($1.counts.clicks, $0.linkID) < ($0.counts.clicks, $1.linkID) }
                #expect(try await store.appTopLinks(app: app, from: from, to: to, limit: 10) == TopLinks(links: ranked, exact: true),
                        "\(app) \(from.number)…\(to.number)")
                #expect(try await store.appTopLinks(app: app, from: from, to: to, limit: 2) == TopLinks(links: Array(ranked.prefix(2)), exact: true))
                // The daily tops (fewer than `TopDaily.perDay` links a day: every clicked link is in them) give the
                // links with clicks, the same counts, provably exact.
                let clicked = ranked.filter { $0.counts.clicks > 0 }
                for limit in [10, 2] {
                    let daily = try await store.appTopLinks(app: app, from: from, to: to, limit: limit, exactRowLimit: 0)
                    #expect(daily == TopLinks(links: Array(clicked.prefix(limit)), exact: true), "\(app) \(from.number)…\(to.number)")
                }
            }
        }
    }

    @Test("the app's days and top links from the rollups equal the day rows' sums, also after a reopen", arguments: Backend.allCases)
    func rollupsMatchDayRows(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        try await Self.record(into: store)
        let top = try await store.appTopLinks(app: "handz", from: Self.first, to: Self.last, limit: 10)
        #expect(top.links.count == 3 && top.links.allSatisfy { $0.counts.clicks > 0 })
        try await Self.checkAgainstDayRows(store)
        await store.close()
        let reopened = try await location.open()
        try await Self.checkAgainstDayRows(reopened)
        #expect(try await reopened.appTopLinks(app: "handz", from: Self.first, to: Self.last, limit: 10) == top)
        await reopened.close()
    }

    @Test("one flush of every link over four months: the same rollups as the day rows' sums", arguments: Backend.allCases)
    func rollupsFromOneFlush(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        try await Self.record(into: store, oneFlush: true)
        try await Self.checkAgainstDayRows(store)
        await store.close()
    }

    @Test("the migration builds the rollups from day rows stored before it and drops the (app, day) index", arguments: Backend.allCases)
    func migrationBackfills(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        try await Self.record(into: store)
        let before = try await store.appStatsByDay(app: "handz", from: Self.first, to: Self.last)
        await store.close()
        // The store as an earlier release left it: day rows and their index, no rollups nor daily tops, their
        // migrations not run (so the daily tops' backfill is checked too: `checkAgainstDayRows` reads them).
        let undo = [
            "DROP TABLE app_stats_daily", "DROP TABLE link_stats_monthly", "DROP TABLE app_top_daily",
            "CREATE INDEX link_stats_app_day ON link_stats_daily (app, day)",
        ]
        let forgetMigrations = backend == .sqlite
            ? "DELETE FROM grdb_migrations WHERE identifier IN ('stats-rollups-v1', 'top-daily-v1')"
            : "DELETE FROM linkd_migrations WHERE name IN ('stats-rollups-v1', 'top-daily-v1')"
        for statement in undo + [forgetMigrations] { _ = try location.sql(statement) }
        let migrated = try await location.open()
        #expect(try await migrated.appStatsByDay(app: "handz", from: Self.first, to: Self.last).map(\.1) == before.map(\.1))
        try await Self.checkAgainstDayRows(migrated)
        await migrated.close()
        let oldIndex = backend == .sqlite
            ? "SELECT count(*) FROM sqlite_master WHERE name = 'link_stats_app_day'"
            : "SELECT count(*) FROM pg_indexes WHERE indexname = 'link_stats_app_day'"
        #expect(try location.sql(oldIndex) == 0)
    }

    @Test("a full day top stays the day's exact top: below the bar stays out, a tie with a smaller id gets in, a link in it grows",
          arguments: Backend.allCases)
    func fullDayTop(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        let day = StatsDay(number: 20_200)
        func id(_ number: Int) -> String { String(format: "%032x", number) }
        let buffer = ShareEventBuffer(capacity: 1_000)
        func click(_ link: Int, _ times: Int) { for _ in 0..<times { buffer.record(.clickIOS, linkID: id(link), app: "handz", at: day.start) } }
        // The top fills: 100 links of 2 clicks; its bar is (2, link 199).
        for link in 100..<200 { click(link, 2) }
        try await buffer.flush(into: store)
        // Then: 100 links of one click (below the bar), link 50 of 2 (a tie, a smaller id: it takes 199's place),
        // link 250 of 2 (a tie, a larger id: out), and link 150 of the top 5 more.
        for link in 300..<400 { click(link, 1) }
        click(50, 2)
        click(250, 2)
        click(150, 5)
        try await buffer.flush(into: store)
        let expected = [id(150)] + ([50] + (100..<199).filter { $0 != 150 }).map(id)
        let top = try await store.appTopLinks(app: "handz", from: day, to: day, limit: 100, exactRowLimit: 0)
        #expect(top.links.map(\.linkID) == expected)
        #expect(top.links.first?.counts.clicks == 7 && top.links.last?.counts.clicks == 2)
        #expect(try location.sql("SELECT count(*) FROM app_top_daily WHERE day = 20200") == TopDaily.perDay)
        await store.close()
    }

    @Test("past the exact size, the daily tops: a steady link never in a day's top is flagged, a viral one proven", arguments: Backend.allCases)
    func dailyTops(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        let days = (0..<3).map { StatsDay(number: 20_100 + $0) }
        func id(_ number: Int) -> String { String(format: "%032x", number) }
        // Each day 100 fresh links with 10 clicks fill the day's top; link 1 has 9 every day (27 in all, the most)
        // and is never in it. Link 2 (app coin) has 1,000 a day beside 150 links of one click.
        let buffer = ShareEventBuffer(capacity: 1_000)
        for (index, day) in days.enumerated() {
            for link in 0..<100 {
                for _ in 0..<10 { buffer.record(.clickIOS, linkID: id(1_000 + index * 100 + link), app: "handz", at: day.start) }
            }
            for _ in 0..<9 { buffer.record(.clickAndroid, linkID: id(1), app: "handz", at: day.start) }
            for _ in 0..<1_000 { buffer.record(.clickDesktop, linkID: id(2), app: "coin", at: day.start) }
            for link in 0..<150 { buffer.record(.clickIOS, linkID: id(5_000 + link), app: "coin", at: day.start) }
            try await buffer.flush(into: store)
        }
        let exact = try await store.appTopLinks(app: "handz", from: days[0], to: days[2], limit: 1)
        #expect(exact.exact && exact.links.map(\.linkID) == [id(1)] && exact.links.first?.counts.clicks == 27)
        let daily = try await store.appTopLinks(app: "handz", from: days[0], to: days[2], limit: 1, exactRowLimit: 0)
        #expect(!daily.exact, "link 1 may be missing: the answer says so")
        #expect(daily.links.count == 1 && daily.links.first?.counts.clicks == 10, "each listed link's counts are exact")
        let viral = try await store.appTopLinks(app: "coin", from: days[0], to: days[2], limit: 1, exactRowLimit: 0)
        #expect(viral.exact && viral.links.map(\.linkID) == [id(2)] && viral.links.first?.counts.clicksDesktop == 3_000)
        // The day tops hold at most `TopDaily.perDay` links, reopened or not.
        let reopened = try await location.open()
        let again = try await reopened.appTopLinks(app: "coin", from: days[0], to: days[2], limit: 5, exactRowLimit: 0)
        #expect(again.links.first?.linkID == id(2) && again.links.count == 5 && !again.exact, "ties at 3 clicks among 150 links")
        await reopened.close()
        await store.close()
    }
}
