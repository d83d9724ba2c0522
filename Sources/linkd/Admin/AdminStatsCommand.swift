import ArgumentParser
import LinkdAdmin

/// `linkd admin stats link|app`: per-link and per-app counters by UTC day (docs/deferred-links.md, "Analytics").
struct AdminStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Opens, previews, store redirects and claims of a link or an app, by UTC day.",
        subcommands: [Link.self, App.self])

    /// The totals of a stats answer as fields (`claims` is an object: made, claimed, expired).
    static func totals(_ counts: [String: Any]) -> [(String, String?)] {
        let text = JSONText(counts)
        return [
            ("clicks", text["clicks"]), ("by platform", text.pairs("byPlatform")), ("previews", text["previews"]),
            ("installs", text["installs"]), ("installs by platform", text.pairs("installsByPlatform")),
            ("claims", text.pairs("claims")),
        ]
    }

    /// One row of counts (a day, or a top link, after `leading` columns): clicks by platform, previews, installs and
    /// claims made and claimed.
    static let countColumns = ["CLICKS", "IOS", "ANDROID", "DESKTOP", "PREVIEWS", "INSTALLS", "CLAIMS MADE", "CLAIMED"]

    static func countCells(_ counts: [String: Any]) -> [String] {
        let text = JSONText(counts)
        let platforms = JSONText(counts["byPlatform"] as? [String: Any] ?? [:])
        let claims = JSONText(counts["claims"] as? [String: Any] ?? [:])
        return [
            text["clicks"] ?? "0", platforms["ios"] ?? "0", platforms["android"] ?? "0", platforms["desktop"] ?? "0",
            text["previews"] ?? "0", text["installs"] ?? "0", claims["made"] ?? "0", claims["claimed"] ?? "0",
        ]
    }

    /// The `byDay` rows as a table.
    static func days(_ answer: [String: Any]) -> String {
        TextTable(
            columns: ["DATE"] + countColumns,
            rows: JSONText.items("byDay", of: answer).map { [JSONText($0)["date"] ?? "-"] + countCells($0) }
        ).render()
    }

    /// `byCampaign` and `byReferrer` as two titled tables.
    static func sources(_ answer: [String: Any]) -> String {
        let campaigns = TextTable(
            columns: ["CAMPAIGN", "SOURCE", "MEDIUM", "CLICKS"],
            rows: JSONText.items("byCampaign", of: answer).map { entry in
                let text = JSONText(entry)
                let label = text["label"] ?? "-"
                return [label.hasPrefix("(") ? label : text["name"] ?? "-", text["source"] ?? "-", text["medium"] ?? "-", text["clicks"] ?? "0"]
            }
        ).render()
        let referrers = TextTable(
            columns: ["REFERRING HOST", "CLICKS"],
            rows: JSONText.items("byReferrer", of: answer).map { entry in
                let text = JSONText(entry)
                return [text["host"] ?? "-", text["clicks"] ?? "0"]
            }
        ).render()
        return "By campaign\n" + campaigns + "\n\nBy referring site\n" + referrers
    }

    struct Link: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "One link's counters over a range of UTC days.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The link's id.") var id: String
        @Option(help: "The first UTC day, YYYY-MM-DD (default: the server's).") var from: String?
        @Option(help: "The last UTC day, YYYY-MM-DD (default: today).") var to: String?

        func request() -> AdminRequest {
            AdminRequest("GET", ["v1", "links", id, "stats"], query: [("from", from), ("to", to)])
        }
        func render(_ answer: [String: Any]) -> String {
            let text = JSONText(answer)
            return FieldList([("link", text["linkId"]), ("app", text["app"]), ("from", text["from"]), ("to", text["to"])]
                + AdminStatsCommand.totals(answer) + [("last opened", text["lastOpenedAt"])]).render()
                + "\n\n" + AdminStatsCommand.days(answer) + "\n\n" + AdminStatsCommand.sources(answer)
        }
    }

    struct App: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "An app's totals and its most opened links over a range of UTC days.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The app.") var app: String
        @Option(help: "The first UTC day, YYYY-MM-DD (default: the server's).") var from: String?
        @Option(help: "The last UTC day, YYYY-MM-DD (default: today).") var to: String?
        @Option(help: "How many top links (default: the server's).") var top: Int?

        func request() -> AdminRequest {
            AdminRequest("GET", ["v1", "apps", app, "stats"], query: [("from", from), ("to", to), ("top", top.map(String.init))])
        }
        func render(_ answer: [String: Any]) -> String {
            let text = JSONText(answer)
            let top = TextTable(
                columns: ["LINK", "TITLE"] + AdminStatsCommand.countColumns,
                rows: JSONText.items("top", of: answer).map { link in
                    let text = JSONText(link)
                    return [text["linkId"] ?? "-", text["title"] ?? "-"] + AdminStatsCommand.countCells(link)
                }
            ).render()
            return FieldList([("app", text["app"]), ("from", text["from"]), ("to", text["to"])] + AdminStatsCommand.totals(answer)).render()
                + "\n\n" + AdminStatsCommand.days(answer) + "\n\n" + AdminStatsCommand.sources(answer) + "\n\nTop links"
                + (answer["topExact"] as? Bool == false ? " (from each day's 100 most opened: a link never among them may be missing)" : "")
                + "\n" + top
        }
    }
}
