import Foundation
import LinkStore
import LinkdTestSupport
import Testing

/// Campaign and referrer labels (normalised and capped before they are counted) and their rows in both stores: the
/// per-link and per-app caps hold across flushes, with the rest counted as `(other)`, and the app's rollup equals the
/// sum of its links' rows.
@Suite("Share sources: campaigns and referring hosts")
struct ShareSourceTests {
    @Test("campaign parts are normalised: lower case, safe characters, no formula start, at most 64 bytes")
    func campaignNormalisation() {
        #expect(Campaign.normalised("Spring Sale!") == "spring-sale")
        #expect(Campaign.normalised("  E-mail  ") == "e-mail")
        #expect(Campaign.normalised("=HYPERLINK(\"http://x\")") == "hyperlink-http-x")
        #expect(Campaign.normalised("+cmd|' /C calc'!A0") == "cmd-c-calc-a0")
        #expect(Campaign.normalised("@SUM(1)") == "sum-1")
        #expect(Campaign.normalised("Été_2026.v2") == "été_2026.v2")
        #expect(Campaign.normalised("a\u{0}b\nc\u{202E}d") == "a-b-c-d")
        #expect(Campaign.normalised("!!!") == nil)
        #expect(Campaign.normalised("") == nil)
        let long = Campaign.normalised(String(repeating: "é", count: 100))
        #expect(long?.utf8.count == 64 && long?.count == 32, "cut at a character")
        #expect(Campaign.normalised(String(repeating: "a", count: 1_000_000))?.utf8.count == 64)
        #expect(Campaign(source: "!!", medium: nil, name: " ") == nil)
        let campaign = Campaign(source: "Twitter", medium: nil, name: "Launch Day")
        #expect(campaign?.label == "twitter||launch-day")
        #expect(campaign.flatMap { Campaign(label: $0.label) } == campaign)
        #expect(Campaign(label: ShareSource.none) == nil && Campaign(label: ShareSource.other) == nil)
    }

