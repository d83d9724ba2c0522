import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// The requests answered on the event loop, and how: the functions the Hummingbird routes call, in their
/// memory-only form. Anything they cannot answer from memory (a link record to read, a preview to fetch, a bad
/// request, an empty rate-limit bucket) goes to Hummingbird, which answers it as it always did.
struct FastRoutes: Sendable {
    /// A route the fast path knows.
    enum Route: Sendable, Equatable {
        case healthz
        case resolve
        case share(token: String)

        /// The route pattern, as Hummingbird labels the request metrics.
        var pattern: String {
            switch self {
            case .healthz: "/healthz"
            case .resolve: "/v1/resolve"
            case .share: "/s/{token}"
            }
        }

        /// Whether the per-client rate limit applies (as on the Hummingbird route groups `v1/resolve` and `s`).
        var isRateLimited: Bool { self != .healthz }
    }

    /// A request being considered: its head, route and (for a POST) its body.
    struct Request {
        let head: HTTPRequestHead
        let route: Route
        let started: ContinuousClock.Instant
        var body: ByteBuffer?
    }

    let resolve: ResolveRoutes
    let share: ShareRoutes
    let limiter: RateLimiter?
    let metrics: ServerMetrics
    /// Where answered requests are logged; nil (and nothing checked per request) unless the log level is debug.
    let requestLog: Logger?

    /// The largest body collected (`POST /v1/resolve`'s cap): past it the request goes to Hummingbird (413).
    static let maxBodyBytes = ResolveRoutes.maxResolveBodyBytes

    /// The request if it is one the fast path may answer; nil for every other request. The path (the target up to
    /// `?`, as Hummingbird's `URI` reads it) is split as Hummingbird's router splits it, empty segments ignored, so
    /// both agree on what a path names. Byte-level: this runs for every request.
    static func candidate(_ head: HTTPRequestHead, at started: ContinuousClock.Instant) -> Request? {
        guard head.method == .GET || head.method == .POST else { return nil }
        let target = head.uri.utf8
        guard target.first == UInt8(ascii: "/") else { return nil }  // origin form only
        let path = target[..<(target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex)]
        let parts = path.split(separator: UInt8(ascii: "/"), maxSplits: 3)
        let route: Route
        switch parts.count {
        case 1 where head.method == .GET && parts[0].elementsEqual("healthz".utf8): route = .healthz
        case 2 where parts[0].elementsEqual("v1".utf8) && parts[1].elementsEqual("resolve".utf8): route = .resolve
        case 2 where head.method == .GET && parts[0].elementsEqual("s".utf8): route = .share(token: String(Substring(parts[1])))
        default: return nil
        }
        return Request(head: head, route: route, started: started)
    }

    /// The answer from memory, with the request counted (rate limit, metrics); nil, with nothing counted, to hand
    /// the request to Hummingbird. `client` is the caller's address.
    func answer(_ request: Request, client: String) -> ReadyResponse? {
        // An empty bucket: Hummingbird answers the 429. The bucket is charged only once the answer is made, so a
        // request is charged once by whichever path answers it (two connections of one client on two event loops
        // may both pass the peek for the last token: one request over, at most one per loop).
        if request.route.isRateLimited, let limiter, !limiter.peek(client) { return nil }
        guard let response = make(request) else { return nil }
        if request.route.isRateLimited { _ = limiter?.allow(client) }
        metrics.recordFastPathAnswer()
        let duration = ContinuousClock.now - request.started
        metrics.recordRequest(
            method: request.head.method.rawValue, route: request.route.pattern, status: response.status.code, duration: duration)
        requestLog?.logRequest(
            method: request.head.method.rawValue, route: request.route.pattern, status: response.status.code, duration: duration)
        return response
    }

    private func make(_ request: Request) -> ReadyResponse? {
        let headers = request.head.headers
        switch request.route {
        case .healthz:
            return HealthRoutes.healthy
        case .resolve:
            let query: ResolveRoutes.Query?
            if request.head.method == .POST {
                // Exactly one Content-Type (Hummingbird would read several joined, and refuse them).
                var types = headers.lazy.filter { $0.name.utf8.count == 12 && $0.name.lowercased() == "content-type" }.makeIterator()
                guard let type = types.next()?.value, types.next() == nil, JSONBody.hasMediaType(type, "application/json"),
                      let body = request.body
                else { return nil }
                query = ResolveRoutes.Query(flatBody: body)
            } else {
                query = try? ResolveRoutes.Query(uri: URI(request.head.uri))
            }
            return query.flatMap(resolve.answerInMemory)
        case .share(let token):
            let agents = headers["user-agent"]  // joined as HTTPFields joins them; the host is the first, as Hummingbird's
            return share.pageInMemory(
                token: token, host: headers.first(name: "host"), userAgent: agents.isEmpty ? nil : agents.joined(separator: ", "))
        }
    }
}
