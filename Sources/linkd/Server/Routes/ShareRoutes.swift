import Foundation
import HTTPTypes
import Hummingbird
import LinkRouter
import LinkStore
import WebFallback

/// `GET /s/{token}`: the share path browsers follow, and `GET /s/{token}/qr.svg`, its QR code.
/// Valid → the landing page (200); revoked, expired or deleted (by the store or the origin) → the unavailable page
/// (410); anything else (malformed, forged, unknown key, unknown link) → the same page as 404. Every answer is
/// `Cache-Control: no-store` so that a revocation bites at once. Clicks of valid links are counted in memory and
/// written in batches; link-preview crawlers count none.
struct ShareRoutes: Sendable {
    let links: LinkService
    let pages: SharePages
    let limiter: RateLimiter?

    func register(on router: Hummingbird.Router<LinkdRequestContext>) {
        let group = router.group("s").add(middleware: RateLimitMiddleware(limiter: limiter))
        group.get("{token}") { request, context in
            let token = context.parameters.get("token") ?? ""
            let (app, status) = await links.shareStatus(token: token, host: request.head.authority)
            let manifest = app.flatMap { links.router.manifest(app: $0) }
            switch status {
            case .active(let target):
                guard let manifest else { return Self.page(pages.unavailable(app: nil, gone: false)) }
                let client = UserAgentKind(userAgent: request.headers[.userAgent])
                let title = links.store.cachedLink(id: target.linkID)?.title
                let (page, deleted) = await pages.landing(app: manifest, token: token, target: target, title: title, client: client)
                if !deleted && !client.isCrawler { links.clicks.record(linkID: target.linkID) }
                return Self.page(page)
            case .unavailable:
                return Self.page(pages.unavailable(app: manifest, gone: true))
            case .unknown:
                return Self.page(pages.unavailable(app: nil, gone: false))
            }
        }
        group.get("{token}/qr.svg") { request, context in
            let token = context.parameters.get("token") ?? ""
            let (app, status) = await links.shareStatus(token: token, host: request.head.authority)
            guard case .active = status, let app, let svg = pages.qrCode(app: app, token: token) else {
                let code: HTTPResponse.Status = if case .unavailable = status { .gone } else { .notFound }
                return Response(status: code, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                                body: .init(byteBuffer: ByteBuffer(string: "This link is no longer available.\n")))
            }
            return Self.response(status: .ok, headers: SecurityHeaders.svg, body: svg)
        }
    }

    private static func page(_ page: RenderedPage) -> Response {
        response(status: HTTPResponse.Status(code: page.status), headers: page.headers, body: page.body)
    }

    /// A response with the given headers (`name`/`value` pairs of WebFallback).
    static func response(status: HTTPResponse.Status, headers: [(name: String, value: String)], body: String) -> Response {
        var fields = HTTPFields()
        for header in headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
