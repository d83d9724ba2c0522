import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import ICalendar
import LinkRouter

/// The handlers of `GET /v1/resolve?url=&state=&app=`, `POST /v1/resolve` `{url, state, app}` and
/// `POST /v1/resolve/ics` (`text/calendar`, `?state=&app=`), declared in the hot-route table
/// (`HotRouteTable.linkdRoutes`). No API key: app binaries cannot keep one secret; limited per address.
final class ResolveRoutes: Sendable {
    let links: LinkService

    /// - Parameters: see the properties.
    init(links: LinkService) {
        self.links = links
    }

    /// Longest `state` or `app` value accepted, in characters (Unicode code points, as JSON Schema counts them).
    static let maxNameLength = 64
    /// Body cap of `POST /v1/resolve`: a URL (the router's 4 KB cap) plus the JSON around it.
    static let maxResolveBodyBytes = 8 * 1024
    /// Body cap of `POST /v1/resolve/ics`: the calendar parser's own cap.
    static let maxCalendarBodyBytes = ICalendarLimits().maxBytes

    /// What a resolution is asked for, checked.
    struct Query: Sendable {
        let url: String
        let state: String?
        let app: String?

        /// From `?url=&state=&app=`; 400 without `url` or with an over-long name.
        init(uri: URI) throws {
            let query = uri.queryParameters
            guard let url = query.get("url") else { throw APIError(.badRequest, .badRequest, "missing query parameter 'url'") }
            try self.init(url: url, state: query.get("state"), app: query.get("app"))
        }

        /// From the JSON body `{url, state, app}`; 400 for anything else.
        init(body: ByteBuffer) throws {
            let fields = try JSONBody.stringFields(in: body, required: ["url"], optional: ["state", "app"])
            try self.init(url: fields["url"] ?? "", state: fields["state"], app: fields["app"])
        }

        /// From the JSON body read by `FlatJSON` (the fast path); nil for anything `init(body:)` would refuse, and
        /// for anything `FlatJSON` leaves to it.
        init?(flatBody body: ByteBuffer) {
            guard let members = FlatJSON.members(body), members.keys.allSatisfy(["url", "state", "app"].contains),
                  case .some(.some(let url)) = members["url"]
            else { return nil }
            try? self.init(url: url, state: members["state"] ?? nil, app: members["app"] ?? nil)
        }

        private init(url: String, state: String?, app: String?) throws {
            self.url = url
            self.state = try ResolveRoutes.name(state, field: "state")
            self.app = try ResolveRoutes.name(app, field: "app")
        }
    }

    /// `POST /v1/resolve/ics`: every item of a calendar file resolved (`?state=&app=`); 422 when it is not one.
    func calendar(_ body: ByteBuffer, query: FlatDictionary<Substring, Substring>) async throws -> Response {
        let state = try Self.name(query.get("state"), field: "state")
        let app = try Self.name(query.get("app"), field: "app")
        do {
            let report = try await links.resolveCalendar(Array(body.readableBytesView), state: state, app: app)
            return try JSONBody.response(report)
        } catch let error as ICalendarError {
            throw APIError(.unprocessableContent, .unprocessable, "not a calendar: \(error.message)\(error.line.map { " (line \($0))" } ?? "")")
        }
    }

    /// The resolution, reading link records the cache lacks. Written by `Resolution.jsonBytes`: the same document
    /// as JSONEncoder, without its cost on the hot path.
    func answer(_ query: Query) async -> ReadyResponse {
        .json(await links.resolve(url: query.url, state: query.state, app: query.app).jsonBytes())
    }

    /// The resolution from memory alone (the event-loop fast path); nil when a link record must be read first.
    func answerInMemory(_ query: Query) -> ReadyResponse? {
        links.resolveInMemory(url: query.url, state: query.state, app: query.app).map { .json($0.jsonBytes()) }
    }

    /// `value` checked as a `state` or `app` name: nil stays nil; 400 when empty or longer than `maxNameLength`.
    static func name(_ value: String?, field: String) throws -> String? {
        guard let value else { return nil }
        guard !value.isEmpty, value.unicodeScalars.count <= maxNameLength else {
            throw APIError(.badRequest, .badRequest, "'\(field)' must be 1–\(maxNameLength) characters")
        }
        return value
    }
}
