import Foundation
public import LinkRouter
import AsyncTimeouts
import Synchronization

/// What a browser gets for a share token: the landing page with the origin's preview, the "no longer available"
/// page, the QR code. Previews come from each app's origin (`origin` in its manifest) through `OriginClient`; a fetch
/// never holds a page longer than `previewWait`, and at most `maxOriginFetches` run at once — past either bound the
/// page goes out without a preview (the fetch still fills the cache for the next visitor).
///
/// `Page` is the form the server sends a page in (made once per rendering by `makePage`, and cached in that form):
/// this module renders, caches and waits; it knows nothing of HTTP servers.
public final class SharePages<Page: Sendable>: Sendable {
    /// The renderer of every page.
    public let renderer: PageRenderer
    /// The compiled manifests.
    public let router: Router
    /// The longest a page waits for an origin's preview.
    public let previewWait: Duration
    /// Origin fetches in flight; closed at shutdown (`OriginFetchService`).
    public let fetches: OriginFetches
    private let origins: [String: OriginClient]
    private let makePage: @Sendable (RenderedPage) -> Page
    /// Landing pages as rendered, by token and client kind, for `renderedPageSeconds`, each from its second rendering
    /// on (a page made once is not kept): rendering costs more than the rest of the request. Only the page is kept:
    /// the link's status is decided afresh on every request, so a revocation still bites at once.
    private let rendered: RenderedPages<Page>
    /// How long a rendered landing page is reused.
    public static var renderedPageSeconds: Double { 10 }
    /// The most rendered landing pages kept (about 6 KB each): the pages of links opened again within
    /// `renderedPageSeconds`. A page rendered afresh costs little (`CompiledTemplate`), so the cache is kept small.
    public static var renderedPageCapacity: Int { 1024 }

    /// Renders the unavailable pages of every app once and prepares an `OriginClient` per app with an origin.
    /// - Parameters:
    ///   - makePage: turns a rendered page into the form the server sends (called once per rendering).
    /// - Throws: `PageError` when the templates cannot be read.
    public convenience init(
        router: Router, templates: PageConfiguration, previewWait: Duration, maxOriginFetches: Int,
        makePage: @escaping @Sendable (RenderedPage) -> Page
    ) throws(PageError) {
        self.init(
            router: router, renderer: try PageRenderer(configuration: templates), fetches: OriginFetches(limit: maxOriginFetches),
            previewWait: previewWait, makePage: makePage)
    }

    /// The pages of `router`'s apps over a renderer and an origin-fetch limit that outlive them: a daemon makes one
    /// `SharePages` per set of manifests in force, all sharing the templates and the limit. An app whose origin is
    /// the same as in `previous` keeps its `OriginClient`, with the previews it has cached.
    public init(
        router: Router, renderer: PageRenderer, fetches: OriginFetches, previewWait: Duration,
        previous: SharePages<Page>? = nil, makePage: @escaping @Sendable (RenderedPage) -> Page
    ) {
        self.renderer = renderer
        self.router = router
        self.previewWait = previewWait
        self.makePage = makePage
        self.rendered = RenderedPages(capacity: Self.renderedPageCapacity)
        self.fetches = fetches
        var origins: [String: OriginClient] = [:]
        var gonePages: [String: Page] = [:]
        var unknownPages: [String: Page] = [:]
        var landingApps: [String: LandingApp] = [:]
        for manifest in router.manifests {
            landingApps[manifest.app] = LandingApp(manifest)
            gonePages[manifest.app] = makePage(Self.unavailable(renderer, app: manifest, gone: true))
            unknownPages[manifest.app] = makePage(Self.unavailable(renderer, app: manifest, gone: false))
            guard let origin = manifest.origin else { continue }
            if let kept = previous?.origins[manifest.app], previous?.router.manifest(app: manifest.app)?.origin == origin {
                origins[manifest.app] = kept
                continue
            }
            origins[manifest.app] = OriginClient(configuration: OriginConfiguration(
                baseURL: origin.baseURL, previewPath: Self.braceTemplate(origin.previewPath)))
        }
        self.origins = origins
        self.landingApps = landingApps
        self.gonePages = gonePages
        self.unknownPages = unknownPages
        self.unknownWithoutApp = makePage(Self.unavailable(renderer, app: nil, gone: false))
        self.goneWithoutApp = makePage(Self.unavailable(renderer, app: nil, gone: true))
    }

