import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
import LinkRouter
import LinkStore
import WebFallback

/// The handlers of `GET /s/{token}`, the share path browsers follow, and `GET /s/{token}/qr.svg`, its QR code
/// (declared in the hot-route table, `HotRouteTable.linkdRoutes`). `{token}` is a share token (80 or more base64url
/// characters) or a link's short id (`ShortID`: exactly 11 base62 characters), told apart by shape in
/// `LinkService.memoryStatus`; both answer the same pages, and a page reached by a short id links its QR code and
/// store buttons by the short id.
/// Valid → the landing page (200); revoked, expired or deleted (by the store or the origin) → the unavailable page
/// (410); anything else (malformed, forged, unknown key, unknown link) → the same page as 404: on a host an app
/// claims, that app's unavailable page (its 410 body), chosen by the `Host` alone, never by the token. Every answer is
/// `Cache-Control: no-store` so that a revocation bites at once. Clicks of valid links are counted in memory and
/// written in batches with where they came from (`ShareOrigin`: the URL's campaign, the referring host); link-preview
/// crawlers count a preview. An origin's 404/410 is final: the link is reported to
/// `deletions`, which marks it deleted in the store off the request path.
final class ShareRoutes: Sendable {
    let links: LinkService
    /// The apps in force: each request reads their share pages once.
    let apps: AppsInForce
    /// Where links whose origin answered 404/410 are reported, to be marked deleted.
    let deletions: LinkDeletions
    /// Where each page shown is counted: a click by platform (the link's total, last opening and day row), or a
    /// crawler's preview.
    let analytics: ShareAnalytics

    /// - Parameters: see the properties.
    init(links: LinkService, apps: AppsInForce, deletions: LinkDeletions, analytics: ShareAnalytics) {
        self.links = links
        self.apps = apps
        self.deletions = deletions
        self.analytics = analytics
    }

    /// `GET /s/{token}/qr.svg`: the QR code of an active link's share URL; the unavailable text (410/404) otherwise.
    func qrCode(token: String, host: String?) async -> Response {
        let (app, status) = await links.shareStatus(token: token, host: host)
        links.metrics.recordTokenVerdict(status)
        let pages = apps.snapshot.sharePages
        guard case .active = status, let app, let svg = pages.qrCode(app: app, token: token) else {
            let code: HTTPResponse.Status = if case .unavailable = status { .gone } else { .notFound }
            return Response(status: code, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: "This link is no longer available.\n")))
        }
        return ReadyResponse(status: .ok, headers: SecurityHeaders.svg, body: ByteBuffer(string: svg)).response
    }

    /// The share page of `token`, reading the link record and asking the origin (within the preview wait) when
    /// memory has not got them. `countsClick: false` (a `HEAD` request: nobody opened the link) counts no click.
    func page(
        token: String, host: String?, userAgent: String?, origin: ShareOrigin = ShareOrigin(), countsClick: Bool = true
    ) async -> ReadyResponse {
        var verified = VerifiedTokens()
        if let ready = pageInMemory(
            token: token, host: host, userAgent: userAgent, origin: origin, countsClick: countsClick, verified: &verified) {
            return ready
        }
        let (app, status) = await links.shareStatus(token: token, host: host, verified: &verified)
        let pages = apps.snapshot.sharePages
        if case .active(let target) = status, let app { await pages.fetchPreview(app: app, params: target.params) }
        return page(
            app: app, status: status, token: token, host: host, userAgent: userAgent, origin: origin, afterFetch: true,
            countsClick: countsClick, pages: pages) ?? pages.unknownPage(host: host)
    }

    /// The share page of `token` from memory alone (the event-loop fast path); nil, with nothing counted, when the
    /// link record or the origin's preview must be fetched first.
    func pageInMemory(
        token: String, host: String?, userAgent: String?, origin: ShareOrigin = ShareOrigin(), countsClick: Bool = true
    ) -> ReadyResponse? {
        var verified = VerifiedTokens()
        return pageInMemory(token: token, host: host, userAgent: userAgent, origin: origin, countsClick: countsClick, verified: &verified)
    }

    /// `pageInMemory`, checking the token's signature through `verified`.
    private func pageInMemory(
        token: String, host: String?, userAgent: String?, origin: ShareOrigin, countsClick: Bool, verified: inout VerifiedTokens
    ) -> ReadyResponse? {
        guard let (app, status, record) = links.shareStatusInMemory(token: token, host: host, verified: &verified) else { return nil }
        return page(
            app: app, status: status, token: token, host: host, userAgent: userAgent, origin: origin, afterFetch: false,
            countsClick: countsClick, pages: apps.snapshot.sharePages, record: record)
    }

    /// The page for a decided status; counts the verdict and, for a landing page shown to a person, the click.
    /// An unknown token gets the 404 page of the app `host` names (`SharePages.unknownPage(host:)`). A link whose
    /// origin says its item is gone gets the 410 page, counts as `deleted`, and is reported to `deletions`.
    /// `record` is the link's record when the status was decided from it (else it is read from the cache).
    private func page(
        app: String?, status: LinkStatus, token: String, host: String?, userAgent: String?, origin: ShareOrigin, afterFetch: Bool,
        countsClick: Bool, pages: SharePages<ReadyResponse>, record: LinkRecord? = nil
    ) -> ReadyResponse? {
        let page: ReadyResponse
        switch status {
        case .active(let target):
            guard let app else {
                page = pages.unknownPage(host: host)
                break
            }
            let client = UserAgentKind(userAgent: userAgent)
            let record = record?.id == target.linkID ? record : links.store.cachedLink(id: target.linkID)
            guard let landing = pages.landing(
                app: app, token: token, target: target, title: record?.title, client: client, afterFetch: afterFetch)
            else { return nil }
            if landing.deleted {
                deletions.report(linkID: target.linkID)
                links.metrics.recordTokenVerdict(.unavailable(linkID: target.linkID, reason: .deleted))
                return landing.page
            }
            if countsClick {
                analytics.recordOpen(
                    linkID: target.linkID, app: app, client: client, source: origin.source(linkCampaign: record?.campaign))
            }
            page = landing.page
        case .unavailable:
            page = pages.gonePage(app: app)
        case .unknown:
            page = pages.unknownPage(host: host)
        }
        links.metrics.recordTokenVerdict(status)
        return page
    }
}
