import Foundation
import LinkStore

/// What the console's stats pages show, built from the stats API's own answers (`StatsAnswer`): a list of sections,
/// each a titled table (the opens-by-day section also a chart), so a new breakdown is one more section.
enum ConsoleStatsPage {
    /// One section of a stats page: a heading, a table with a caption, and for opens by day a chart of the same
    /// numbers.
    struct Section {
        /// A cell of the table: its text, a link when it has one, and whether it is a number (right-aligned).
        struct Cell {
            let text: String
            var href: String?
            var numeric = false
        }

        /// The id its heading takes (`<id>-heading`).
        let id: String
        let title: String
        /// The table's caption: what the rows are, for screen readers and everyone.
        let caption: String
        /// Column labels; the first is the row's name.
        let columns: [String]
        /// Which columns hold numbers.
        let numericColumns: Set<Int>
        let rows: [[Cell]]
        /// What the section says when there are no rows.
        let empty: String
        /// The chart's values (`ConsoleStatsPage.chart`), when the section has one.
        var chart: [String: Any]?

        /// The template's values.
        var context: [String: Any] {
            var values: [String: Any] = [
                "id": id, "title": title, "caption": caption, "empty": empty, "hasRows": !rows.isEmpty,
                "columns": columns.enumerated().map { ["label": $1, "numeric": numericColumns.contains($0)] as [String: Any] },
                "rows": rows.map { row in ["cells": row.enumerated().map { index, cell in [
                    "text": cell.text, "href": cell.href ?? "", "hasLink": cell.href != nil,
                    "numeric": cell.numeric || numericColumns.contains(index),
                    "label": index < columns.count ? columns[index] : "",
                ] as [String: Any] }] },
                "hasChart": chart != nil,
            ]
            if let chart { values["chart"] = chart }
            return values
        }
    }

    /// Opens by day: a chart of every day of the range (days without opens as gaps) and a table of the days with any
    /// event.
    static func byDay(_ days: [StatsCounts], from: StatsDay, to: StatsDay) -> Section {
        let rows = days.map { day in
            [Section.Cell(text: day.date ?? "")] + [
                day.clicks, day.byPlatform.ios, day.byPlatform.android, day.byPlatform.desktop ?? 0, day.previews, day.installs,
            ].map { Section.Cell(text: String($0)) }
        }
        let clicks = Dictionary(days.compactMap { day in day.date.map { ($0, day.clicks) } }, uniquingKeysWith: +)
        let series = (from.number...to.number).map { number in
            let date = StatsRange.text(StatsDay(number: number))
            return (date: date, value: clicks[date] ?? 0)
        }
        return Section(
            id: "by-day", title: "Opens by day",
            caption: "Opens by UTC day, \(StatsRange.text(from)) to \(StatsRange.text(to)); days without any event are left out.",
            columns: ["Day", "Opens", "iOS", "Android", "Desktop", "Previews", "Installs"], numericColumns: Set(1...6),
            rows: rows, empty: "Nobody opened the share page in these days.", chart: chart(series))
    }

    /// Opens and store redirects by platform.
    static func byPlatform(_ totals: StatsCounts) -> Section {
        let rows: [[Section.Cell]] = [
            ("iOS", totals.byPlatform.ios, String(totals.installsByPlatform.ios)),
            ("Android", totals.byPlatform.android, String(totals.installsByPlatform.android)),
            ("Desktop", totals.byPlatform.desktop ?? 0, "—"),
        ].map { [Section.Cell(text: $0.0), Section.Cell(text: String($0.1)), Section.Cell(text: $0.2)] }
        return Section(id: "by-platform", title: "By platform", caption: "Opens and store redirects by platform.",
                       columns: ["Platform", "Opens", "Installs"], numericColumns: [1, 2], rows: rows, empty: "")
    }

    /// Store redirects, claim codes and link-preview crawlers.
    static func installsAndClaims(_ totals: StatsCounts) -> Section {
        let rows: [[Section.Cell]] = [
            ("Store redirects (installs)", totals.installs),
            ("Claim codes made", totals.claims.made), ("Claim codes claimed in the app", totals.claims.claimed),
            ("Claim codes expired unclaimed", totals.claims.expired),
            ("Link-preview crawlers (not counted as opens)", totals.previews),
        ].map { [Section.Cell(text: $0.0), Section.Cell(text: String($0.1))] }
        return Section(id: "installs", title: "Installs and claims", caption: "Store redirects, deferred-link claim codes and previews.",
                       columns: ["What", "Count"], numericColumns: [1], rows: rows, empty: "")
    }

