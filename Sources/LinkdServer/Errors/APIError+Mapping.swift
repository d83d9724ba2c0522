import HTTPTypes
import Hummingbird

extension APIError {
    /// The API's answer to a link failure: the one place where the link service's domain errors meet HTTP.
    init(_ error: LinkError) {
        switch error.code {
        case .invalid: self.init(.unprocessableContent, .unprocessable, error.message)
        case .unknownRoute: self.init(.unprocessableContent, .unknownRoute, error.message)
        case .notShareable: self.init(.unprocessableContent, .notShareable, error.message)
        case .badParams: self.init(.unprocessableContent, .badParams, error.message)
        case .notFound: self.init(.notFound, .notFound, error.message)
        case .conflict: self.init(.conflict, .conflict, error.message)
        default: self.init(.serviceUnavailable, .storeUnavailable, error.message)
        }
    }

    /// The API's answer to a refused publish, rollback or retirement of a manifest.
    init(_ error: ManifestPublishError) {
        struct Problems: Encodable, Sendable { let problems: [ManifestProblem] }
        switch error.code {
        case .invalid:
            self.init(.unprocessableContent, .manifestInvalid, error.message, details: Problems(problems: error.problems.map(ManifestProblem.init)))
        case .appMismatch: self.init(.unprocessableContent, .manifestAppMismatch, error.message)
        case .badMoves: self.init(.unprocessableContent, .unprocessable, error.message)
        case .strands: self.init(.conflict, .manifestStrandsLinks, error.message, details: error.impact)
        case .versionConflict: self.init(.conflict, .versionConflict, error.message)
        case .notFound: self.init(.notFound, .notFound, error.message)
        case .hasLiveLinks: self.init(.conflict, .appHasLiveLinks, error.message, details: error.impact)
        }
    }

    /// The API's answer to an error thrown below the routes; nil for an unexpected one (a bug: 500).
    /// - An `APIError` is its own answer.
    /// - A `LinkError` is mapped by its code.
    /// - Hummingbird's own 4xx `HTTPError`s — the unmatched route above all (a known path with a method it does not
    ///   take is made a 405 before this, by `MethodNotAllowedMiddleware`) — become `APIError`s of their status:
    ///   `{"error":{"code":"not_found",…}}`.
    static func answering(_ error: any Error) -> APIError? {
        switch error {
        case let error as APIError: error
        case let error as LinkError: APIError(error)
        case let error as ManifestPublishError: APIError(error)
        case let error as HTTPError where error.status.kind == .clientError: forStatus(error.status)
        default: nil
        }
    }

    /// The API error of one of Hummingbird's 4xx statuses (its own messages are not the API's).
    static func forStatus(_ status: HTTPResponse.Status) -> APIError {
        switch status {
        case .notFound: APIError(status, .notFound, "no such endpoint: check the method and path (docs/openapi.yaml)")
        case .contentTooLarge: APIError(status, .payloadTooLarge, "the body is over this endpoint's cap")
        case .unsupportedMediaType: APIError(status, .unsupportedMediaType, "the body has the wrong content type")
        case .unprocessableContent: APIError(status, .unprocessable, "the request cannot be done")
        default: APIError(status, .badRequest, "the request is refused")
        }
    }

    /// The answer to an unexpected error.
    static var internalError: APIError {
        APIError(.internalServerError, .internalError, "the server failed to answer this request; it has been logged")
    }
}
