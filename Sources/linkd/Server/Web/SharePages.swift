import Foundation
import LinkRouter
import Synchronization
import WebFallback

/// What a browser gets for a share token: the landing page with the origin's preview, the "no longer available"
/// page, the QR code. Previews come from each app's origin (`origin` in its manifest) through `OriginClient`; a fetch
/// never holds a page longer than `previewWait`, and at most `maxOriginFetches` run at once — past either bound the
/// page goes out without a preview (the fetch still fills the cache for the next visitor).
final class SharePages: Sendable {
    let renderer: PageRenderer
    let router: Router
    let previewWait: Duration
    private let origins: [String: OriginClient]
    private let fetchSlots: FetchSlots
    /// Landing pages as rendered, by token and client kind, for `renderedPageSeconds`: rendering (Mustache, HTML
    /// escaping) costs far more than the rest of the request. Only the page is kept: the link's status is decided
    /// afresh on every request, so a revocation still bites at once.
    private let rendered = RenderedPages(capacity: 4096)
    /// How long a rendered landing page is reused.
    static let renderedPageSeconds: Double = 10

    init(router: Router, templates: PageConfiguration, previewWait: Duration, maxOriginFetches: Int) throws(PageError) {
        self.renderer = try PageRenderer(configuration: templates)
        self.router = router
        self.previewWait = previewWait
        self.fetchSlots = FetchSlots(limit: maxOriginFetches)
        var origins: [String: OriginClient] = [:]
        var gonePages: [String: ReadyResponse] = [:]
        var unknownPages: [String: ReadyResponse] = [:]
        for manifest in router.manifests {
            gonePages[manifest.app] = ReadyResponse(page: Self.unavailable(renderer, app: manifest, gone: true))
            unknownPages[manifest.app] = ReadyResponse(page: Self.unavailable(renderer, app: manifest, gone: false))
            guard let origin = manifest.origin else { continue }
            origins[manifest.app] = OriginClient(configuration: OriginConfiguration(
                baseURL: origin.baseURL, previewPath: Self.braceTemplate(origin.previewPath)))
        }
        self.origins = origins
        self.gonePages = gonePages
        self.unknownPages = unknownPages
        self.unknownWithoutApp = ReadyResponse(page: Self.unavailable(renderer, app: nil, gone: false))
        self.goneWithoutApp = ReadyResponse(page: Self.unavailable(renderer, app: nil, gone: true))
    }

    /// The landing page of a valid link (200), or the unavailable page (410) when the origin says the item is gone,
    /// made from memory: a page rendered in the last `renderedPageSeconds`, else the origin's cached answer.
    /// Nil when the origin must be asked first (`fetchPreview`), unless `afterFetch`: then the page goes out with
    /// whatever the cache holds (a stale preview, or none).
    /// `title` (the link's own, shown when the origin gives none) is read only when the page is rendered.
    func landing(
        app: String, token: String, target: ShareLinkTarget, title: @autoclosure () -> String?, client: UserAgentKind,
        afterFetch: Bool
    ) -> (page: ReadyResponse, deleted: Bool)? {
        let key = RenderedPages.Key(token: token, client: client)
        if let page = rendered.page(for: key, maxAge: Self.renderedPageSeconds) { return (page, false) }
        guard let manifest = router.manifest(app: app) else { return (unknownWithoutApp, false) }
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
        let shareURL = router.shareURL(app: manifest.app, token: token) ?? ""
        let customURL = Self.customSchemeURL(manifest, shareURL: shareURL)
        let open = switch client {
        case .iOS, .android: customURL ?? shareURL
        case .desktop, .crawler: manifest.webFallbackURL ?? shareURL
        }
        let page = LandingPage(
            app: Self.pageInfo(manifest), shareURL: shareURL, openInAppURL: open,
            customScheme: manifest.schemes.first, customSchemeURL: customURL, preview: preview)
        let ready = ReadyResponse(page: renderer.landing(page, for: client))
        // A page made without the origin's fresh preview (slow, down, busy) is not kept: the next visitor may get it.
        if origin == nil || cached?.fresh == true { rendered.store(ready, for: key) }
        return (ready, false)
    }

    /// The unavailable page of a revoked, expired or deleted link of `app` (410; without an app's call to action
    /// when `app` names none).
    func gonePage(app: String?) -> ReadyResponse {
        app.flatMap { gonePages[$0] } ?? goneWithoutApp
    }

    /// The unavailable page of an unknown token (404) asked for on `host` (the request's `Host`, port allowed): the
    /// page of the app that claims the host (`Router.shareApp(host:)`, its share hosts or hosts) — the same body as
    /// that app's 410 page, with its name, call to action and store buttons — else the page naming no app.
    /// It depends on the host alone, never on the token, so nothing tells a malformed, a forged and an
    /// unknown-key token apart.
    func unknownPage(host: String?) -> ReadyResponse {
        guard let host, let app = router.shareApp(host: LinkService.hostname(host)) else { return unknownWithoutApp }
        return unknownPages[app] ?? unknownWithoutApp
    }

    /// The 410 page of each app, rendered once, and the one naming no app.
    private let gonePages: [String: ReadyResponse]
    private let goneWithoutApp: ReadyResponse
    /// The 404 page of each app (the body of its 410 page), rendered once, and the one naming no app.
    private let unknownPages: [String: ReadyResponse]
    private let unknownWithoutApp: ReadyResponse

