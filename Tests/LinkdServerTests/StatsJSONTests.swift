import Foundation
import LinkStore
import JSONOutput
import LinkdHTTP
import Testing

@testable import LinkdServer

/// The stats answers are written by hand (`JSONValue`), not through `JSONEncoder`: the bytes must be the ones
/// `JSONBody.encoder` writes for the same answer, with every kind of member present and absent.
@Suite("Stats answers written by hand")
struct StatsJSONTests {
    static let range = try! StatsRange(from: "2026-01-01", to: "2026-12-31", maxDays: 400) { $0 }

    static func counts(_ seed: Int) -> LinkDayCounts {
        LinkDayCounts(values: (0..<LinkDayCounts().values.count).map { seed * 31 + $0 * 7 })
    }

    static let awkward = ["", "plain", "quote\" back\\slash /slash", "tab\tline\ncr\rbell\u{07}nul\u{00}\u{1F}", "é 漢字 😀", "=cmd|' /C calc'!A0"]

    static func sources(_ labels: [String]) -> SourceBreakdown {
        var campaigns: [String: Int] = [ShareSource.other: 3, ShareSource.none: 9]
        var referrers: [String: Int] = [:]
        for (index, label) in labels.enumerated() {
            campaigns[label + "|medium|name"] = index + 1
            campaigns[label] = index + 2
            referrers[label] = index + 5
        }
        return SourceBreakdown(SourceTotals(counts: [.campaign: campaigns, .referrer: referrers]))
    }

    @Test("a link's answer: days, sources, last opening present or absent, awkward strings")
    func linkAnswer() throws {
        for (lastOpened, days) in [(Date(timeIntervalSince1970: 1_790_000_000.123), 365), (nil, 0), (Date(timeIntervalSince1970: 0), 1)] {
            let rows = (0..<days).map { (StatsDay(number: Self.range.from.number + $0), Self.counts($0)) }
            let answer = StatsAnswer(totals: StatsCounts(Self.counts(99)), days: rows, range: Self.range, fields: LinkStatsFields(
                linkId: "l_1\"/x", app: "handz", from: "2026-01-01", to: "2026-12-31",
                byDay: rows.map { StatsCounts($0.1, date: $0.0) }, byCampaign: Self.sources(Self.awkward).byCampaign,
                byReferrer: Self.sources(Self.awkward).byReferrer, lastOpenedAt: lastOpened))
            let expected = try JSONBody.encoder.encode(answer)
            let written = try answer.json.bytes
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        }
    }

    @Test("an app's answer: top links with and without titles, exact or not, no sources")
    func appAnswer() throws {
        for exact in [true, false] {
            let rows = (0..<92).map { (StatsDay(number: Self.range.from.number + $0), Self.counts($0)) }
            let sources = exact ? Self.sources([]) : Self.sources(Self.awkward + (0..<30).map { "c\($0)" })
            let top = Self.awkward.enumerated().map { StatsCounts(Self.counts($0.offset), linkID: "l_\($0.offset)", title: $0.offset == 0 ? nil : $0.element) }
            let answer = StatsAnswer(totals: StatsCounts(Self.counts(7)), days: rows, range: Self.range, fields: AppStatsFields(
                app: "coin", from: "2026-01-01", to: "2026-04-02", byDay: rows.map { StatsCounts($0.1, date: $0.0) },
                byCampaign: sources.byCampaign, byReferrer: sources.byReferrer, top: top, topExact: exact))
            let expected = try JSONBody.encoder.encode(answer)
            #expect(String(decoding: try answer.json.bytes, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        }
    }
}
