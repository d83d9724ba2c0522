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
}
