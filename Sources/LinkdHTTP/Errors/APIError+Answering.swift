package import HTTPTypes
import Hummingbird

/// An error thrown below the routes that has an API answer: the server's domain errors conform, each mapping its own
/// codes (the server's `APIError+Mapping.swift`), so `APIError.answering(_:)` stays the one map without this target
/// knowing the domain.
package protocol APIErrorConvertible: Error {
    /// The answer to this error.
    var apiError: APIError { get }
}

extension APIError {
    /// The API's answer to an error thrown below the routes; nil for an unexpected one (a bug: 500).
    /// - An `APIError` is its own answer.
    /// - An `APIErrorConvertible` (a domain error with a code) answers what it maps to.
    /// - Hummingbird's own 4xx `HTTPError`s — the unmatched route above all (a known path with a method it does not
    ///   take is made a 405 before this, by `MethodNotAllowedMiddleware`) — become `APIError`s of their status:
    ///   `{"error":{"code":"not_found",…}}`.
    ///
    /// `ErrorMiddleware`, the request metrics and the console read every error through this.
    package static func answering(_ error: any Error) -> APIError? {
        switch error {
        case let error as APIError: error
        case let error as any APIErrorConvertible: error.apiError
        case let error as HTTPError where error.status.kind == .clientError: forStatus(error.status)
        default: nil
        }
    }

    /// The API error of one of Hummingbird's 4xx statuses (its own messages are not the API's).
    package static func forStatus(_ status: HTTPResponse.Status) -> APIError {
        switch status {
        case .notFound: APIError(status, .notFound, "no such endpoint: check the method and path (docs/openapi.yaml)")
        case .contentTooLarge: APIError(status, .payloadTooLarge, "the body is over this endpoint's cap")
        case .unsupportedMediaType: APIError(status, .unsupportedMediaType, "the body has the wrong content type")
        case .unprocessableContent: APIError(status, .unprocessable, "the request cannot be done")
        default: APIError(status, .badRequest, "the request is refused")
        }
    }

    /// The answer to an unexpected error.
    package static var internalError: APIError {
        APIError(.internalServerError, .internalError, "the server failed to answer this request; it has been logged")
    }
}