    /// The unavailable page: 410 when `gone`, else 404, with the manifest's `share.message` as its headline. `app` is
    /// nil when the token named none.
    private static func unavailable(_ renderer: PageRenderer, app manifest: AppManifest?, gone: Bool) -> RenderedPage {
        renderer.unavailable(UnavailablePage(
            app: manifest.map(pageInfo), reason: gone ? .gone : .unknown, callToAction: manifest.flatMap(callToAction),
            message: manifest?.share?.unavailableMessage))
    }

    /// The QR code (SVG) of a link's share URL.
    func qrCode(app: String, token: String) -> String? {
        guard let url = router.shareURL(app: app, token: token) else { return nil }
        return renderer.qrCodes.svg(for: url, moduleSize: 8)
    }

    // MARK: Previews

    /// Asks the origin for the preview of the item `params` name unless a fresh answer is cached, waiting at most
    /// `previewWait` (the fetch goes on and fills the cache for the next visitor). With `maxOriginFetches` fetches
    /// in flight it does not ask.
    func fetchPreview(app: String, params: [String: String]) async {
        guard let client = origins[app], client.cachedPreview(params: params)?.fresh != true, fetchSlots.enter() else { return }
        let slots = fetchSlots
        let fetch = Task { () -> PreviewResult in
            defer { slots.leave() }
            return await client.preview(params: params)
        }
        _ = await Self.value(of: fetch, within: previewWait)
    }

    /// The task's value if it finishes within `limit`, else nil (the task goes on and fills the cache).
    static func value<T: Sendable>(of task: Task<T, Never>, within limit: Duration) async -> T? {
        let slot = ResumeOnce<T?>()
        return await withCheckedContinuation { continuation in
            slot.set(continuation)
            Task { slot.resume(with: await task.value) }
            Task {
                try? await Task.sleep(for: limit)
                slot.resume(with: nil)
            }
        }
    }

    // MARK: Manifest → page models

    static func pageInfo(_ manifest: AppManifest) -> AppPageInfo {
        AppPageInfo(
            appID: manifest.app, displayName: manifest.displayName, appStoreID: manifest.appStoreID,
            androidPackage: manifest.androidPackage, webFallbackURL: manifest.webFallbackURL,
            badges: manifest.share?.badges ?? [:])
    }

    /// `scheme://host/path` of the share URL with the app's first custom scheme (`handz://s/TOKEN`), which the
    /// router resolves like the https link.
    static func customSchemeURL(_ manifest: AppManifest, shareURL: String) -> String? {
        guard let scheme = manifest.schemes.first, let path = URLComponents(string: shareURL)?.percentEncodedPath else { return nil }
        return "\(scheme):/" + path
    }

    /// The web page's call to action: the screen the manifest's `share.cta` gives a signed-out person, as a link
    /// into the app when that route has a parameterless path, else the app's web fallback.
    static func callToAction(_ manifest: AppManifest) -> CallToAction? {
        let route = manifest.share?.cta[manifest.unauthenticatedState].flatMap { manifest.routes[$0] }
        if let route, let host = manifest.hosts.first,
           let path = route.patterns.first(where: { !$0.contains(":") && !$0.contains("*") && !$0.contains("(") }) {
            return CallToAction(label: "Open \(manifest.displayName)", url: "https://\(host)\(path)")
        }
        return manifest.webFallbackURL.map { CallToAction(label: "Get \(manifest.displayName)", url: $0) }
    }

    /// `/v1/previews/flows/:flowId` → `/v1/previews/flows/{flowId}` (OriginClient's template syntax).
    static func braceTemplate(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
            .joined(separator: "/")
    }
}

/// Rendered landing pages by token and client kind, each with the time it was made; bounded (starts over when full).
final class RenderedPages: Sendable {
    struct Key: Hashable, Sendable {
        let token: String
        let client: UserAgentKind
    }

    private let entries = Mutex<[Key: (made: ContinuousClock.Instant, page: ReadyResponse)]>([:])
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The page made for `key` less than `maxAge` seconds ago.
    func page(for key: Key, maxAge: Double) -> ReadyResponse? {
        entries.withLock { entries in
            guard let entry = entries[key], ContinuousClock.now - entry.made < .milliseconds(Int(maxAge * 1000)) else { return nil }
            return entry.page
        }
    }

    func store(_ page: ReadyResponse, for key: Key) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = (ContinuousClock.now, page)
        }
    }
}

/// A counter of origin fetches in flight, refusing past its limit.
final class FetchSlots: Sendable {
    private let inFlight = Mutex(0)
    let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    /// Takes a slot; false when all are taken.
    func enter() -> Bool {
        inFlight.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// Gives a slot back.
    func leave() { inFlight.withLock { $0 -= 1 } }
}

/// A continuation resumed by whichever caller comes first.
final class ResumeOnce<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T, Never>?, value: T?)>((nil, nil))

    func set(_ continuation: CheckedContinuation<T, Never>) {
        let early = state.withLock { state -> T? in
            if let value = state.value { return value }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func resume(with value: T) {
        let waiting = state.withLock { state -> CheckedContinuation<T, Never>? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(returning: value)
    }
}