    /// The landing page of a valid link (200), or the unavailable page (410) when the origin says the item is gone,
    /// made from memory: a page rendered in the last `renderedPageSeconds`, else the origin's cached answer.
    /// Nil when the origin must be asked first (`fetchPreview`), unless `afterFetch`: then the page goes out with
    /// whatever the cache holds (a stale preview, or none).
    /// `title` (the link's own, shown when the origin gives none) is read only when the page is rendered.
    public func landing(
        app: String, token: String, target: ShareLinkTarget, title: @autoclosure () -> String?, client: UserAgentKind,
        afterFetch: Bool
    ) -> (page: Page, deleted: Bool)? {
        let key = RenderedPageKey(token: token, client: client)
        if let page = rendered.page(for: key, maxAge: Self.renderedPageSeconds) { return (page, false) }
        guard let landingApp = landingApps[app] else { return (unknownWithoutApp, false) }
        let origin = origins[app]
        let cached = origin?.cachedPreview(params: target.params)
        var preview: Preview?
        if origin != nil {
            guard cached?.fresh == true || afterFetch else { return nil }
            switch cached?.result {
            case .deleted: return (gonePage(app: app), true)
            case .preview(let fetched): preview = fetched
            case .unavailable, nil: preview = nil
            }
        }
        if preview == nil, let title = title(), !title.isEmpty { preview = Preview(title: title) }
        let share = router.shareURLAndPath(app: app, token: token)
        var page = LandingPage(
            landingApp.info, scheme: landingApp.scheme, url: share?.url ?? "",
            customSchemeURL: share.flatMap { share in landingApp.scheme.map { "\($0)://\(share.path)" } }, client: client,
            preview: preview)
        // The store buttons go through linkd's store redirect, which makes the claim code of a deferred deep link.
        if landingApp.sharesAtTokenPath {
            page.installBaseURL = (share?.url ?? "") + "/install"
            page.qrImagePath = "/s/\(token)/qr.svg"
        }
        let ready = makePage(renderer.landing(page, for: client))
        // A page made without the origin's fresh preview (slow, down, busy) is not kept: the next visitor may get it.
        if origin == nil || cached?.fresh == true { rendered.offer(ready, for: key) }
        return (ready, false)
    }

    /// The unavailable page of a revoked, expired or deleted link of `app` (410; without an app's call to action
    /// when `app` names none).
    public func gonePage(app: String?) -> Page {
        app.flatMap { gonePages[$0] } ?? goneWithoutApp
    }

    /// The unavailable page of an unknown token (404) asked for on `host` (the request's `Host`, port allowed): the
    /// page of the app that claims the host (`Router.shareApp(host:)`, its share hosts or hosts) — the same body as
    /// that app's 410 page, with its name, call to action and store buttons — else the page naming no app.
    /// It depends on the host alone, never on the token, so nothing tells a malformed, a forged and an
    /// unknown-key token apart.
    public func unknownPage(host: String?) -> Page {
        guard let host, let app = router.shareApp(host: Authority.hostname(host)) else { return unknownWithoutApp }
        return unknownPages[app] ?? unknownWithoutApp
    }

    /// What every landing page of an app shares, by app id.
    private let landingApps: [String: LandingApp]

    /// What every landing page of one app shares, worked out once from its manifest (a manifest is a large value:
    /// copying it out of the router, and its page information out of it, cost a tenth of a page's rendering).
    private struct LandingApp: Sendable {
        /// The app's name, stores, fallback, language and badges.
        let info: AppPageInfo
        /// The app's first custom scheme, for the custom-scheme URL.
        let scheme: String?
        /// Whether the share path is `/s/:token`, which has the store redirect and the QR image routes.
        let sharesAtTokenPath: Bool

        init(_ manifest: AppManifest) {
            info = AppPageInfo(manifest)
            scheme = manifest.schemes.first
            sharesAtTokenPath = manifest.share?.path == "/s/:token"
        }
    }

    /// The 410 page of each app, rendered once, and the one naming no app.
    private let gonePages: [String: Page]
    private let goneWithoutApp: Page
    /// The 404 page of each app (the body of its 410 page), rendered once, and the one naming no app.
    private let unknownPages: [String: Page]
    private let unknownWithoutApp: Page

    /// The unavailable page: 410 when `gone`, else 404, with the manifest's `share.message` as its headline. `app` is
    /// nil when the token named none.
    private static func unavailable(_ renderer: PageRenderer, app manifest: AppManifest?, gone: Bool) -> RenderedPage {
        renderer.unavailable(UnavailablePage(
            app: manifest.map(AppPageInfo.init), reason: gone ? .gone : .unknown, callToAction: manifest.flatMap(CallToAction.init(signedOutOf:)),
            message: manifest?.share?.unavailableMessage))
    }

