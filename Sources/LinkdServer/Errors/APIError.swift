import Foundation
import HTTPTypes
import Hummingbird

/// An error answered to an HTTP client as `{"error":{"code":"...","message":"..."}}`.
struct APIError: Error, HTTPResponseError, Sendable {
    /// The machine code of an API error (documented in docs/openapi.yaml).
    struct Code: Hashable, Sendable, CustomStringConvertible {
        let description: String
        private init(_ value: String) { description = value }
        /// The request is malformed: bad JSON, a missing or unknown field, a bad query parameter.
        static let badRequest = Code("bad_request")
        /// A listing's `cursor` is not one the server gave (`GET /v1/links`).
        static let badCursor = Code("bad_cursor")
        /// No API key, or one that is unknown or revoked.
        static let unauthorized = Code("unauthorized")
        /// The key may not do this (a client key on an admin endpoint, or on another app's links).
        static let forbidden = Code("forbidden")
        /// No such resource.
        static let notFound = Code("not_found")
        /// The path exists but does not take this method (`Allow` lists those it takes).
        static let methodNotAllowed = Code("method_not_allowed")
        /// The request conflicts with the current state (retiring the active key).
        static let conflict = Code("conflict")
        /// The body is over the endpoint's cap.
        static let payloadTooLarge = Code("payload_too_large")
        /// The body has the wrong content type.
        static let unsupportedMediaType = Code("unsupported_media_type")
        /// The request is well-formed but cannot be done (a value out of range).
        static let unprocessable = Code("unprocessable")
        /// The app has no such route.
        static let unknownRoute = Code("unknown_route")
        /// The route cannot be the target of a share link.
        static let notShareable = Code("not_shareable")
        /// A param is missing, unknown or of the wrong type for the route.
        static let badParams = Code("bad_params")
        /// Too many requests from this client; retry after `Retry-After` seconds.
        static let rateLimited = Code("rate_limited")
        /// A claim's `state` is not one of its app's states (the code is not spent).
        static let unknownState = Code("unknown_state")
        /// A resolve request's `appVersion` (dotted numbers) or `platform` (`ios`, `android`) cannot be read.
        static let badAppVersion = Code("bad_app_version")
        /// A published manifest does not validate (`details.problems`: every problem, with file, line and column).
        static let manifestInvalid = Code("manifest_invalid")
        /// A published manifest names another app than the path's.
        static let manifestAppMismatch = Code("manifest_app_mismatch")
        /// A published manifest would strand live links (`details`: the impact report); say `moves` or `force`.
        static let manifestStrandsLinks = Code("manifest_strands_links")
        /// The app's version in force is not the one the request was made from (`If-Match`, or a concurrent publish).
        static let versionConflict = Code("version_conflict")
        /// The app still has live links (retiring it would strand them).
        static let appHasLiveLinks = Code("app_has_live_links")
        /// A bug: the server failed.
        static let internalError = Code("internal_error")
        /// The store does not answer.
        static let notReady = Code("not_ready")
        /// The store failed to do a write or read; retry later.
        static let storeUnavailable = Code("store_unavailable")
        /// A request head or body did not arrive in time (answered by the connection's edge, which then closes it).
        static let requestTimeout = Code("requestTimeout")
        /// A connection over `maxConnections` or `maxConnectionsPerClient` (answered by the edge, which closes it).
        static let tooManyConnections = Code("tooManyConnections")
    }

    let status: HTTPResponse.Status
    let code: Code
    let message: String
    /// Seconds to send as `Retry-After` (429 answers: when the bucket that refused has a token again).
    let retryAfterSeconds: Int?
    /// The `Allow` header value (405 answers: the methods the path takes).
    let allow: String?
    /// More about the error, answered as `error.details` (the problems of a manifest, an impact report).
    let details: ErrorDetails?

    init(
        _ status: HTTPResponse.Status, _ code: Code, _ message: String, retryAfterSeconds: Int? = nil, allow: String? = nil,
        details: (any Encodable & Sendable)? = nil
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.allow = allow
        self.details = details.map(ErrorDetails.init)
    }

    /// 429 `rate_limited` with `Retry-After: seconds`.
    static func rateLimited(_ message: String, retryAfterSeconds seconds: Int) -> APIError {
        APIError(.tooManyRequests, .rateLimited, message, retryAfterSeconds: seconds)
    }

    /// 405 `method_not_allowed` with `Allow`: the methods `route` takes.
    static func methodNotAllowed(_ route: RouteCatalog.Match) -> APIError {
        APIError(.methodNotAllowed, .methodNotAllowed, "\(route.pattern) takes \(route.allow)", allow: route.allow)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        readyResponse().response
    }

    /// The answer, made in full: the JSON body, `Cache-Control: no-store`, `Retry-After` and `Allow` when set, and
    /// `Connection: close` when `closing` (the edge's answers, after which it closes the connection).
    func readyResponse(closing: Bool = false) -> ReadyResponse {
        let body = ErrorBody(error: .init(code: code.description, message: message, details: details))
        let data = (try? Self.encoder.encode(body)) ?? Data(#"{"error":{"code":"internal_error","message":""}}"#.utf8)
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if let retryAfterSeconds { headers[.retryAfter] = String(retryAfterSeconds) }
        if let allow { headers[.allow] = allow }
        if closing { headers[.connection] = "close" }
        return ReadyResponse(status: status, headers: headers, body: ByteBuffer(bytes: data))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private struct ErrorBody: Encodable {
        struct Detail: Encodable {
            let code: String
            let message: String
            let details: ErrorDetails?
        }
        let error: Detail
    }
}

/// The `details` of an API error: any encodable value, answered as it encodes.
struct ErrorDetails: Encodable, Sendable {
    /// The value.
    let value: any Encodable & Sendable

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}
