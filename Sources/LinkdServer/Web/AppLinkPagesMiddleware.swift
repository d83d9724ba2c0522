import HTTPTypes
import Hummingbird
import LinkdHTTP
import WebFallback

/// Browsers on an app's link URLs get pages, not JSON: a `GET` or `HEAD` that no endpoint takes, on a host an app
/// names in its `hosts`, is answered by `AppLinkPages` — the app's landing page when the app resolves the path, its
/// HTML 404 page otherwise (docs/web-fallback.md). The API's own paths (`/v1/…`, `/.well-known/…`, `/static/…`,
/// `/healthz`, `/readyz`, `/metrics`) keep their JSON answers, and so does every other host. Charged to the client's
/// rate-limit bucket like a share page; counted in the request metrics as route `/{app link}`.
struct AppLinkPagesMiddleware: RouterMiddleware {
    typealias Context = LinkdRequestContext

    /// The apps in force (each request reads their app-link pages once).
    let apps: AppsInForce
    let limiter: RateLimiter?

    /// The `route` label of these pages in the request metrics.
    static let metricsRoute = "/{app link}"
    /// Path prefixes that belong to the API, never to an app.
    static let reservedPrefixes = ["/v1/", "/.well-known/", "/static/"]
    /// Paths that belong to the API, never to an app.
    static let reservedPaths: Set<String> = ["/v1", "/healthz", "/readyz", "/metrics"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let page = try page(for: request, context: context) else { throw error }
            context.coreContext.endpointPath.value = Self.metricsRoute
            return page.response  // a HEAD's body is dropped by `HeadResponder`, its Content-Length kept
        }
    }

    /// The app's page for an unmatched request, or nil when it is not a page request on an app's host. The client's
    /// bucket is charged before the page is made.
    private func page(for request: Request, context: Context) throws -> ReadyResponse? {
        let pages = apps.snapshot.appLinkPages
        guard request.method == .get || request.method == .head, let host = request.head.authority,
              let target = request.head.path, target.hasPrefix("/"), !Self.isReserved(target),
              let app = pages.app(onHost: host)
        else { return nil }
        if let limiter, !limiter.allow(context.clientAddress) {
            let seconds = limiter.secondsUntilAvailable(context.clientAddress)
            throw APIError.rateLimited("too many requests from this address; retry in \(seconds) s", retryAfterSeconds: seconds)
        }
        return pages.page(app: app, host: host, target: target, client: UserAgentKind(userAgent: request.headers[.userAgent]))
    }

    /// Whether the path of `target` (up to `?`) is one of the API's.
    static func isReserved(_ target: String) -> Bool {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        return reservedPaths.contains(path) || reservedPrefixes.contains { path.hasPrefix($0) }
    }
}
