import Foundation
import JSONOutput
import LinkRouter
import LinkStore
import TokenSigning
import UTCTime

/// The `?format=` of `GET /v1/links/export`.
enum LinkExportFormat: String, Sendable, CaseIterable {
    /// RFC 4180 CSV for spreadsheets: a header row, CRLF line ends, every text cell guarded against formulas.
    case csv
    /// One JSON object per line (`LinkExportRecord`, version `LinkExportRecord.version`): what an import reads back.
    case ndjson

    /// The response's `Content-Type`.
    var mediaType: String {
        switch self {
        case .csv: "text/csv; charset=utf-8"
        case .ndjson: "application/x-ndjson"
        }
    }

    /// What the attachment's file name ends with.
    var fileExtension: String { rawValue }
}

/// One link as an export writes it: everything needed to make the link again (id, short id, route, params, owner,
/// title, campaign, stored status, generation, dates) and what a person reads (its share URLs, clicks).
///
/// The NDJSON line (version 1, docs/api.md "Exporting links") has these keys, always all of them, in this order:
/// `linkdExport` (the record version, 1), `id`, `app`, `shortId`, `path`, `route`, `params` (keys sorted), `owner`,
/// `title`, `campaign` (`source`, `medium`, `name`, or null), `status` (`active`, `revoked`, `deleted`, or `expired`
/// — an active link past `expiresAt`), `generation`, `createdAt`, `expiresAt`, `clicks`, `lastOpenedAt`, `shortURL`,
/// `tokenURL`; an absent value is `null`. A reader ignores keys it does not know (a later version 1 may add some at
/// the end); a new version number means a change a version-1 reader cannot read.
struct LinkExportRecord: Sendable {
    /// The NDJSON record's version (`linkdExport`).
    static let version = 1

    let id: String
    let app: String
    let shortID: String?
    /// The link's custom path, while it holds one.
    let path: String?
    let route: String
    let params: [String: String]
    let owner: String?
    let title: String?
    let campaign: Campaign?
    /// As the API names it: `active`, `revoked`, `deleted`, or `expired` (stored as active, past its expiry).
    let status: String
    let generation: Int
    let created: Date
    let expires: Date
    let clicks: Int
    let lastOpened: Date?
    /// `/s/<short id>` on the app's share host; nil for a link made before short ids.
    let shortURL: String?
    /// A share URL with a token of the link (signed again, as the inspector does); nil unless the link is active,
    /// unexpired, and its app has a share host and an active signing key.
    let tokenURL: String?

    /// The record of a listed link, its status judged at `now`; `signer` makes its token URL.
    init(_ link: ListedLink, now: Date, router: Router, signer: TokenURLSigner) {
        let record = link.record
        id = record.id
        app = record.app
        shortID = record.shortID
        path = record.path
        route = record.route
        params = record.params
        owner = record.owner
        title = record.title
        campaign = record.campaign
        status = record.status == .active && record.expires <= now ? "expired" : record.status.rawValue
        generation = record.generation
        created = record.created
        expires = record.expires
        clicks = link.clicks.count
        lastOpened = link.clicks.lastOpened
        shortURL = record.shortID.flatMap { router.shareURL(app: record.app, token: $0) }
        tokenURL = record.status == .active && record.expires > now ? signer.url(of: record, router: router) : nil
    }

    // MARK: NDJSON

    /// The NDJSON line, `\n` included: the keys in the record's fixed order, written by `JSONBytes` (the API's one
    /// JSON writer; `params` sorted by key).
    func ndjsonLine() -> String {
        var line = JSONBytes()
        line.open()
        line.key("linkdExport")
        line.raw(String(Self.version).utf8)
        line.field("id", id)
        line.field("app", app)
        line.fieldOrNull("shortId", shortID)
        line.fieldOrNull("path", path)
        line.field("route", route)
        line.key("params")
        line.dictionary(params)
        line.fieldOrNull("owner", owner)
        line.fieldOrNull("title", title)
        line.key("campaign")
        if let campaign {
            line.open()
            line.fieldOrNull("source", campaign.source)
            line.fieldOrNull("medium", campaign.medium)
            line.fieldOrNull("name", campaign.name)
            line.close()
        } else {
            line.raw("null".utf8)
        }
        line.field("status", status)
        line.key("generation")
        line.raw(String(generation).utf8)
        line.field("createdAt", ExportText.date(created))
        line.field("expiresAt", ExportText.date(expires))
        line.key("clicks")
        line.raw(String(clicks).utf8)
        line.fieldOrNull("lastOpenedAt", lastOpened.map(ExportText.date))
        line.fieldOrNull("shortURL", shortURL)
        line.fieldOrNull("tokenURL", tokenURL)
        line.close()
        return String(decoding: line.bytes, as: UTF8.self) + "\n"
    }

