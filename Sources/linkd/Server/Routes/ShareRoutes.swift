import Foundation
import HTTPTypes
import Hummingbird
import LinkRouter
import LinkStore

/// `GET /s/{token}`: the share path browsers follow. Valid → 200, revoked/expired/deleted → 410, anything else
/// (malformed, forged, unknown key, unknown link) → 404, all with `Cache-Control: no-store` so that a revocation
/// bites at once. Clicks of valid links are counted in memory and written in batches.
struct ShareRoutes: Sendable {
    let links: LinkService
    let limiter: RateLimiter?

    /// The longest token considered (an Ed25519 token is 126 characters).
    static let maxTokenBytes = 128

    func register(on router: Hummingbird.Router<LinkdRequestContext>) {
        router.group("s").add(middleware: RateLimitMiddleware(limiter: limiter)).get("{token}") { request, context in
            let token = context.parameters.get("token") ?? ""
            let (app, status) = await verdict(token: token, host: request.head.authority)
            return response(status, app: app)
        }
    }

    /// The app and status of a token: the app whose share host is the request's host, else the first app whose
    /// keys verify it. Every candidate is tried the same way, so an unknown token costs what a valid one does.
    func verdict(token: String, host: String?, now: Date = Date()) async -> (String?, LinkStatus) {
        guard token.utf8.count <= Self.maxTokenBytes else { return (nil, .unknown) }
        for app in candidates(host: host) {
            let status = await links.status(token: token, app: app, now: now)
            if status != .unknown { return (app, status) }
        }
        return (nil, .unknown)
    }

    private func candidates(host: String?) -> [String] {
        let shareApps = links.router.manifests.filter { $0.share != nil }
        if let host = host.map(Self.hostname), let manifest = shareApps.first(where: {
            $0.share?.hosts.contains(host) == true || $0.hosts.contains(host)
        }) {
            return [manifest.app]
        }
        return shareApps.map(\.app)
    }

    /// `Host` without its port, lowercased.
    static func hostname(_ authority: String) -> String {
        let withoutPort = authority.hasPrefix("[") ? authority : String(authority.split(separator: ":").first ?? "")
        return withoutPort.lowercased()
    }

    private func response(_ status: LinkStatus, app: String?) -> Response {
        let (code, text): (HTTPResponse.Status, String) = switch status {
        case .active(let target):
            (.ok, "This link opens \(target.route) in \(app ?? "the app").\n")
        case .unavailable:
            (.gone, "This link is no longer available.\n")
        case .unknown:
            (.notFound, "This link is no longer available.\n")
        }
        if case .active(let target) = status { links.clicks.record(linkID: target.linkID) }
        return Response(
            status: code, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
