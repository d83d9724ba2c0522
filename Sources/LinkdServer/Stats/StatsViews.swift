import Foundation
import HTTPTypes
import JSONOutput
import LinkdHTTP
import LinkStore
import UTCTime

/// Counters as the stats endpoints answer them: for a whole range (flattened into the answer), a day of `byDay`
/// (with `date`), or a link of an app's `top` (with `linkId` and `title`).
struct StatsCounts: Encodable, Sendable {
    /// Clicks by platform.
    struct Platforms: Encodable, Sendable {
        let ios: Int
        let android: Int
        let desktop: Int?
    }

    /// Claim codes by outcome.
    struct Claims: Encodable, Sendable {
        let made: Int
        let claimed: Int
        let expired: Int
    }

    /// The UTC date (`YYYY-MM-DD`) of a `byDay` entry.
    var date: String?
    /// The link of a `top` entry.
    var linkId: String?
    /// Its title, when it has one.
    var title: String?
    /// People who opened the share page (not link-preview crawlers).
    let clicks: Int
    /// Clicks by platform: `ios`, `android`, `desktop`.
    let byPlatform: Platforms
    /// Link-preview crawlers that fetched the page.
    let previews: Int
    /// Store redirects.
    let installs: Int
    /// Store redirects by platform: `ios`, `android`.
    let installsByPlatform: Platforms
    /// Claim codes made, claimed and expired.
    let claims: Claims

    init(_ counts: LinkDayCounts, date: StatsDay? = nil, linkID: String? = nil, title: String? = nil) {
        self.date = date.map(StatsRange.text)
        self.linkId = linkID
        self.title = title
        clicks = counts.clicks
        byPlatform = Platforms(ios: counts.clicksIOS, android: counts.clicksAndroid, desktop: counts.clicksDesktop)
        previews = counts.previews
        installs = counts.installs
        installsByPlatform = Platforms(ios: counts.installsIOS, android: counts.installsAndroid, desktop: nil)
        claims = Claims(made: counts.claimsMade, claimed: counts.claimsClaimed, expired: counts.claimsExpired)
    }

    /// The members as `JSONValue`s, the form the stats answers are written in (`encode(to:)` writes the same).
    var members: [(String, JSONValue?)] {
        [
            ("date", date.map(JSONValue.string)), ("linkId", linkId.map(JSONValue.string)),
            ("title", title.map(JSONValue.string)), ("clicks", .int(clicks)), ("byPlatform", byPlatform.json),
            ("previews", .int(previews)), ("installs", .int(installs)), ("installsByPlatform", installsByPlatform.json),
            ("claims", .object([("made", .int(claims.made)), ("claimed", .int(claims.claimed)), ("expired", .int(claims.expired))])),
        ]
    }

    var json: JSONValue { .object(omittingNil: members) }
}

extension StatsCounts.Platforms {
    var json: JSONValue {
        .object(omittingNil: [("ios", .int(ios)), ("android", .int(android)), ("desktop", desktop.map(JSONValue.int))])
    }
}

/// A stats answer: the totals over the range at the top level, beside the answer's own `fields`; the day rows and
/// the range it was made of are kept for the CSV form (not encoded).
struct StatsAnswer<Fields: Encodable & Sendable>: Encodable, Sendable {
    let totals: StatsCounts
    let days: [(StatsDay, LinkDayCounts)]
    let range: StatsRange
    let fields: Fields

    func encode(to encoder: any Encoder) throws {
        try totals.encode(to: encoder)
        try fields.encode(to: encoder)
    }
}

/// Fields that write themselves as `JSONValue` members (a year of days is written in one pass, not through
/// `JSONEncoder`, whose cost per value was most of a link's year: docs/deferred-links.md).
protocol StatsJSONFields: Encodable, Sendable {
    var members: [(String, JSONValue?)] { get throws }
}

extension StatsAnswer where Fields: StatsJSONFields {
    /// The answer as JSON: the same bytes as `JSONBody.encoder` writes for it.
    var json: JSONValue {
        get throws { .object(omittingNil: totals.members + (try fields.members)) }
    }
}

/// People's openings by source over a range, as the stats endpoints answer them: `byCampaign` and `byReferrer`,
/// each the `maxEntries` values with the most clicks (ties by label), the rest summed into `(other)`, which comes last.
/// `(none)` counts openings without a campaign or without a referring site. Openings counted before linkd kept
/// sources are in neither list.
struct SourceBreakdown: Sendable {
    /// A campaign's clicks: its `label` (`source|medium|name`, or `(none)`/`(other)`) and its parts.
    struct CampaignCount: Encodable, Sendable {
        let label: String
        let source: String?
        let medium: String?
        let name: String?
        let clicks: Int

        var json: JSONValue {
            .object(omittingNil: [
                ("label", .string(label)), ("source", source.map(JSONValue.string)), ("medium", medium.map(JSONValue.string)),
                ("name", name.map(JSONValue.string)), ("clicks", .int(clicks)),
            ])
        }
    }

    /// A referring host's clicks (or `(none)`/`(other)`).
    struct ReferrerCount: Encodable, Sendable {
        let host: String
        let clicks: Int

