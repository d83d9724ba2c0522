import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
import LinkRouter
import LinkStore

// The console's stats pages: an app's and a link's opens by day (a chart and a table), by platform, installs and
// claims, and an app's top links, read through the stats API's own functions (`StatsRoutes`) over a date range
// chosen with a plain GET form.
extension ConsoleRoutes {
    /// The stats API's functions, as the console's admin calls them.
    var stats: StatsRoutes { StatsRoutes(links: admin.links, auth: auth) }

    /// `GET /admin/apps/{app}/stats[?from=&to=]`: an app's stats over the range (the last 30 days by default).
    func appStatsPage(_ session: ConsoleSessions.Session, _ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let app = try context.parameters.require("app")
        let (from, to) = Self.rangeFields(request)
        var problem: String?
        let answer: StatsAnswer<AppStatsFields>
        do {
            answer = try await stats.appStats(app: app, caller: session.caller, from: from, to: to, top: nil)
        } catch let error as APIError where error.status == .badRequest {
            problem = error.message
            answer = try await stats.appStats(app: app, caller: session.caller, from: nil, to: nil, top: nil)
        }
        let fields = answer.fields
        let range = try Self.days(fields.from, fields.to)
        let today = StatsDay(Date())
        let presets = [7, 30, StatsRoutes.maxAppDays].map { days in
            (label: "Last \(days) days", from: StatsDay(number: today.number - days + 1), to: today)
        }
        let sections = [
            ConsoleStatsPage.byDay(fields.byDay, from: range.from, to: range.to), ConsoleStatsPage.byPlatform(answer.totals),
            ConsoleStatsPage.byCampaign(fields.byCampaign), ConsoleStatsPage.byReferrer(fields.byReferrer),
            ConsoleStatsPage.installsAndClaims(answer.totals), ConsoleStatsPage.topLinks(fields.top, exact: fields.topExact),
        ]
        let name = admin.router.manifest(app: app)?.displayName ?? app
        return statsPage(session, title: "Stats of \(name)", lead: "Share-page opens of every link of \(app), by UTC day.",
                         action: "/admin/apps/\(Self.path(app))/stats", range: range, maxDays: StatsRoutes.maxAppDays,
                         presets: presets, totals: answer.totals, sections: sections, problem: problem,
                         back: ("Back to apps", "/admin/apps"))
    }

    /// `GET /admin/links/{id}/stats[?from=&to=]`: a link's stats over the range (since it was made by default).
    func linkStatsPage(_ session: ConsoleSessions.Session, _ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let (from, to) = Self.rangeFields(request)
        var problem: String?
        let answer: StatsAnswer<LinkStatsFields>
        do {
            answer = try await stats.linkStats(id: id, caller: session.caller, from: from, to: to)
        } catch let error as APIError where error.status == .badRequest {
            problem = error.message
            answer = try await stats.linkStats(id: id, caller: session.caller, from: nil, to: nil)
        }
        let fields = answer.fields
        let range = try Self.days(fields.from, fields.to)
        let view = try await admin.link(id: id, by: session.caller)
        let today = StatsDay(Date()), created = StatsDay(view.createdAt)
        let presets = [(label: "Since it was made", from: created, to: today)] + [7, 30].map { days in
            (label: "Last \(days) days", from: StatsDay(number: today.number - days + 1), to: today)
        }
        let sections = [
            ConsoleStatsPage.byDay(fields.byDay, from: range.from, to: range.to), ConsoleStatsPage.byPlatform(answer.totals),
            ConsoleStatsPage.byCampaign(fields.byCampaign), ConsoleStatsPage.byReferrer(fields.byReferrer),
            ConsoleStatsPage.installsAndClaims(answer.totals),
        ]
        return statsPage(session, title: "Stats of link \(view.title ?? view.id)",
                         lead: "Share-page opens of link \(view.id) (\(view.app) \(view.route)), by UTC day.",
                         action: "/admin/links/\(view.id)/stats", range: range, maxDays: StatsRoutes.maxLinkDays,
                         presets: presets, totals: answer.totals, sections: sections, problem: problem,
                         back: ("Back to the link", "/admin/links/\(view.id)"))
    }

    private func statsPage(
        _ session: ConsoleSessions.Session, title: String, lead: String, action: String, range: (from: StatsDay, to: StatsDay),
        maxDays: Int, presets: [(label: String, from: StatsDay, to: StatsDay)], totals: StatsCounts,
        sections: [ConsoleStatsPage.Section], problem: String?, back: (label: String, href: String)
    ) -> Response {
        let from = StatsRange.text(range.from), to = StatsRange.text(range.to)
        var values: [String: Any] = [
            "lead": lead, "action": action, "from": from, "to": to, "maxDays": maxDays,
            "presets": presets.map { preset in
                let presetFrom = StatsRange.text(preset.from), presetTo = StatsRange.text(preset.to)
                return ["label": preset.label, "href": "\(action)?from=\(presetFrom)&to=\(presetTo)",
                        "current": presetFrom == from && presetTo == to] as [String: Any]
            },
            "tiles": ConsoleStatsPage.tiles(totals), "sections": sections.map(\.context),
            "backLabel": back.label, "backHref": back.href,
        ]
        if let problem { values["problem"] = "\(problem). Showing the default range instead." }
        return render("stats", session, nav: "apps", title: title, values, status: problem == nil ? .ok : .badRequest)
    }

    /// `from` and `to` of the query, nil when absent or empty (the form's empty fields).
    private static func rangeFields(_ request: Request) -> (from: String?, to: String?) {
        let query = request.uri.queryParameters
        func field(_ name: String) -> String? {
            query.get(name).flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0.trimmingCharacters(in: .whitespaces) }
        }
        return (field("from"), field("to"))
    }

    /// The days of an answer's `from` and `to` (its own `YYYY-MM-DD` text).
    private static func days(_ from: String, _ to: String) throws -> (from: StatsDay, to: StatsDay) {
        let range = try StatsRange(from: from, to: to, maxDays: StatsRoutes.maxLinkDays) { $0 }
        return (range.from, range.to)
    }
}