    /// Opens by campaign (`utm_*` on the share URL, or the link's own), most first; `(none)` and `(other)` explained.
    static func byCampaign(_ entries: [SourceBreakdown.CampaignCount]) -> Section {
        let rows = entries.map { entry -> [Section.Cell] in
            let name: String = switch entry.label {
            case ShareSource.none: "No campaign"
            case ShareSource.other: "Other campaigns"
            default: entry.name ?? "—"
            }
            return [Section.Cell(text: name), Section.Cell(text: entry.source ?? "—"), Section.Cell(text: entry.medium ?? "—"),
                    Section.Cell(text: String(entry.clicks))]
        }
        return Section(
            id: "by-campaign", title: "By campaign",
            caption: "Opens by campaign: the share URL's utm_campaign, utm_source and utm_medium, or the link's own campaign.",
            columns: ["Campaign", "Source", "Medium", "Opens"], numericColumns: [3], rows: rows,
            empty: "No opens with a campaign in these days.")
    }

    /// Opens by referring site (the host of `Referer` only), most first.
    static func byReferrer(_ entries: [SourceBreakdown.ReferrerCount]) -> Section {
        let rows = entries.map { entry -> [Section.Cell] in
            let host: String = switch entry.host {
            case ShareSource.none: "No referring site (direct, an app, or no-referrer)"
            case ShareSource.other: "Other sites"
            default: entry.host
            }
            return [Section.Cell(text: host), Section.Cell(text: String(entry.clicks))]
        }
        return Section(
            id: "by-referrer", title: "By referring site",
            caption: "Opens by the referring site's host name; no path or full address is kept.",
            columns: ["Site", "Opens"], numericColumns: [1], rows: rows, empty: "No opens in these days.")
    }

    /// An app's most opened links, each linked to its inspector and its stats; the caption says when the list is not
    /// provably the exact top (`exact`: `AppStatsFields.topExact`).
    static func topLinks(_ top: [StatsCounts], exact: Bool) -> Section {
        let rows = top.map { link -> [Section.Cell] in
            let id = link.linkId ?? ""
            return [
                Section.Cell(text: link.title.map { "\($0) (\(id))" } ?? id, href: "/admin/links/\(id)"),
                Section.Cell(text: String(link.clicks)), Section.Cell(text: String(link.installs)),
                Section.Cell(text: "Stats", href: "/admin/links/\(id)/stats"),
            ]
        }
        let caption = exact
            ? "The most opened links in these days, most opened first."
            : "The most opened links among each day's 100 most opened, most opened first, with their exact counts; "
                + "a link never among a day's 100 most opened may be missing."
        return Section(id: "top", title: "Top links", caption: caption,
                       columns: ["Link", "Opens", "Installs", "Details"], numericColumns: [1, 2], rows: rows,
                       empty: "No link was opened in these days.")
    }

    /// The totals shown first, as tiles.
    static func tiles(_ totals: StatsCounts) -> [[String: Any]] {
        [("Opens", totals.clicks), ("Installs", totals.installs), ("Claims", totals.claims.claimed), ("Previews", totals.previews)]
            .map { ["label": $0.0, "value": $0.1] as [String: Any] }
    }

    /// A bar chart of `series` for an inline SVG whose user space is 10 units per day and 100 high (stretched to the
    /// page's width by CSS): bars, the scale's top (a round number at or above the largest value) and half, and the
    /// first, middle and last dates. Screen readers get the table instead (the SVG is `aria-hidden`).
    static func chart(_ series: [(date: String, value: Int)]) -> [String: Any] {
        let largest = series.map(\.value).max() ?? 0
        let top = scaleTop(largest)
        let bars: [[String: Any]] = series.enumerated().compactMap { index, point in
            guard point.value > 0 else { return nil }
            let height = max(1.5, 100 * Double(point.value) / Double(top))
            return [
                "x": index * 10 + 1, "y": format(100 - height), "height": format(height),
                "label": "\(point.date): \(point.value) open\(point.value == 1 ? "" : "s")",
            ] as [String: Any]
        }
        let middle = series.isEmpty ? "" : series[series.count / 2].date
        return [
            "width": max(series.count, 1) * 10, "bars": bars, "top": top, "half": top / 2,
            "first": series.first?.date ?? "", "middle": series.count > 2 ? middle : "", "last": series.last?.date ?? "",
        ]
    }

    /// The scale's top: the smallest of 2, 4, 10, 20, 40, 100, … at or above `value` (even, so its half is whole).
    static func scaleTop(_ value: Int) -> Int {
        var magnitude = 1
        while true {
            for step in [2, 4, 10] where step * magnitude >= value { return step * magnitude }
            magnitude *= 10
        }
    }

    private static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
