import Foundation
import HTTPTypes
import Hummingbird
import ICalendar
import LinkRouter

/// `GET /v1/resolve?url=&state=&app=`, `POST /v1/resolve` `{url, state, app}`, `POST /v1/resolve/ics`
/// (`text/calendar`, `?state=&app=`). No API key: app binaries cannot keep one secret; limited per address.
struct ResolveRoutes: Sendable {
    let links: LinkService
    let limiter: RateLimiter?

    /// Longest `state` or `app` value accepted.
    static let maxNameBytes = 64
    /// Body cap of `POST /v1/resolve`: a URL (the router's 4 KB cap) plus the JSON around it.
    static let maxResolveBodyBytes = 8 * 1024

    func register(on router: Hummingbird.Router<LinkdRequestContext>) {
        let group = router.group("v1/resolve").add(middleware: RateLimitMiddleware(limiter: limiter))
        group.get { request, _ in
            let query = request.uri.queryParameters
            guard let url = query.get("url") else {
                throw APIError(.badRequest, .badRequest, "missing query parameter 'url'")
            }
            return try await resolve(url: url, state: query.get("state"), app: query.get("app"))
        }
        group.post { request, _ in
            let body = try await JSONBody.stringFields(
                from: request, maxBytes: Self.maxResolveBodyBytes, required: ["url"], optional: ["state", "app"])
            return try await resolve(url: body["url"] ?? "", state: body["state"], app: body["app"])
        }
        group.post("ics") { request, _ in
            let limit = ICalendarLimits().maxBytes
            let buffer = try await JSONBody.collect(request, maxBytes: limit, contentType: "text/calendar")
            let query = request.uri.queryParameters
            let state = try Self.name(query.get("state"), field: "state")
            let app = try Self.name(query.get("app"), field: "app")
            do {
                let report = try await links.resolveCalendar(Array(buffer.readableBytesView), state: state, app: app)
                return try JSONBody.response(report)
            } catch let error as ICalendarError {
                throw APIError(.unprocessableContent, .unprocessable, "not a calendar: \(error.message)\(error.line.map { " (line \($0))" } ?? "")")
            }
        }
    }

    private func resolve(url: String, state: String?, app: String?) async throws -> Response {
        let state = try Self.name(state, field: "state")
        let app = try Self.name(app, field: "app")
        // The resolution's own JSON writer: the same document as JSONEncoder, without its cost on the hot path.
        return JSONBody.response(json: await links.resolve(url: url, state: state, app: app).jsonBytes())
    }

    private static func name(_ value: String?, field: String) throws -> String? {
        guard let value else { return nil }
        guard !value.isEmpty, value.utf8.count <= maxNameBytes else {
            throw APIError(.badRequest, .badRequest, "'\(field)' must be 1–\(maxNameBytes) bytes")
        }
        return value
    }
}
