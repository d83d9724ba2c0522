import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import ICalendar
import LinkdHTTP
import LinkRouter

/// The handlers of `GET /v1/resolve?url=&state=&app=&appVersion=&platform=`, `POST /v1/resolve` `{url, state, app,
/// appVersion, platform}` and
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
        /// The caller's app version and platform (`appVersion`, `platform`), when it said: a route newer than the
        /// app answers `updateRequired`.
        let client: ClientApp?

        /// The body's members.
        static let members: Set<String> = ["url", "state", "app", "appVersion", "platform"]

        /// From `?url=&state=&app=&appVersion=&platform=`; 400 without `url`, with an over-long name, or with an
        /// app version or platform it cannot read.
        init(uri: URI) throws {
            let query = uri.queryParameters
            guard let url = query.get("url") else { throw APIError(.badRequest, .badRequest, "missing query parameter 'url'") }
            try self.init(
                url: url, state: query.get("state"), app: query.get("app"), appVersion: query.get("appVersion"),
                platform: query.get("platform"))
        }

        /// From the JSON body `{url, state, app, appVersion, platform}`; 400 for anything else.
        init(body: ByteBuffer) throws {
            let fields = try JSONBody.stringFields(in: body, required: ["url"], optional: ["state", "app", "appVersion", "platform"])
            try self.init(
                url: fields["url"] ?? "", state: fields["state"], app: fields["app"], appVersion: fields["appVersion"],
                platform: fields["platform"])
        }

        /// From the JSON body read by `FlatJSON` (the fast path); nil for anything `init(body:)` would refuse, and
        /// for anything `FlatJSON` leaves to it.
        init?(flatBody body: ByteBuffer) {
            guard let members = FlatJSON.members(body), members.keys.allSatisfy(Self.members.contains),
                  case .some(.some(let url)) = members["url"]
            else { return nil }
            try? self.init(
                url: url, state: members["state"] ?? nil, app: members["app"] ?? nil, appVersion: members["appVersion"] ?? nil,
                platform: members["platform"] ?? nil)
        }

        private init(url: String, state: String?, app: String?, appVersion: String?, platform: String?) throws {
            self.url = url
            self.state = try ResolveRoutes.name(state, field: "state")
            self.app = try ResolveRoutes.name(app, field: "app")
            self.client = try ResolveRoutes.client(appVersion: appVersion, platform: platform)
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
        .json(await links.resolve(url: query.url, state: query.state, app: query.app, client: query.client).jsonBytes())
    }

    /// The resolution from memory alone (the event-loop fast path); nil when a link record must be read first.
    func answerInMemory(_ query: Query) -> ReadyResponse? {
        links.resolveInMemory(url: query.url, state: query.state, app: query.app, client: query.client).map { .json($0.jsonBytes()) }
    }

    /// The caller's app from `appVersion` and `platform`: nil without a version; 400 `bad_app_version` for a version
    /// that is not dotted numbers (at most 4, of at most 9 digits), or a platform other than `ios` or `android`. A
    /// platform without a version changes nothing.
    static func client(appVersion: String?, platform: String?) throws -> ClientApp? {
        var parsedPlatform: AppPlatform?
        if let platform {
            guard let known = AppPlatform(rawValue: platform) else {
                throw APIError(.badRequest, .badAppVersion, "'platform' must be ios or android")
            }
            parsedPlatform = known
        }
        guard let appVersion else { return nil }  // a platform alone says nothing about which routes the app has
        guard let version = AppVersion(appVersion) else {
            throw APIError(.badRequest, .badAppVersion,
                           "'appVersion' must be dotted numbers such as 1.3 or 2.10.1 (at most 4 numbers of at most 9 digits)")
        }
        return ClientApp(version: version, platform: parsedPlatform)
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
