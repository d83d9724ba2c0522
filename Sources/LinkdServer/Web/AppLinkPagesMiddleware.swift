import HTTPTypes
import Hummingbird
import LinkdHTTP
import LinkStore
import WebFallback

/// Browsers on an app's link URLs get pages, not JSON: a `GET` or `HEAD` that no endpoint takes, on a host an app
/// names in its `hosts`, is answered by `AppLinkPages` — the app's landing page when the app resolves the path, its
/// HTML 404 page otherwise (docs/web-fallback.md). On a share host, a link's custom path (`LinkService+CustomPaths`) comes
/// first: the link's share page as `/s/<short id>` gives it (landing, 410 once unavailable, clicks counted), and
/// `<custom path>/qr.svg` its QR code; such a request costs `RequestCost.customPath`, found or not. A path of the
/// app's `share.pathPatterns` that no link holds gets what an unknown short id gets (the unavailable page, a 404 QR). A long link
/// (`/?link=…`, `LongLink`) gets the page of the deep link it carries. The API's own paths (`/v1/…`, `/.well-known/…`, `/static/…`,
/// `/healthz`, `/readyz`, `/metrics`) keep their JSON answers, and so does every other host. Charged to the client's
/// rate-limit bucket like a share page; counted in the request metrics as route `/{app link}`.
struct AppLinkPagesMiddleware: RouterMiddleware {
    typealias Context = LinkdRequestContext

    /// The apps in force (each request reads their app-link pages once).
    let apps: AppsInForce
    let limiter: RateLimiter?
    /// The share pages custom paths answer with.
    let share: ShareRoutes

    /// The `route` label of these pages in the request metrics.
    static let metricsRoute = "/{app link}"
    /// The `route` label of a custom path's share page and QR code.
    static let customPathMetricsRoute = "/{custom path}"
    /// Path prefixes that belong to the API, never to an app.
    static let reservedPrefixes = ["/v1/", "/.well-known/", "/static/"]
    /// Paths that belong to the API, never to an app.
    static let reservedPaths: Set<String> = ["/v1", "/healthz", "/readyz", "/metrics"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let (answer, charged) = try await customPathAnswer(for: request, context: context)
            if let answer {
                context.coreContext.endpointPath.value = Self.customPathMetricsRoute
                return answer
            }
            guard let page = try page(for: request, context: context, charged: charged) else { throw error }
            context.coreContext.endpointPath.value = Self.metricsRoute
            return page.response  // a HEAD's body is dropped by `HeadResponder`, its Content-Length kept
        }
    }

    /// The app's page for an unmatched request, or nil when it is not a page request on an app's host. The client's
    /// bucket is charged before the page is made.
    /// `charged`: the request already paid (a custom path no link holds).
    private func page(for request: Request, context: Context, charged: Bool = false) throws -> ReadyResponse? {
        let pages = apps.snapshot.appLinkPages
        guard request.method == .get || request.method == .head, let host = request.head.authority,
              let target = request.head.path, target.hasPrefix("/"), !Self.isReserved(target),
              let app = pages.app(onHost: host)
        else { return nil }
        if !charged, let limiter, !limiter.allow(context.clientAddress) {
            let seconds = limiter.secondsUntilAvailable(context.clientAddress)
            throw APIError.rateLimited("too many requests from this address; retry in \(seconds) s", retryAfterSeconds: seconds)
        }
        return pages.page(app: app, host: host, target: target, client: UserAgentKind(userAgent: request.headers[.userAgent]))
    }

    /// The share page (or QR code) of the link at a custom path, or nil when the request is not one for a link's
    /// custom path: not a `GET`/`HEAD`, not a share host, not a custom path's shape, a route's path, or no link holds
    /// it; and whether the bucket was charged (`RequestCost.customPath`, before the store is asked), so that a path no
    /// link holds gets the app's page without a second charge.
    private func customPathAnswer(for request: Request, context: Context) async throws -> (Response?, charged: Bool) {
        guard request.method == .get || request.method == .head, let host = request.head.authority,
              let target = request.head.path, target.hasPrefix("/")
        else { return (nil, false) }
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var path = parts[0]
        let isQRCode = path.hasSuffix(Self.qrSuffix)
        if isQRCode { path = path.dropLast(Self.qrSuffix.count) }
        let links = share.links
        // A path a route of the app matches is the app's page, never a custom path's: no charge, no lookup. On a path
        // of `share.pathPatterns`, only a route that resolves it.
        guard let (app, customPath, covered) = links.customPathCandidate(host: host, path: path),
              !links.routeMatches(customPath, app: app, covered: covered)
        else { return (nil, false) }
        if let limiter, !limiter.allow(context.clientAddress, cost: RequestCost.customPath) {
            let seconds = limiter.secondsUntilAvailable(context.clientAddress)
            throw APIError.rateLimited("too many requests from this address; retry in \(seconds) s", retryAfterSeconds: seconds)
        }
        // A path of `share.pathPatterns` no link holds: what an unknown short id gets.
        let held = await links.pathLink(app: app, path: customPath)?.shortID
        guard let shortID = held ?? (covered ? LinkService.patternMissToken : nil) else { return (nil, true) }
        if isQRCode { return (await share.qrCode(token: shortID, host: host), true) }
        let page = await share.page(
            token: shortID, host: host, userAgent: request.headers[.userAgent],
            origin: ShareOrigin(query: parts.count > 1 ? parts[1] : nil, referer: request.headers[.referer]),
            countsClick: request.method == .get)
        return (page.response, true)
    }

    /// What a custom path's QR code adds to it (a custom path has no `.`, so it never ends so itself).
    static let qrSuffix = "/qr.svg"

    /// Whether the path of `target` (up to `?`) is one of the API's.
    static func isReserved(_ target: String) -> Bool {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        return reservedPaths.contains(path) || reservedPrefixes.contains { path.hasPrefix($0) }
    }
}
