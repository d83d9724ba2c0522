import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

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

    /// A request being considered: its bytes (head, then body), where its parts are, and its route.
    struct Request {
        let head: ScannedHead
        /// The whole request: head, then body.
        let bytes: ByteBuffer
        let route: Route
        let started: ContinuousClock.Instant

        /// The text of a part of the head.
        func text(_ range: Range<Int>?) -> String? {
            range.flatMap { bytes.getString(at: bytes.readerIndex + $0.lowerBound, length: $0.count) }
        }

        /// The body.
        var body: ByteBuffer { bytes.getSlice(at: bytes.readerIndex + head.headLength, length: head.contentLength) ?? ByteBuffer() }

        /// The method's name.
        var methodName: String { head.method == .post ? "POST" : "GET" }
    }

    let resolve: ResolveRoutes
    let share: ShareRoutes
    let limiter: RateLimiter?
    let metrics: ServerMetrics
    /// Where answered requests are logged; nil (and nothing checked per request) unless the log level is debug.
    let requestLog: Logger?

    /// The largest body collected (`POST /v1/resolve`'s cap): past it the request goes to Hummingbird (413).
    static let maxBodyBytes = ResolveRoutes.maxResolveBodyBytes

    /// The request whose head is `head` and bytes `bytes` (head and body) if the fast path may answer it; nil for
    /// every other request.
    static func candidate(_ head: ScannedHead, bytes: ByteBuffer, at started: ContinuousClock.Instant) -> Request? {
        guard head.method != .other,
              let route = bytes.withUnsafeReadableBytes({ route(head.method, target: UnsafeRawBufferPointer(rebasing: $0[head.target])) })
        else { return nil }
        return Request(head: head, bytes: bytes, route: route, started: started)
    }

    /// The route of a GET or POST of `target` if the fast path knows it. The path (the target up to `?`, as
    /// Hummingbird's `URI` reads it) is split as Hummingbird's router splits it, empty segments ignored, so both agree
    /// on what a path names. Byte-level: this runs for every request.
    static func route(_ method: ScannedHead.Method, target: UnsafeRawBufferPointer) -> Route? {
        guard method == .get || method == .post, target.first == UInt8(ascii: "/") else { return nil }  // origin form only
        let end = target.firstIndex(of: UInt8(ascii: "?")) ?? target.count
        // The first two non-empty segments; a third means no route of ours.
        var first: Range<Int>?, second: Range<Int>?
        var i = 0
        while i < end {
            guard target[i] != UInt8(ascii: "/") else {
                i += 1
                continue
            }
            let start = i
            while i < end, target[i] != UInt8(ascii: "/") { i += 1 }
            if first == nil { first = start..<i } else if second == nil { second = start..<i } else { return nil }
        }
        func bytes(_ range: Range<Int>?, are literal: StaticString) -> Bool {
            range.map { RequestScanner.equals(target, $0, literal) } ?? false
        }
        switch (first, second) {
        case (.some, nil) where method == .get && bytes(first, are: "healthz"): return .healthz
        case (.some, .some(let token)) where method == .get && bytes(first, are: "s"):
            return .share(token: String(decoding: UnsafeRawBufferPointer(rebasing: target[token]), as: UTF8.self))
        case (.some, .some) where bytes(first, are: "v1") && bytes(second, are: "resolve"): return .resolve
        default: return nil
        }
    }

    /// `route(_:target:)` of a target given as text.
    static func route(_ method: ScannedHead.Method, target: String) -> Route? {
        Array(target.utf8).withUnsafeBytes { route(method, target: $0) }
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
            method: request.methodName, route: request.route.pattern, status: response.status.code, duration: duration)
        requestLog?.logRequest(
            method: request.methodName, route: request.route.pattern, status: response.status.code, duration: duration)
        return response
    }

    private func make(_ request: Request) -> ReadyResponse? {
        switch request.route {
        case .healthz:
            return HealthRoutes.healthy
        case .resolve:
            let query: ResolveRoutes.Query?
            if request.head.method == .post {
                // Exactly one Content-Type (Hummingbird would read several joined, and refuse them).
                guard request.head.contentTypeCount == 1, let type = request.text(request.head.contentType),
                      JSONBody.hasMediaType(type, "application/json")
                else { return nil }
                query = ResolveRoutes.Query(flatBody: request.body)
            } else {
                query = request.text(request.head.target).flatMap { try? ResolveRoutes.Query(uri: URI($0)) }
            }
            return query.flatMap(resolve.answerInMemory)
        case .share(let token):
            // Several User-Agent fields are joined by Hummingbird: rare enough to leave to it.
            guard request.head.userAgentCount <= 1 else { return nil }
            return share.pageInMemory(
                token: token, host: request.text(request.head.host), userAgent: request.text(request.head.userAgent))
        }
    }
}