    // MARK: CSV

    /// The CSV header row's columns.
    static let csvColumns = [
        "id", "app", "short_url", "token_url", "path", "route", "params", "owner", "title", "campaign_source",
        "campaign_medium", "campaign_name", "status", "created_at", "expires_at", "clicks", "last_opened_at",
    ]

    /// The CSV header row, CRLF included.
    static let csvHeader = csvColumns.joined(separator: ",") + "\r\n"

    /// The CSV row, CRLF included: every cell through `ExportText.csvCell` (quoted as RFC 4180 says, and a cell that
    /// a spreadsheet would read as a formula prefixed with `'`); `params` as a JSON object (keys sorted).
    func csvRow() -> String {
        var paramsJSON = JSONBytes()
        paramsJSON.dictionary(params)
        let cells: [String?] = [
            id, app, shortURL, tokenURL, path, route, String(decoding: paramsJSON.bytes, as: UTF8.self), owner, title,
            campaign?.source, campaign?.medium, campaign?.name, status, ExportText.date(created), ExportText.date(expires),
            String(clicks), lastOpened.map(ExportText.date),
        ]
        return cells.map { ExportText.csvCell($0 ?? "") }.joined(separator: ",") + "\r\n"
    }
}

/// Signs a token URL for each active link of an export with its app's active key (HMAC-SHA256 first, else Ed25519),
/// as the inspector does: same link id, expiry and generation, so it opens what the link's first token opens. Both
/// suites sign deterministically, so two exports of an unchanged link write the same URL.
struct TokenURLSigner: Sendable {
    /// The keyring in force when the export started.
    let keyring: Keyring
    /// The time the tokens are issued at.
    let now: Date

    /// The token URL of `record` on its app's share host; nil without a key or a share host.
    func url(of record: LinkRecord, router: Router) -> String? {
        guard let linkID = LinkID(hex: record.id) else { return nil }
        let expires = UInt32(clamping: Int(record.expires.timeIntervalSince1970))
        let issued = UInt32(clamping: Int(now.timeIntervalSince1970))
        for suite in [TokenSuite.hmacSHA256, .ed25519] {
            if let token = try? keyring.issue(
                app: record.app, suite: suite, linkID: linkID, expiresAt: expires,
                generation: UInt32(clamping: record.generation), flags: 0, now: issued)
            {
                return router.shareURL(app: record.app, token: token)
            }
        }
        return nil
    }
}

/// The text forms an export writes: dates, CSV cells.
enum ExportText {
    /// RFC 3339 in UTC to the second (`2026-11-24T10:00:00Z`), as the API's JSON writes dates.
    static func date(_ date: Date) -> String {
        let utc = UTCDateTime(Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
        return "\(UTCDateTime.padded(utc.year, 4))-\(UTCDateTime.padded(utc.month, 2))-\(UTCDateTime.padded(utc.day, 2))T"
            + "\(UTCDateTime.padded(utc.hour, 2)):\(UTCDateTime.padded(utc.minute, 2)):\(UTCDateTime.padded(utc.second, 2))Z"
    }

    /// The first characters with which a spreadsheet starts a formula (or, for tab and CR, with which it drops
    /// leading space before one): a cell starting with one gets a `'` first (OWASP, "CSV Injection").
    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    /// One CSV cell: `'` first when it would start a formula, then quoted (`"…"`, inner `"` doubled) when it holds a
    /// comma, a quote, CR or LF, or starts or ends with a space (RFC 4180).
    static func csvCell(_ text: String) -> String {
        var cell = text
        if let first = cell.unicodeScalars.first, formulaStarts.contains(first) { cell = "'" + cell }
        let needsQuotes = cell.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A }
            || cell.hasPrefix(" ") || cell.hasSuffix(" ")
        guard needsQuotes else { return cell }
        // Each `"` doubled as a scalar: String's own replacing works on characters, and a quote followed by a
        // combining mark (`"` U+0359) is one character that it leaves alone — an unbalanced quote that would end
        // the cell early and let the rest of the title start a cell of its own, past the formula guard.
        var quoted = String.UnicodeScalarView()
        for scalar in cell.unicodeScalars {
            quoted.append(scalar)
            if scalar == "\"" { quoted.append(scalar) }
        }
        return "\"" + String(quoted) + "\""
    }
}
