package import Hummingbird
import HummingbirdCore
package import Logging
import NIOCore

/// The table of hot routes, read by both entrances (ARCHITECTURE.md draws the way of a request):
/// - Hummingbird's router, through `register(on:)`: every route, answered by its full handler after the rate limit
///   and the body rule;
/// - the event-loop fast path (`EdgeHandler`), through `candidate(_:bytes:at:)` and `answer(_:client:)`: the
///   routes with a memory-only handler, matched on the request's bytes, answered only when memory has all they need.
///
/// What both keep alike: the path a target names (segments split as Hummingbird's router splits them), the rate
/// limit (a request is charged once, by whichever entrance answers it), the response bytes (`ReadyResponse`) and the
/// request metrics (`route` labelled with the route's pattern).
package final class HotRouteTable: Sendable {
    let routes: [HotRoute]
    let limiter: RateLimiter?
    let metrics: HTTPMetrics
    /// Where fast-path answers are logged; nil (and nothing checked per request) unless the log level is debug.
    let requestLog: Logger?
    /// The largest body a fast-path route reads: a POST with a longer one goes to Hummingbird (which answers 413).
    let maxFastBodyBytes: Int
    /// The routes the fast path may answer, with their literal segments as bytes (indices into `routes`).
    private let fastMatchers: [FastMatcher]

    /// A route's path shape as bytes, for matching on the connection's bytes.
    private struct FastMatcher: Sendable {
        enum Segment: Sendable {
            case literal([UInt8])
            case parameter
        }

        let index: Int
        let method: HotRoute.Method
        let segments: [Segment]
    }

    /// - Parameters: see the properties.
    package init(routes: [HotRoute], limiter: RateLimiter?, metrics: HTTPMetrics, requestLog: Logger?) {
        self.routes = routes
        self.limiter = limiter
        self.metrics = metrics
        self.requestLog = requestLog
        fastMatchers = routes.indices.compactMap { index in
            let route = routes[index]
            guard route.answerFromMemory != nil else { return nil }
            let segments = route.path.map { segment -> FastMatcher.Segment in
                switch segment {
                case .literal(let text): .literal(Array(text.utf8))
                case .parameter: .parameter
                }
            }
            return FastMatcher(index: index, method: route.method, segments: segments)
        }
        maxFastBodyBytes = routes.filter { $0.answerFromMemory != nil }.compactMap { $0.body?.maxBytes }.max() ?? 0
    }

    // MARK: Hummingbird's entrance

    /// Registers every route on Hummingbird's router: the rate limit, then the body rule, then the full handler.
    package func register(on router: some RouterMethods<LinkdRequestContext>) {
        for route in routes {
            router.on(RouterPath(route.pattern), method: route.method.http) { [self] request, context in
                try await answer(route, request, context)
            }
        }
    }

    private func answer(_ route: HotRoute, _ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        // One token to start (a request refused for its body is charged too); the rest of its cost once the body is
        // read. The fast path charges the whole cost once it has answered: a request is charged once either way.
        let limited = route.rateLimit != .none ? limiter : nil
        if let limited, !limited.allow(context.clientAddress) {
            let seconds = limited.secondsUntilAvailable(context.clientAddress)
            throw APIError.rateLimited("too many requests from this address; retry in \(seconds) s", retryAfterSeconds: seconds)
        }
        var body = ByteBuffer()
        if let rule = route.body { body = try await JSONBody.collect(request, maxBytes: rule.maxBytes, contentType: rule.mediaType) }
        let parameter = route.parameterName.flatMap { context.parameters.get($0) }
        let hot = HotRequest(source: .hummingbird(request, parameter: parameter), body: body)
        if let limited, case .perClient(let rule) = route.rateLimit {
            let cost = hot.cost(rule)
            if cost > 1 { limited.charge(context.clientAddress, cost: cost - 1) }
        }
        return try await route.answer(hot)
    }

    // MARK: The fast path's entrance

    /// The request whose head is `head` and bytes `bytes` (head and body) if a fast-path route matches it; nil for
    /// every other request. Several `User-Agent` or `Content-Type` fields (Hummingbird joins them) go to Hummingbird.
    func candidate(_ head: ScannedHead, bytes: ByteBuffer, at started: ContinuousClock.Instant) -> FastRequest? {
        guard head.method != .other, head.userAgentCount <= 1, head.refererCount <= 1, head.contentTypeCount <= 1,
              let (index, parameter) = bytes.withUnsafeReadableBytes({
                  match(head.method, target: UnsafeRawBufferPointer(rebasing: $0[head.target]))
              })
        else { return nil }
        let offset = head.target.lowerBound
        return FastRequest(
            head: head, bytes: bytes, route: index,
            parameter: parameter.map { (offset + $0.lowerBound)..<(offset + $0.upperBound) }, started: started)
    }

    /// The fast-path route a GET or POST of `target` names, and where its parameter is in `target`. The path (the
    /// target up to `?`, as Hummingbird's `URI` reads it) is split as Hummingbird's router splits it, empty segments
    /// ignored, so both agree on what a path names. Byte-level: this runs for every request.
    func match(_ method: ScannedHead.Method, target: UnsafeRawBufferPointer) -> (route: Int, parameter: Range<Int>?)? {
        guard method != .other, target.first == UInt8(ascii: "/") else { return nil }  // origin form only
        let wanted: HotRoute.Method = method == .get ? .get : .post
        let end = target.firstIndex(of: UInt8(ascii: "?")) ?? target.count
        for matcher in fastMatchers where matcher.method == wanted {
            if let parameter = Self.match(matcher.segments, target, end: end) { return (matcher.index, parameter) }
        }
        return nil
    }

    /// `match(_:target:)` of a target given as text, naming the route by its pattern (for the tests).
    func match(_ method: ScannedHead.Method, target: String) -> (pattern: String, parameter: String?)? {
        Array(target.utf8).withUnsafeBytes { pointer in
            match(method, target: pointer).map { found in
                (routes[found.route].pattern,
                 found.parameter.map { String(decoding: UnsafeRawBufferPointer(rebasing: pointer[$0]), as: UTF8.self) })
            }
        }
    }

    /// Whether the path `target[..<end]` has exactly `segments` (non-empty segments, in order); `.some(range)` of the
    /// parameter (`.some(nil)` for a path without one) when it does, nil when it does not.
    private static func match(
        _ segments: [FastMatcher.Segment], _ target: UnsafeRawBufferPointer, end: Int
    ) -> Range<Int>?? {
        var parameter: Range<Int>?
        var next = 0
        var i = 0
        while true {
            while i < end, target[i] == UInt8(ascii: "/") { i += 1 }
            guard i < end else { return next == segments.count ? .some(parameter) : nil }
            let start = i
            while i < end, target[i] != UInt8(ascii: "/") { i += 1 }
            guard next < segments.count else { return nil }
            switch segments[next] {
            case .literal(let bytes):
                guard i - start == bytes.count, bytes.withUnsafeBytes({ $0.elementsEqual(target[start..<i]) }) else { return nil }
            case .parameter:
                parameter = start..<i
            }
            next += 1
        }
    }

    /// The answer from memory, with the request counted (rate limit, metrics); nil, with nothing counted, to hand
    /// the request to Hummingbird. `client` is the caller's address.
    func answer(_ request: FastRequest, client: String) -> ReadyResponse? {
        let route = routes[request.route]
        guard let fromMemory = route.answerFromMemory else { return nil }
        // The body rule as Hummingbird's entrance applies it; anything it would refuse is Hummingbird's to answer.
        if let rule = route.body {
            guard request.head.contentLength <= rule.maxBytes,
                  JSONBody.hasMediaType(request.text(request.head.contentType), rule.mediaType)
            else { return nil }
        } else if request.head.contentLength != 0 {
            return nil
        }
        // An empty bucket: Hummingbird answers the 429. The bucket is charged only once the answer is made, so a
        // request is charged once by whichever path answers it (two connections of one client on two event loops
        // may both pass the peek for the last token: one request over, at most one per loop).
        let limited = route.rateLimit != .none ? limiter : nil
        if let limited, !limited.peek(client) { return nil }
        let hot = HotRequest(source: .bytes(request), body: request.body)
        guard let response = fromMemory(hot) else { return nil }
        if let limited, case .perClient(let cost) = route.rateLimit { limited.charge(client, cost: hot.cost(cost)) }
        metrics.recordFastPathAnswer()
        let duration = ContinuousClock.now - request.started
        let method = request.head.method == .post ? "POST" : "GET"
        metrics.recordRequest(method: method, route: route.pattern, status: response.status.code, duration: duration)
        requestLog?.logRequest(method: method, route: route.pattern, status: response.status.code, duration: duration)
        return response
    }
}

/// A request the fast path is considering: its bytes (head, then body), where its parts are, and its route.
package struct FastRequest {
    let head: ScannedHead
    /// The whole request: head, then body.
    let bytes: ByteBuffer
    /// The route's index in `HotRouteTable.routes`.
    let route: Int
    /// Where the path parameter is (offsets from the front of `bytes`).
    let parameter: Range<Int>?
    let started: ContinuousClock.Instant

    /// The text of a part of the head.
    func text(_ range: Range<Int>?) -> String? {
        range.flatMap { bytes.getString(at: bytes.readerIndex + $0.lowerBound, length: $0.count) }
    }

    /// The body.
    var body: ByteBuffer { bytes.getSlice(at: bytes.readerIndex + head.headLength, length: head.contentLength) ?? ByteBuffer() }
}
