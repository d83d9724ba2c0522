import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
import LinkStore
import NIOCore

/// The `?format=` of the stats endpoints: `json` (the default) or `csv` (one row per day, for spreadsheets).
enum StatsFormat: Sendable {
    case json
    case csv

    /// The format `text` names (nil: JSON); 400 `unsupported_format` for any other.
    init(_ text: String?) throws {
        switch text {
        case nil, "json": self = .json
        case "csv": self = .csv
        default: throw APIError(.badRequest, .unsupportedFormat, "'format' must be json or csv")
        }
    }
}

/// A stats answer as CSV (RFC 4180, CRLF line ends): a header row, then one row per day of the range — every day,
/// those without events as zeros — with the counters of the JSON's `byDay`. Every cell is a date or a number, so no
/// cell can start a spreadsheet formula.
enum StatsCSV {
    /// The header row's columns.
    static let header = [
        "date", "clicks", "clicks_ios", "clicks_android", "clicks_desktop", "previews", "installs", "installs_ios",
        "installs_android", "claims_made", "claims_claimed", "claims_expired",
    ]

    /// The CSV text of `days` (sparse, oldest first) over `from`…`to`.
    static func text(_ days: [(StatsDay, LinkDayCounts)], from: StatsDay, to: StatsDay) -> String {
        let byDay = Dictionary(days.map { ($0.0.number, $0.1) }, uniquingKeysWith: { first, _ in first })
        var lines = [header.joined(separator: ",")]
        for number in from.number...to.number {
            let counts = byDay[number] ?? LinkDayCounts()
            let values = [counts.clicks, counts.clicksIOS, counts.clicksAndroid, counts.clicksDesktop, counts.previews,
                          counts.installs, counts.installsIOS, counts.installsAndroid, counts.claimsMade,
                          counts.claimsClaimed, counts.claimsExpired]
            lines.append(([StatsRange.text(StatsDay(number: number))] + values.map(String.init)).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The CSV response, as a download named `linkd-stats-<subject>-<from>-<to>.csv` (the subject reduced to
    /// letters, digits, `-`, `_` and `.`).
    static func response(_ days: [(StatsDay, LinkDayCounts)], subject: String, from: StatsDay, to: StatsDay) -> Response {
        let safe = String(subject.prefix(64).map { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) ? $0 : "_" })
        let name = "linkd-stats-\(safe)-\(StatsRange.text(from))-\(StatsRange.text(to)).csv"
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"\(name)\"",
            ],
            body: .init(byteBuffer: ByteBuffer(string: text(days, from: from, to: to))))
    }
}