        var json: JSONValue { .object([("host", .string(host)), ("clicks", .int(clicks))]) }
    }

    /// The most values listed per dimension.
    static let maxEntries = 20

    let byCampaign: [CampaignCount]
    let byReferrer: [ReferrerCount]

    init(_ totals: SourceTotals) {
        byCampaign = Self.top(totals.counts[.campaign] ?? [:]).map { label, clicks in
            let fields = CampaignFields(label: label)
            return CampaignCount(label: label, source: fields?.source, medium: fields?.medium, name: fields?.name, clicks: clicks)
        }
        byReferrer = Self.top(totals.counts[.referrer] ?? [:]).map { ReferrerCount(host: $0.0, clicks: $0.1) }
    }

    private static func top(_ values: [String: Int]) -> [(String, Int)] {
        let ranked = values.filter { $0.key != ShareSource.other && $0.value > 0 }
            .sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        let rest = ranked.dropFirst(maxEntries).reduce(values[ShareSource.other] ?? 0) { $0 + $1.value }
        return ranked.prefix(maxEntries).map { ($0.key, $0.value) } + (rest > 0 ? [(ShareSource.other, rest)] : [])
    }
}

/// `GET /v1/links/{id}/stats` beside the totals: `byDay` (days with any event), `byCampaign`, `byReferrer` and
/// `lastOpenedAt`.
struct LinkStatsFields: Encodable, Sendable {
    let linkId: String
    let app: String
    let from: String
    let to: String
    let byDay: [StatsCounts]
    let byCampaign: [SourceBreakdown.CampaignCount]
    let byReferrer: [SourceBreakdown.ReferrerCount]
    /// Absent when the link was never opened.
    let lastOpenedAt: Date?
}

extension LinkStatsFields: StatsJSONFields {
    var members: [(String, JSONValue?)] {
        get throws {
            [
                ("linkId", .string(linkId)), ("app", .string(app)), ("from", .string(from)), ("to", .string(to)),
                ("byDay", .array(byDay.map(\.json))), ("byCampaign", .array(byCampaign.map(\.json))),
                ("byReferrer", .array(byReferrer.map(\.json))), ("lastOpenedAt", try lastOpenedAt.map(JSONBody.encoded)),
            ]
        }
    }
}

/// `GET /v1/apps/{app}/stats` beside the totals: `byDay`, `byCampaign`, `byReferrer`, the app's `top` links, and
/// whether they are provably the exact top (`topExact`: always for an app of up to `TopDaily.exactRowLimit`
/// link-months in the range; for a larger one, when the daily tops' bound proves it).
struct AppStatsFields: Encodable, Sendable {
    let app: String
    let from: String
    let to: String
    let byDay: [StatsCounts]
    let byCampaign: [SourceBreakdown.CampaignCount]
    let byReferrer: [SourceBreakdown.ReferrerCount]
    let top: [StatsCounts]
    let topExact: Bool
}

extension AppStatsFields: StatsJSONFields {
    var members: [(String, JSONValue?)] {
        [
            ("app", .string(app)), ("from", .string(from)), ("to", .string(to)), ("byDay", .array(byDay.map(\.json))),
            ("byCampaign", .array(byCampaign.map(\.json))), ("byReferrer", .array(byReferrer.map(\.json))), ("top", .array(top.map(\.json))),
            ("topExact", .bool(topExact)),
        ]
    }
}

/// A range of UTC days from `?from=` and `?to=` (`YYYY-MM-DD`, both inclusive), bounded.
struct StatsRange: Sendable {
    let from: StatsDay
    let to: StatsDay

    /// The range the query names: `to` defaults to today, `from` to `defaultFrom(to)` (within `maxDays`, and not
    /// after `to`); 400 for a date that is not
    /// `YYYY-MM-DD`, `from` after `to`, or more than `maxDays` days.
    init(from fromText: String?, to toText: String?, maxDays: Int, defaultFrom: (StatsDay) -> StatsDay, today: StatsDay = StatsDay(Date())) throws {
        let to = try toText.map { try Self.day($0, field: "to") } ?? today
        let from = try fromText.map { try Self.day($0, field: "from") }
            ?? min(to, max(defaultFrom(to), StatsDay(number: to.number - maxDays + 1)))
        guard from <= to else { throw APIError(.badRequest, .badRequest, "'from' must not be after 'to'") }
        guard to.number - from.number < maxDays else {
            throw APIError(.badRequest, .badRequest, "a range is at most \(maxDays) days")
        }
        self.from = from
        self.to = to
    }

    /// `YYYY-MM-DD` of a day.
    static func text(_ day: StatsDay) -> String {
        let fields = UTCDateTime(day.start)
        return "\(UTCDateTime.padded(fields.year, 4))-\(UTCDateTime.padded(fields.month, 2))-\(UTCDateTime.padded(fields.day, 2))"
    }

    private static func day(_ text: String, field: String) throws -> StatsDay {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              let fields = UTCDateTime(year: year, month: month, day: day)
        else { throw APIError(.badRequest, .badRequest, "'\(field)' must be a date as YYYY-MM-DD") }
        return StatsDay(fields.date)
    }
}
