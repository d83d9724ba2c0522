import Foundation
import Hummingbird
import LinkdHTTP
import LinkStore
import UTCTime

/// `GET /v1/links`: the query string read into a `LinkListQuery`, scoped to what the caller's key may see.
extension LinkListQuery {
    /// The query parameters `GET /v1/links` takes.
    static let parameterNames: Set<String> = ["app", "owner", "status", "createdAfter", "createdBefore", "limit", "cursor"]

    /// Reads `?app=&owner=&status=&createdAfter=&createdBefore=&limit=&cursor=`: 400 `bad_request` for an unknown,
    /// repeated or malformed parameter, 400 `bad_cursor` for a cursor this server did not make, 403 for a client key
    /// that names another app (a client key lists its own app's links only).
    init(parameters: some Collection<(key: Substring, value: Substring)>, caller: Caller, now: Date = Date()) throws {
        var given: [String: String] = [:]
        for (key, value) in parameters {
            let name = String(key)
            guard Self.parameterNames.contains(name) else {
                throw APIError(.badRequest, .badRequest, "unknown query parameter '\(name.prefix(64))' (known: \(Self.parameterNames.sorted().joined(separator: ", ")))")
            }
            guard given.updateValue(String(value), forKey: name) == nil else {
                throw APIError(.badRequest, .badRequest, "query parameter '\(name)' is given twice")
            }
        }
        func text(_ name: String, maxLength: Int) throws -> String? {
            guard let value = given[name] else { return nil }
            guard !value.isEmpty, value.unicodeScalars.count <= maxLength else {
                throw APIError(.badRequest, .badRequest, "\(name) must be 1–\(maxLength) characters")
            }
            return value
        }
        func date(_ name: String) throws -> Date? {
            guard let value = given[name] else { return nil }
            guard let date = UTCDateTime.rfc3339(value) else {
                throw APIError(.badRequest, .badRequest, "\(name) must be an RFC 3339 date-time such as 2026-11-24T10:00:00Z")
            }
            return date
        }
        var app = try text("app", maxLength: ResolveRoutes.maxNameLength)
        if caller.kind != .admin {
            guard app == nil || app == caller.app else {
                throw APIError(.forbidden, .forbidden, "a client key lists the links of its own app only")
            }
            app = caller.app
        }
        let status = try given["status"].map { (value: String) throws -> LinkListStatus in
            guard let status = LinkListStatus(rawValue: value) else {
                throw APIError(.badRequest, .badRequest, "status must be one of \(LinkListStatus.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return status
        }
        let limit = try given["limit"].map { (value: String) throws -> Int in
            guard let limit = Int(value), (1...LinkService.ListCaps.maxLimit).contains(limit) else {
                throw APIError(.badRequest, .badRequest, "limit must be 1–\(LinkService.ListCaps.maxLimit)")
            }
            return limit
        } ?? LinkService.ListCaps.defaultLimit
        let after = try given["cursor"].map { (value: String) throws -> LinkPosition in
            guard let position = LinkCursor.position(value) else {
                throw APIError(.badRequest, .badCursor, "cursor is not one this server gave: pass nextCursor of the previous page as it came")
            }
            return position
        }
        self.init(
            app: app, owner: try text("owner", maxLength: LinkService.Caps.ownerLength), status: status,
            createdAfter: try date("createdAfter"), createdBefore: try date("createdBefore"), after: after, limit: limit,
            now: now)
    }
}
