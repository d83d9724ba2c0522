import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
import LinkRouter
import LinkStore

/// `GET /v1/links/{id}/stats` (a client key of the link's app, or admin) and `GET /v1/apps/{app}/stats` (a client
/// key of that app, or admin): per-link and per-app analytics from the daily rows, which `ShareEventFlushService`
/// writes every `clickFlushSeconds` (so an answer is at most that much behind the share path).
struct StatsRoutes: Sendable {
    let links: LinkService
    let auth: APIKeyAuthenticator

    /// The longest range of a link's stats: a link lives at most 400 days.
    static let maxLinkDays = 400
    /// The longest range of an app's stats (a quarter).
    static let maxAppDays = 92
    /// An app's stats default to the last 30 days.
    static let defaultAppDays = 30
    /// `top` of an app's stats: default and cap.
    static let defaultTop = 10
    static let maxTop = 100

    func register(on router: some RouterMethods<LinkdRequestContext>) {
        router.get("v1/links/{id}/stats") { request, context in
            let caller = try await auth.authenticate(request, client: context.clientAddress)
            let query = request.uri.queryParameters
            let format = try StatsFormat(query.get("format"))
            let answer = try await linkStats(
                id: try context.parameters.require("id"), caller: caller, from: query.get("from"), to: query.get("to"))
            return try Self.response(answer, format: format, subject: answer.fields.linkId)
        }
        router.get("v1/apps/{app}/stats") { request, context in
            let caller = try await auth.authenticate(request, client: context.clientAddress)
            let query = request.uri.queryParameters
            let format = try StatsFormat(query.get("format"))
            let answer = try await appStats(
                app: try context.parameters.require("app"), caller: caller, from: query.get("from"), to: query.get("to"),
                top: query.get("top"))
            return try Self.response(answer, format: format, subject: answer.fields.app)
        }
    }

    /// The answer as JSON, or its days as CSV (`StatsCSV`).
    private static func response(_ answer: StatsAnswer<some StatsJSONFields>, format: StatsFormat, subject: String) throws -> Response {
        switch format {
        case .json: return JSONBody.response(json: try answer.json)
        case .csv: return StatsCSV.response(answer.days, subject: subject, from: answer.range.from, to: answer.range.to)
        }
    }

    /// A link's stats from its creation day (or the range asked) to today.
    func linkStats(id: String, caller: Caller, from: String?, to: String?) async throws -> StatsAnswer<LinkStatsFields> {
        let record = try await links.existing(id: id, caller: caller)
        let range = try StatsRange(from: from, to: to, maxDays: Self.maxLinkDays) { _ in StatsDay(record.created) }
        let store = links.store
        let days = try await LinkService.storing { try await store.linkStats(linkID: record.id, from: range.from, to: range.to) }
        let sources = SourceBreakdown(try await LinkService.storing {
            try await store.linkSources(linkID: record.id, from: range.from, to: range.to)
        })
        let opened = try await LinkService.storing {
            try await links.events.counted(linkID: record.id) { try await store.clicks(linkID: record.id) }
        }
        return StatsAnswer(totals: StatsCounts(Self.sum(days)), days: days, range: range, fields: LinkStatsFields(
            linkId: record.id, app: record.app, from: StatsRange.text(range.from), to: StatsRange.text(range.to),
            byDay: days.map { StatsCounts($0.1, date: $0.0) }, byCampaign: sources.byCampaign, byReferrer: sources.byReferrer,
            lastOpenedAt: opened.lastOpened))
    }

    /// An app's stats over the range (default: the last 30 days) with its `top` most clicked links.
    func appStats(app: String, caller: Caller, from: String?, to: String?, top: String?) async throws -> StatsAnswer<AppStatsFields> {
        guard links.router.manifest(app: app) != nil, caller.kind == .admin || caller.app == app else {
            // Another app's key sees what a missing app shows: no oracle across apps.
            throw APIError(.notFound, .notFound, "no app \(app.prefix(64))")
        }
        let limit = try top.map { text -> Int in
            guard let value = Int(text), (1...Self.maxTop).contains(value) else {
                throw APIError(.badRequest, .badRequest, "'top' must be 1–\(Self.maxTop)")
            }
            return value
        } ?? Self.defaultTop
        let range = try StatsRange(from: from, to: to, maxDays: Self.maxAppDays) { StatsDay(number: $0.number - Self.defaultAppDays + 1) }
        let store = links.store
        let days = try await LinkService.storing { try await store.appStatsByDay(app: app, from: range.from, to: range.to) }
        let leaders = try await LinkService.storing { try await store.appTopLinks(app: app, from: range.from, to: range.to, limit: limit) }
        let sources = SourceBreakdown(try await LinkService.storing { try await store.appSources(app: app, from: range.from, to: range.to) })
        var top: [StatsCounts] = []
        for leader in leaders.links {
            let title = (try? await store.link(id: leader.linkID))?.title
            top.append(StatsCounts(leader.counts, linkID: leader.linkID, title: title))
        }
        return StatsAnswer(totals: StatsCounts(Self.sum(days)), days: days, range: range, fields: AppStatsFields(
            app: app, from: StatsRange.text(range.from), to: StatsRange.text(range.to),
            byDay: days.map { StatsCounts($0.1, date: $0.0) }, byCampaign: sources.byCampaign, byReferrer: sources.byReferrer,
            top: top, topExact: leaders.exact))
    }

    private static func sum(_ days: [(StatsDay, LinkDayCounts)]) -> LinkDayCounts {
        days.reduce(into: LinkDayCounts()) { $0.add($1.1) }
    }
}
