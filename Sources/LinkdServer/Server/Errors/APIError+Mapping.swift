import HTTPTypes
import LinkdHTTP
import LinkStore

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
        case .pathTaken: APIError(.conflict, .pathTaken, message, details: holder.map { ["heldBy": $0] })
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

extension LinkStoreError: APIErrorConvertible {
    /// The API's answer to a store failure that reached a route unmapped: an existing id or a stale write is
    /// `409 conflict`, an unsupported operation `422 unprocessable` (its message says why), and everything else
    /// `503 store_unavailable` — a store failure is never a 500, on the API or in the console.
    var apiError: APIError {
        switch code {
        case .conflict: APIError(.conflict, .conflict, message)
        case .notFound: APIError(.notFound, .notFound, message)
        case .unsupported: APIError(.unprocessableContent, .unprocessable, message)
        default: APIError(.serviceUnavailable, .storeUnavailable, "the store does not answer; retry later")
        }
    }
}

extension AdminError: APIErrorConvertible {
    /// The API's answer to a refused or failed admin action.
    var apiError: APIError {
        switch code {
        case .invalid: APIError(.unprocessableContent, .unprocessable, message)
        case .badRequest: APIError(.badRequest, .badRequest, message)
        case .notFound: APIError(.notFound, .notFound, message)
        case .conflict: APIError(.conflict, .conflict, message)
        case .unavailable: APIError(.serviceUnavailable, .storeUnavailable, message)
        case .failed: APIError(.internalServerError, .internalError, message)
        }
    }
}

extension ImportError: APIErrorConvertible {
    /// The API's answer to a refused import: the file cannot be read (400), is too large (413), an import of the app
    /// runs (409), or the file lacks what its format needs (422); `details.line` names the line at fault.
    var apiError: APIError {
        let status: HTTPResponse.Status = switch kind {
        case .unreadable: .badRequest
        case .tooLarge: .contentTooLarge
        case .running: .conflict
        case .unprocessable: .unprocessableContent
        }
        return APIError(status, code, message, details: line.map { ["line": $0] })
    }
}