    @Test("a Referer keeps its host only")
    func referrerHosts() {
        let cases: [(String?, String)] = [
            (nil, "(none)"), ("", "(none)"),
            ("https://News.Example.com/a/b?c=d#e", "news.example.com"),
            ("https://user:pw@example.com:8443/x", "example.com"),
            ("http://example.com.", "example.com"),
            ("android-app://com.google.android.gm/", "com.google.android.gm"),
            ("https://[2001:DB8::1]:443/path", "[2001:db8::1]"),
            ("/relative/path", "(other)"), ("example.com/path", "(other)"), ("https:///nohost", "(other)"),
            ("https://exa mple.com/", "(other)"), ("https://bücher.example/", "(other)"), ("javascript:alert(1)", "(other)"),
            ("https://" + String(repeating: "a", count: 254) + "/", "(other)"),
            ("https://" + String(repeating: "a", count: 5_000), "(other)"),
        ]
        for (field, host) in cases { #expect(ShareSource.referrerHost(field) == host, "\(field ?? "nil")") }
    }

    @Test("the buffer caps a link's values per day: a flood of made-up campaigns is counted as (other)")
    func bufferCap() {
        var sources = DaySources()
        for index in 0..<1_000 { sources.add(ShareSource(campaign: "c\(index)||", referrer: "r\(index).example")) }
        for dimension in SourceDimension.allCases {
            let values = sources.counts[dimension] ?? [:]
            #expect(values.count == SourceCaps.perLinkDay + 1)
            #expect(values[ShareSource.other] == 1_000 - SourceCaps.perLinkDay)
            #expect(values.values.reduce(0, +) == 1_000)
        }
    }

    @Test("a flush of more links than one write chunk writes every link's clicks, day row and sources once", arguments: Backend.allCases)
    func flushInChunks(backend: Backend) async throws {
        let store = try await StoreLocation(backend).open()
        let day = StatsDay(number: 20_000), at = StatsDay(number: 20_000).start.addingTimeInterval(60)
        let links = ShareEventBatch.writeChunk * 2 + 7
        let buffer = ShareEventBuffer()
        for n in 0..<links {
            let id = String(repeating: "0", count: 32 - String(n, radix: 16).count) + String(n, radix: 16)
            buffer.record(.clickIOS, linkID: id, app: "handz", at: at, source: n % 3 == 0 ? ShareSource(campaign: "spring||") : nil)
            if n % 2 == 0 { buffer.record(.clickDesktop, linkID: id, app: "handz", at: at) }
        }
        try await buffer.flush(into: store)
        let totals = try await store.appStatsByDay(app: "handz", from: day, to: day)
        #expect(totals.count == 1)
        #expect(totals.first?.1.clicksIOS == links && totals.first?.1.clicksDesktop == (links + 1) / 2)
        let sources = try await store.appSources(app: "handz", from: day, to: day).counts[.campaign] ?? [:]
        #expect(sources == ["spring||": (links + 2) / 3, ShareSource.none: links + (links + 1) / 2 - (links + 2) / 3])
        let last = String(links - 1, radix: 16)
        #expect(try await store.clicks(linkID: String(repeating: "0", count: 32 - last.count) + last).count == ((links - 1) % 2 == 0 ? 2 : 1))
        #expect(try await store.clicks(linkID: String(repeating: "0", count: 32)).count == 2)
        await store.close()
    }

    @Test("(none) takes no place under a link's cap: openings without a campaign stay (none) beside 20 campaigns", arguments: Backend.allCases)
    func noneIsUncapped(backend: Backend) async throws {
        var sources = DaySources()
        sources.add(ShareSource())
        for index in 0..<25 { sources.add(ShareSource(campaign: "c\(index)||")) }
        #expect(sources.counts[.campaign]?.count == SourceCaps.perLinkDay + 2)
        #expect(sources.counts[.campaign]?[ShareSource.none] == 1 && sources.counts[.campaign]?[ShareSource.other] == 5)

        let store = try await StoreLocation(backend).open()
        let day = StatsDay(number: 20_000), at = StatsDay(number: 20_000).start.addingTimeInterval(60)
        let link = String(repeating: "c", count: 32)
        let first = ShareEventBuffer()
        for index in 0..<SourceCaps.perLinkDay {
            first.record(.clickIOS, linkID: link, app: "handz", at: at, source: ShareSource(campaign: "c\(index)||"))
        }
        try await first.flush(into: store)
        // The next flush adds openings without a campaign (read no stored values) and one more campaign (over the cap).
        let second = ShareEventBuffer()
        for _ in 0..<3 { second.record(.clickAndroid, linkID: link, app: "handz", at: at) }
        second.record(.clickAndroid, linkID: link, app: "handz", at: at, source: ShareSource(campaign: "late||"))
        try await second.flush(into: store)
        let campaigns = try await store.linkSources(linkID: link, from: day, to: day).counts[.campaign] ?? [:]
        #expect(campaigns[ShareSource.none] == 3)
        #expect(campaigns[ShareSource.other] == 1 && campaigns["late||"] == nil)
        #expect(campaigns.count == SourceCaps.perLinkDay + 2)
        await store.close()
    }

    @Test("an opening without campaign or referrer writes no source row: (none) is what the clicks leave, as an older linkd's (none) rows read", arguments: Backend.allCases)
    func noneIsDerived(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        let day = StatsDay(number: 20_000), at = StatsDay(number: 20_000).start.addingTimeInterval(60)
        let plain = String(repeating: "d", count: 32), mixed = String(repeating: "e", count: 32)
        let buffer = ShareEventBuffer()
        for _ in 0..<5 { buffer.record(.clickIOS, linkID: plain, app: "handz", at: at) }
        buffer.record(.clickDesktop, linkID: mixed, app: "handz", at: at)
        buffer.record(.clickDesktop, linkID: mixed, app: "handz", at: at, source: ShareSource(campaign: "spring||"))
        buffer.record(.preview, linkID: mixed, app: "handz", at: at)
        try await buffer.flush(into: store)
        let rows = "SELECT count(*) FROM link_sources_daily WHERE value = '(none)' OR linkid = '\(plain)'"
        let appRows = "SELECT count(*) FROM app_sources_daily WHERE value = '(none)'"
        #expect(try location.sql(rows) == 0)
        #expect(try location.sql(appRows) == 0)
        let expected = [
            plain: [SourceDimension.campaign: [ShareSource.none: 5], .referrer: [ShareSource.none: 5]],
            mixed: [.campaign: ["spring||": 1, ShareSource.none: 1], .referrer: [ShareSource.none: 2]],
        ]
        for (link, counts) in expected { #expect(try await store.linkSources(linkID: link, from: day, to: day).counts == counts) }
        let app = [SourceDimension.campaign: ["spring||": 1, ShareSource.none: 6], .referrer: [ShareSource.none: 7]]
        #expect(try await store.appSources(app: "handz", from: day, to: day).counts == app)
        await store.close()
        // The rows an older linkd wrote for the same openings: the same answers, never counted twice.
        for statement in [
            "INSERT INTO link_sources_daily (linkid, day, dimension, value, app, clicks) VALUES ('\(plain)', 20000, 'campaign', '(none)', 'handz', 5)",
            "INSERT INTO link_sources_daily (linkid, day, dimension, value, app, clicks) VALUES ('\(mixed)', 20000, 'referrer', '(none)', 'handz', 2)",
            "INSERT INTO app_sources_daily (app, day, dimension, value, clicks) VALUES ('handz', 20000, 'campaign', '(none)', 6)",
        ] {
            _ = try location.sql(statement)
        }
        let reopened = try await location.open()
        for (link, counts) in expected { #expect(try await reopened.linkSources(linkID: link, from: day, to: day).counts == counts) }
        #expect(try await reopened.appSources(app: "handz", from: day, to: day).counts == app)
        #expect(try await reopened.linkSources(linkID: plain, from: StatsDay(number: 20_001), to: StatsDay(number: 20_002)).counts.isEmpty)
        await reopened.close()
    }

    @Test("a flush whose day-row write fails inside SQLite throws, writes nothing, and the next flush writes it all once")
    func failedWriteKeepsEvents() async throws {
        let location = try StoreLocation(.sqlite)
        let store = try await location.open()
        let day = StatsDay(number: 20_000), at = StatsDay(number: 20_000).start.addingTimeInterval(60)
        let link = String(repeating: "f", count: 32)
        // A trigger makes SQLite refuse the day row, as a full disk or a corrupt page would: the error comes from the
        // statement bound through SQLite's C API (`DirectStatement`), after the click total was written.
        _ = try location.sql(
            "CREATE TRIGGER refuse_day BEFORE INSERT ON link_stats_daily BEGIN SELECT RAISE(ABORT, 'refused by test'); END")
        let buffer = ShareEventBuffer()
        for _ in 0..<3 { buffer.record(.clickIOS, linkID: link, app: "handz", at: at, source: ShareSource(campaign: "spring||")) }
        let error = await #expect(throws: (any Error).self) { try await buffer.flush(into: store) }
        #expect("\(error.map { String(describing: $0) } ?? "")".contains("refused by test"), "SQLite's own message")
        #expect(buffer.pendingClicks(linkID: link).count == 3, "the batch is put back")
        #expect(try await store.clicks(linkID: link).count == 0, "the click total rolled back with the transaction")
        _ = try location.sql("DROP TRIGGER refuse_day")
        try await buffer.flush(into: store)
        #expect(try await store.clicks(linkID: link).count == 3)
        #expect(try await store.linkStats(linkID: link, from: day, to: day).first?.1.clicksIOS == 3)
        #expect(try await store.linkSources(linkID: link, from: day, to: day).counts[.campaign] == ["spring||": 3])
        await store.close()
    }

    @Test("rows in the store: caps across flushes, the app's rollup, after a reopen", arguments: Backend.allCases)
    func storedRows(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        let day = StatsDay(number: 20_000), at = StatsDay(number: 20_000).start.addingTimeInterval(3_600)
        let link = String(repeating: "a", count: 32), other = String(repeating: "b", count: 32)
        // Four flushes of 10 new campaigns each for one link: the first 20 kept, 20 counted as (other); the same
        // value again after the cap still counts as itself.
        for flush in 0..<4 {
            let buffer = ShareEventBuffer()
            for index in 0..<10 {
                buffer.record(.clickIOS, linkID: link, app: "handz", at: at,
                              source: ShareSource(campaign: "c\(flush * 10 + index)||", referrer: "t.co"))
            }
            buffer.record(.clickAndroid, linkID: link, app: "handz", at: at, source: ShareSource(campaign: "c0||"))
            buffer.record(.clickDesktop, linkID: other, app: "handz", at: at, source: ShareSource(campaign: "c39||"))
            buffer.record(.preview, linkID: other, app: "handz", at: at, source: ShareSource(campaign: "never||"))
            try await buffer.flush(into: store)
        }
        let reopened = try await location.open()
        for reader in [store, reopened] {
            let totals = try await reader.linkSources(linkID: link, from: day, to: day)
            let campaigns = totals.counts[.campaign] ?? [:]
            #expect(campaigns.count == SourceCaps.perLinkDay + 1)
            #expect(campaigns["c0||"] == 5, "1 + 4 from Android")
            #expect(campaigns["c19||"] == 1 && campaigns["c20||"] == nil)
            #expect(campaigns[ShareSource.other] == 20)
            #expect(totals.counts[.referrer] == ["t.co": 40, ShareSource.none: 4])
            let app = try await reader.appSources(app: "handz", from: day, to: day)
            #expect(app.counts[.campaign]?["c39||"] == 4, "the other link's own value; previews count no source")
            #expect(app.counts[.campaign]?["never||"] == nil)
            #expect(app.counts[.campaign]?[ShareSource.other] == 20)
            #expect(app.counts[.campaign]?.values.reduce(0, +) == 48)
            #expect(try await reader.appSources(app: "coin", from: day, to: day).counts.isEmpty)
            #expect(try await reader.linkSources(linkID: link, from: StatsDay(number: 20_001), to: StatsDay(number: 20_100)).counts.isEmpty)
        }
        await store.close()
        await reopened.close()
    }
}
