import Foundation
import Hummingbird

/// An error answered to an HTTP client as `{"error":{"code":"...","message":"..."}}`.
struct APIError: Error, HTTPResponseError, Sendable {
    /// The machine code of an API error.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case badRequest = "bad_request", unauthorized, forbidden, notFound = "not_found", gone,
                payloadTooLarge = "payload_too_large", unsupportedMediaType = "unsupported_media_type",
                unprocessable = "unprocessable", rateLimited = "rate_limited", internalError = "internal_error",
                notReady = "not_ready"
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        static let badRequest = Code(.badRequest)
        static let unauthorized = Code(.unauthorized)
        static let forbidden = Code(.forbidden)
        static let notFound = Code(.notFound)
        static let gone = Code(.gone)
        static let payloadTooLarge = Code(.payloadTooLarge)
        static let unsupportedMediaType = Code(.unsupportedMediaType)
        static let unprocessable = Code(.unprocessable)
        static let rateLimited = Code(.rateLimited)
        static let internalError = Code(.internalError)
        static let notReady = Code(.notReady)
        var description: String { value.rawValue }
    }

    let status: HTTPResponse.Status
    let code: Code
    let message: String

    init(_ status: HTTPResponse.Status, _ code: Code, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ErrorBody(error: .init(code: code.description, message: message))
        let data = (try? JSONEncoder().encode(body)) ?? Data(#"{"error":{"code":"internal_error","message":""}}"#.utf8)
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if status == .tooManyRequests { headers[.retryAfter] = "1" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private struct ErrorBody: Encodable {
        struct Detail: Encodable {
            let code: String
            let message: String
        }
        let error: Detail
    }
}
