import Foundation
package import HTTPTypes
package import Hummingbird

/// An error answered to an HTTP client as `{"error":{"code":"...","message":"..."}}`.
package struct APIError: Error, HTTPResponseError, Sendable {
    /// The machine code of an API error (documented in docs/openapi.yaml).
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code as the API spells it (snake_case).
        package let description: String
        /// A code spelled `value`; the server declares its domain codes beside the errors they answer.
        package init(_ value: String) { description = value }
        /// The request is malformed: bad JSON, a missing or unknown field, a bad query parameter.
        package static let badRequest = Code("bad_request")
        /// No API key, or one that is unknown or revoked.
        package static let unauthorized = Code("unauthorized")
        /// The key may not do this (a client key on an admin endpoint, or on another app's links).
        package static let forbidden = Code("forbidden")
        /// No such resource.
        package static let notFound = Code("not_found")
        /// The path exists but does not take this method (`Allow` lists those it takes).
        package static let methodNotAllowed = Code("method_not_allowed")
        /// The request conflicts with the current state (retiring the active key).
        package static let conflict = Code("conflict")
        /// The body is over the endpoint's cap.
        package static let payloadTooLarge = Code("payload_too_large")
        /// The body has the wrong content type.
        package static let unsupportedMediaType = Code("unsupported_media_type")
        /// The request is well-formed but cannot be done (a value out of range).
        package static let unprocessable = Code("unprocessable")
        /// Too many requests from this client; retry after `Retry-After` seconds.
        package static let rateLimited = Code("rate_limited")
        /// A bug: the server failed.
        package static let internalError = Code("internal_error")
        /// The store does not answer.
        package static let notReady = Code("not_ready")
        /// The store failed to do a write or read; retry later.
        package static let storeUnavailable = Code("store_unavailable")
        /// A request head or body did not arrive in time (answered by the connection's edge, which then closes it).
        package static let requestTimeout = Code("request_timeout")
        /// A connection over `maxConnections` or `maxConnectionsPerClient` (answered by the edge, which closes it).
        package static let tooManyConnections = Code("too_many_connections")
    }

    package let status: HTTPResponse.Status
    package let code: Code
    package let message: String
    /// Seconds to send as `Retry-After` (429 answers: when the bucket that refused has a token again).
    package let retryAfterSeconds: Int?
    /// The `Allow` header value (405 answers: the methods the path takes).
    package let allow: String?
    /// More about the error, answered as `error.details` (the problems of a manifest, an impact report).
    package let details: ErrorDetails?

    package init(
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
    package static func rateLimited(_ message: String, retryAfterSeconds seconds: Int) -> APIError {
        APIError(.tooManyRequests, .rateLimited, message, retryAfterSeconds: seconds)
    }

    /// 405 `method_not_allowed` with `Allow`: the methods `route` takes.
    package static func methodNotAllowed(_ route: RouteCatalog.Match) -> APIError {
        APIError(.methodNotAllowed, .methodNotAllowed, "\(route.pattern) takes \(route.allow)", allow: route.allow)
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        readyResponse().response
    }

    /// The answer, made in full: the JSON body, `Cache-Control: no-store`, `Retry-After` and `Allow` when set, and
    /// `Connection: close` when `closing` (the edge's answers, after which it closes the connection).
    package func readyResponse(closing: Bool = false) -> ReadyResponse {
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
package struct ErrorDetails: Encodable, Sendable {
    /// The value.
    package let value: any Encodable & Sendable

    package func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}
