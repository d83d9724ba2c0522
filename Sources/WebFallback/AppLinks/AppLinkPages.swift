public import LinkRouter

/// What a browser gets on an app's universal-link / App Link URL (`https://links.handz.example/flows/<uuid>`) when
/// the app did not open it (not installed, a desktop, an Android phone for an iOS-only app, a pasted URL):
/// - a path the app resolves (a route, or an intercept in front of one): the landing page (200), as a share link's
///   but without a preview: the app's name, "Open in <App>" with the custom-scheme URL of the same path (an
///   `intent://` link on Android), the store buttons, the web fallback, Open Graph tags and the Smart App Banner
///   with the URL as `app-argument`;
/// - a long link (`/?link=<deep link>&…`, `LongLink`) whose deep link the app resolves: that deep link's landing page;
/// - any other path: the app's 404 page ("There is no <App> page at this address."), rendered once per app.
///
/// No origin preview is fetched: these URLs carry no signature, so anyone could make linkd ask the origin for any
/// id. Pages are rendered per request (no cache: the URL is the attacker's to vary); the caller charges the client's
/// rate limit between `app(onHost:)` and `page(…)`, before any rendering.
public struct AppLinkPages<Page: Sendable>: Sendable {
    /// The compiled manifests (which app a host is, and what it resolves).
    public let router: Router
    private let renderer: PageRenderer
    private let makePage: @Sendable (RenderedPage) -> Page
    /// App id → its 404 page.
    private let notFoundPages: [String: Page]

    /// Renders the 404 page of every app with hosts.
    /// - Parameters:
    ///   - makePage: turns a rendered page into the form the server sends.
    public init(router: Router, renderer: PageRenderer, makePage: @escaping @Sendable (RenderedPage) -> Page) {
        self.router = router
        self.renderer = renderer
        self.makePage = makePage
        var notFoundPages: [String: Page] = [:]
        for manifest in router.manifests where !manifest.hosts.isEmpty {
            notFoundPages[manifest.app] = makePage(renderer.unavailable(Self.notFound(manifest)))
        }
        self.notFoundPages = notFoundPages
    }

    /// The 404 page of `manifest`'s app.
    static func notFound(_ manifest: AppManifest) -> UnavailablePage {
        UnavailablePage(
            app: AppPageInfo(manifest), reason: .unknown, callToAction: CallToAction(signedOutOf: manifest),
            message: "There is no \(manifest.displayName) page at this address.", pageTitle: "Page not found",
            detail: "Check the link, or open \(manifest.displayName) to find what you were looking for.")
    }

    /// The app whose `hosts` name `host` (the `Host` field, port allowed); nil for a host no app names: no page is
    /// made there.
    public func app(onHost host: String) -> AppManifest? {
        router.manifest(host: Authority.hostname(host))
    }

    /// The page of `app` (from `app(onHost:)`) for `target` (the request target as written: path and query) on
    /// `host`, for this kind of client. The desktop page's QR code is encoded for this page alone
    /// (`cachingQRCode: false`): the URL is the client's to vary, and must not fill the cache of the share links' codes.
    public func page(app manifest: AppManifest, host: String, target: String, client: UserAgentKind) -> Page {
        let url = "https://\(Authority.hostname(host))\(target)"
        let resolution = router.resolve(url: url, state: nil, app: manifest.app)
        guard Self.resolves(resolution) else {
            return notFoundPages[manifest.app] ?? makePage(renderer.unavailable(Self.notFound(manifest)))
        }
        var shown = url
        var schemeURL = manifest.schemes.first.map { "\($0):/" + target }
        // A long link's page is its deep link's: the URL shown and opened is the one it carries (the router
        // resolved that one, of this app); its fallbacks (`ofl`, `ifl`, `afl`) are not followed.
        if case .inner(let inner)? = LongLink.parse(url) {
            shown = inner
            if let (path, query) = LongLink.pathAndQuery(inner) {
                schemeURL = manifest.schemes.first.map { "\($0):/" + path + (query.map { "?" + $0 } ?? "") }
            } else {
                schemeURL = inner
            }
        }
        let page = LandingPage(
            manifest, url: shown, customSchemeURL: schemeURL, client: client,
            title: "This link opens in \(manifest.displayName)")
        return makePage(renderer.landing(page, for: client, cachingQRCode: false))
    }

    /// Whether the app resolves the URL: it opens a route for the caller's state, intercepts it (the route exists
    /// but the state must sign in first), or names a route the state may never open.
    static func resolves(_ resolution: Resolution) -> Bool {
        switch resolution.outcome {
        case .route, .intercept, .updateRequired: true
        case .notFound: resolution.problem?.code == .notAllowed
        case .linkUnavailable: false
        }
    }
}