    /// The QR code (SVG) of a link's share URL.
    public func qrCode(app: String, token: String) -> String? {
        guard let url = router.shareURL(app: app, token: token) else { return nil }
        return renderer.qrCodes.svg(for: url, moduleSize: 8)
    }

    // MARK: Previews

    /// Asks the origin for the preview of the item `params` name unless a fresh answer is cached, waiting at most
    /// `previewWait` (the fetch goes on and fills the cache for the next visitor). With `maxOriginFetches` fetches
    /// in flight it does not ask.
    public func fetchPreview(app: String, params: [String: String]) async {
        guard let client = origins[app], client.cachedPreview(params: params)?.fresh != true, fetches.enter() else { return }
        let fetches = self.fetches
        let fetch = Task { () -> PreviewResult in
            defer { fetches.leave() }
            return await client.preview(params: params)
        }
        _ = await Deadline.value(of: fetch, within: previewWait)
    }

    // MARK: Manifest → page models

    /// `/v1/previews/flows/:flowId` → `/v1/previews/flows/{flowId}` (OriginClient's template syntax).
    static func braceTemplate(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
            .joined(separator: "/")
    }
}

/// What a rendered landing page is kept under: the token and the kind of client it was made for.
struct RenderedPageKey: Hashable, Sendable {
    let token: String
    let client: UserAgentKind
}

/// Rendered landing pages by token and client kind, each with the time it was made, in two generations of at most
/// half `capacity` each: when the newer is full it becomes the older, and the older is dropped. A page found in the
/// older generation moves to the newer, so a link opened again and again keeps its page however many links are
/// opened once beside it (a crawler, the long tail); emptying the whole cache when full lost the popular pages too.
///
/// A page is kept only the second time it is offered (`offer`), a doorkeeper: the first offer notes the key's hash in
/// a table of `4 × capacity` slots, and a later offer of a key found there keeps the page. Under a long tail most pages
/// are made once and never asked for again; keeping each of them cost a dictionary insertion and, every half
/// `capacity` pages, a generation's turnover, which also pushed out pages opened a few times.
final class RenderedPages<Page: Sendable>: Sendable {
    private struct Entry {
        let made: ContinuousClock.Instant
        let page: Page
    }

    private struct Generations {
        var newer: [RenderedPageKey: Entry] = [:]
        var older: [RenderedPageKey: Entry] = [:]
        /// The hashes of keys offered once, each in the slot its hash picks (a later key may take the slot).
        var offeredOnce: [Int]
    }

    private let generations: Mutex<Generations>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(2, capacity)
        // A power of two, so that a slot is the hash's low bits.
        let slots = 1 << (Int.bitWidth - (4 * self.capacity - 1).leadingZeroBitCount)
        generations = Mutex(Generations(offeredOnce: Array(repeating: 0, count: slots)))
    }

    /// The page made for `key` less than `maxAge` seconds ago.
    func page(for key: RenderedPageKey, maxAge: Double) -> Page? {
        let now = ContinuousClock.now, maxAge = Duration.milliseconds(Int(maxAge * 1000))
        return generations.withLock { generations in
            if let entry = generations.newer[key] { return now - entry.made < maxAge ? entry.page : nil }
            guard let entry = generations.older.removeValue(forKey: key), now - entry.made < maxAge else { return nil }
            Self.insert(entry, for: key, into: &generations, capacity: capacity)
            return entry.page
        }
    }

    /// Keeps `page` for `key` (replacing a page kept for it) if `key` was offered before and its note is still
    /// there; otherwise notes the key, so that its next offer keeps the page. Whether the page was kept.
    ///
    /// A note lasts until another key's hash picks its slot; a page whose note was overwritten is kept at its next
    /// offer after this one (a popular page, rendered again when it is `renderedPageSeconds` old, is one rendering late).
    @discardableResult
    func offer(_ page: Page, for key: RenderedPageKey) -> Bool {
        let hash = key.hashValue
        return generations.withLock { generations in
            let slot = hash & (generations.offeredOnce.count - 1)
            guard generations.offeredOnce[slot] == hash else {
                generations.offeredOnce[slot] = hash
                return false
            }
            Self.insert(Entry(made: ContinuousClock.now, page: page), for: key, into: &generations, capacity: capacity)
            return true
        }
    }

    /// How many pages are kept.
    var count: Int { generations.withLock { $0.newer.count + $0.older.count } }

    private static func insert(_ entry: Entry, for key: RenderedPageKey, into generations: inout Generations, capacity: Int) {
        if generations.newer[key] == nil, generations.newer.count >= capacity / 2 {
            generations.older = generations.newer
            generations.newer = Dictionary(minimumCapacity: capacity / 2)
        }
        generations.newer[key] = entry
    }
}
