import LinkdHTTP

extension APIError.Code {

    /// A listing's `cursor` is not one the server gave (`GET /v1/links`).
    static let badCursor = APIError.Code("bad_cursor")
    /// The app has no such route.
    static let unknownRoute = APIError.Code("unknown_route")
    /// The route cannot be the target of a share link.
    static let notShareable = APIError.Code("not_shareable")
    /// A param is missing, unknown or of the wrong type for the route.
    static let badParams = APIError.Code("bad_params")
    /// A claim's `state` is not one of its app's states (the code is not spent).
    static let unknownState = APIError.Code("unknown_state")
    /// A resolve request's `appVersion` (dotted numbers) or `platform` (`ios`, `android`) cannot be read.
    static let badAppVersion = APIError.Code("bad_app_version")
    /// A published manifest does not validate (`details.problems`: every problem, with file, line and column).
    static let manifestInvalid = APIError.Code("manifest_invalid")
    /// A published manifest names another app than the path's.
    static let manifestAppMismatch = APIError.Code("manifest_app_mismatch")
    /// A published manifest would strand live links (`details`: the impact report); say `moves` or `force`.
    static let manifestStrandsLinks = APIError.Code("manifest_strands_links")
    /// The app's version in force is not the one the request was made from (`If-Match`, or a concurrent publish).
    static let versionConflict = APIError.Code("version_conflict")
    /// A new link's custom path is taken (`details.heldBy`: a route, linkd's own prefix, or another link).
    static let pathTaken = APIError.Code("path_taken")
    /// The app still has live links (retiring it would strand them).
    static let appHasLiveLinks = APIError.Code("app_has_live_links")
    /// A stats request's `format` is neither `json` nor `csv`.
    static let unsupportedFormat = APIError.Code("unsupported_format")

    // An import file refused whole (`POST /v1/admin/imports`; docs/imports.md).
    /// An import file is over `importMaxBytes` (`POST /v1/admin/imports`).
    static let importTooLarge = APIError.Code("import_too_large")
    /// An import into the app is running; retry when it has finished.
    static let importRunning = APIError.Code("import_running")
    /// An import file holds a NUL byte (`details.line`).
    static let nulByte = APIError.Code("nul_byte")
    /// An import file's quoted field is never closed (`details.line`: where it opened).
    static let unclosedQuote = APIError.Code("unclosed_quote")
    /// An import file has a quote inside an unquoted field, or text after a closing one (`details.line`).
    static let badQuote = APIError.Code("bad_quote")
    /// An import file's record has more than 64 fields (`details.line`).
    static let tooManyColumns = APIError.Code("too_many_columns")
    /// An import file's field is over 8 KiB (`details.line`).
    static let fieldTooLong = APIError.Code("field_too_long")
    /// An import file's line is over its cap (`details.line`).
    static let lineTooLong = APIError.Code("line_too_long")
    /// An import file holds bytes that are not UTF-8 (`details.line`).
    static let invalidUTF8 = APIError.Code("invalid_utf8")
    /// An import file is empty, or has no header row.
    static let emptyFile = APIError.Code("empty_file")
    /// An import file's header lacks a column its format needs (`details.line`).
    static let missingColumn = APIError.Code("missing_column")
    /// An import file's header names a column twice (`details.line`).
    static let duplicateColumn = APIError.Code("duplicate_column")
    /// An import file has more rows than an import takes (`details.line`).
    static let tooManyRows = APIError.Code("too_many_rows")
}
