/// The machine code of an error answer, `{"error": {"code", "message"}}`: every code the server sends
/// (`docs/openapi.yaml`, the server's `APIError.Code`), and `other` for one a newer server may add.
public enum ServerErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// 400: malformed JSON, an unknown or missing field, a bad query parameter.
    case badRequest
    /// 401: no API key, or one that is unknown or revoked.
    case unauthorized
    /// 403: the key may not do this (another app's, or an admin endpoint).
    case forbidden
    /// 404: no such thing (or not visible to this key); also an unknown, used or expired claim code.
    case notFound
    /// 400: a page cursor of `GET /v1/links` that the server did not issue.
    case badCursor
    /// 405: the path does not take this method.
    case methodNotAllowed
    /// 409: the request conflicts with the current state.
    case conflict
    /// 413: the body is over the endpoint's cap.
    case payloadTooLarge
    /// 415: the body has the wrong content type.
    case unsupportedMediaType
    /// 422: well-formed but cannot be done (a value out of range).
    case unprocessable
    /// 422: the app has no such route.
    case unknownRoute
    /// 422: the route cannot be the target of a share link.
    case notShareable
    /// 422: a param is missing, unknown or of the wrong type for the route.
    case badParams
    /// 429: too many requests from this client; `Retry-After` says when to try again.
    case rateLimited
    /// 500: a bug in the server (logged there).
    case internalError
    /// 503: the server's store does not answer (readiness).
    case notReady
    /// 503: the store failed to do a read or write; nothing was changed.
    case storeUnavailable
    /// 408: the request did not arrive in time (the connection is closed).
    case requestTimeout
    /// 503: too many connections from this client or in all (the connection is closed; `Retry-After: 1`).
    case tooManyConnections
    /// 400: an `appVersion` or `platform` of a resolve request that the server cannot read.
    case badAppVersion
    /// 400: a stats request's `format` is neither `json` nor `csv`.
    case unsupportedFormat
    /// 422: a published manifest does not validate (admin API).
    case manifestInvalid
    /// 422: a published manifest names another app (admin API).
    case manifestAppMismatch
    /// 409: a published manifest would strand live links (admin API).
    case manifestStrandsLinks
    /// 409: the app's manifest version is not the one the request was made from (admin API).
    case versionConflict
    /// 409: the app to retire still has live links (admin API).
    case appHasLiveLinks
    /// 422: a claim's `state` is not one of its app's states; the code is not spent (claim again with a known state).
    case unknownState
    /// 409: a new link's custom path is taken (`details.heldBy`: a route, linkd's own prefix, or another link).
    case pathTaken
    /// 413: an import file is over `importMaxBytes` (`POST /v1/admin/imports`).
    case importTooLarge
    /// 409: an import into the app is running; retry when it has finished.
    case importRunning
    /// 400: an import file holds a NUL byte (`details.line`).
    case nulByte
    /// 400: an import file's quoted field is never closed (`details.line`: where it opened).
    case unclosedQuote
    /// 400: an import file has a quote inside an unquoted field, or text after a closing one (`details.line`).
    case badQuote
    /// 400: an import file's record has more than 64 fields (`details.line`).
    case tooManyColumns
    /// 400: an import file's field is over 8 KiB (`details.line`).
    case fieldTooLong
    /// 400: an import file's line is over its cap (`details.line`).
    case lineTooLong
    /// 400: an import file holds bytes that are not UTF-8 (`details.line`).
    case invalidUTF8
    /// 422: an import file is empty, or has no header row.
    case emptyFile
    /// 422: an import file's header lacks a column its format needs (`details.line`).
    case missingColumn
    /// 422: an import file's header names a column twice (`details.line`).
    case duplicateColumn
    /// 422: an import file has more rows than an import takes (`details.line`).
    case tooManyRows
    /// A code this version of the client does not know.
    case other(String)

    /// Every code this client knows, for tests and exhaustive tables.
    public static let known: [ServerErrorCode] = [
        .badRequest, .badCursor, .unauthorized, .forbidden, .notFound, .methodNotAllowed, .conflict, .payloadTooLarge,
        .unsupportedMediaType, .unprocessable, .unknownRoute, .notShareable, .badParams, .rateLimited, .internalError,
        .notReady, .storeUnavailable, .requestTimeout, .tooManyConnections, .badAppVersion, .manifestInvalid,
        .manifestAppMismatch, .manifestStrandsLinks, .versionConflict, .appHasLiveLinks, .unknownState,
        .unsupportedFormat, .pathTaken, .importTooLarge, .importRunning, .nulByte, .unclosedQuote, .badQuote,
        .tooManyColumns, .fieldTooLong, .lineTooLong, .invalidUTF8, .emptyFile, .missingColumn, .duplicateColumn,
        .tooManyRows,
    ]

    /// The code as the server spells it.
    public var rawValue: String {
        switch self {
        case .badRequest: "bad_request"
        case .badCursor: "bad_cursor"
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        case .notFound: "not_found"
        case .methodNotAllowed: "method_not_allowed"
        case .conflict: "conflict"
        case .payloadTooLarge: "payload_too_large"
        case .unsupportedMediaType: "unsupported_media_type"
        case .unprocessable: "unprocessable"
        case .unknownRoute: "unknown_route"
        case .notShareable: "not_shareable"
        case .badParams: "bad_params"
        case .rateLimited: "rate_limited"
        case .internalError: "internal_error"
        case .notReady: "not_ready"
        case .storeUnavailable: "store_unavailable"
        case .requestTimeout: "request_timeout"
        case .tooManyConnections: "too_many_connections"
        case .badAppVersion: "bad_app_version"
        case .unsupportedFormat: "unsupported_format"
        case .manifestInvalid: "manifest_invalid"
        case .manifestAppMismatch: "manifest_app_mismatch"
        case .manifestStrandsLinks: "manifest_strands_links"
        case .versionConflict: "version_conflict"
        case .appHasLiveLinks: "app_has_live_links"
        case .unknownState: "unknown_state"
        case .pathTaken: "path_taken"
        case .importTooLarge: "import_too_large"
        case .importRunning: "import_running"
        case .nulByte: "nul_byte"
        case .unclosedQuote: "unclosed_quote"
        case .badQuote: "bad_quote"
        case .tooManyColumns: "too_many_columns"
        case .fieldTooLong: "field_too_long"
        case .lineTooLong: "line_too_long"
        case .invalidUTF8: "invalid_utf8"
        case .emptyFile: "empty_file"
        case .missingColumn: "missing_column"
        case .duplicateColumn: "duplicate_column"
        case .tooManyRows: "too_many_rows"
        case .other(let value): value
        }
    }

    /// The code the server's spelling names (`other` for one this client does not know). The edge's two codes are
    /// also read in the camelCase spelling servers before 0.2 sent (`requestTimeout`, `tooManyConnections`).
    public init(rawValue: String) {
        let spelled = Self.earlierSpellings[rawValue] ?? rawValue
        self = Self.known.first { $0.rawValue == spelled } ?? .other(rawValue)
    }

    /// Codes as servers before 0.2 spelled them, and their spelling now.
    private static let earlierSpellings = ["requestTimeout": "request_timeout", "tooManyConnections": "too_many_connections"]

    /// The server's spelling.
    public var description: String { rawValue }
}
