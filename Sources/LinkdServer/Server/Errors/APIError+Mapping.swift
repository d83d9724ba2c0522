import HTTPTypes
import LinkdHTTP

extension LinkError: APIErrorConvertible {
    /// The API's answer to a link failure: the one place where the link service's domain errors meet HTTP.
    var apiError: APIError {
        switch code {
        case .invalid: APIError(.unprocessableContent, .unprocessable, message)
        case .unknownRoute: APIError(.unprocessableContent, .unknownRoute, message)
        case .notShareable: APIError(.unprocessableContent, .notShareable, message)
        case .badParams: APIError(.unprocessableContent, .badParams, message)
        case .notFound: APIError(.notFound, .notFound, message)
        case .conflict: APIError(.conflict, .conflict, message)
        default: APIError(.serviceUnavailable, .storeUnavailable, message)
        }
    }
}

extension ManifestPublishError: APIErrorConvertible {
    /// The API's answer to a refused publish, rollback or retirement of a manifest.
    var apiError: APIError {
        struct Problems: Encodable, Sendable { let problems: [ManifestProblem] }
        return switch code {
        case .invalid:
            APIError(.unprocessableContent, .manifestInvalid, message, details: Problems(problems: problems.map(ManifestProblem.init)))
        case .appMismatch: APIError(.unprocessableContent, .manifestAppMismatch, message)
        case .badMoves: APIError(.unprocessableContent, .unprocessable, message)
        case .strands: APIError(.conflict, .manifestStrandsLinks, message, details: impact)
        case .versionConflict: APIError(.conflict, .versionConflict, message)
        case .notFound: APIError(.notFound, .notFound, message)
        case .hasLiveLinks: APIError(.conflict, .appHasLiveLinks, message, details: impact)
        }
    }
}
