import HTTPTypes
import Hummingbird
package import HummingbirdCore
package import NIOCore

/// One route of the table both entrances read (`HotRouteTable`): declared once, with its method, path shape,
/// rate-limit class, body rule and handlers, so that it cannot answer differently on the two paths.
///
/// `answer` is the route's full handler (Hummingbird's entrance: it may read the store, ask an origin, throw an
/// `APIError`). `answerFromMemory`, when the route has one, is the same logic in its memory-only form for the
/// event-loop fast path: it returns the very response `answer` would give, or nil — with nothing counted — when
/// memory has not got all it needs (a link record to read, a preview to fetch, a request to refuse), and the
/// request then goes to Hummingbird, which answers it with `answer`.
package struct HotRoute: Sendable {
    /// The methods hot routes take.
    package enum Method: Sendable, Equatable {
        case get, post

        /// As Hummingbird names it.
        var http: HTTPRequest.Method { self == .get ? .get : .post }
    }

    /// One segment of a path shape: a literal, or a parameter (`{token}`).
    package enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// Whether the per-client rate limit applies, and what a request costs.
    package enum RateLimit: Sendable, Equatable {
        /// Not limited (health checks).
        case none
        /// Tokens of the client's bucket per request (`rateLimitPerSecond`, `rateLimitBurst`), as `Cost` says.
        case perClient(Cost)
    }

    /// What a request of a rate-limited route costs (`RequestCost`).
    package enum Cost: Sendable, Equatable {
        /// 1, or the highest `cost` of the runs whose exact length of base64url characters its target or body
        /// carries (the server's expensive tokens and ids: `RequestCost.byToken`).
        case byRuns([Run])
        /// 1 plus 1 per `bytesPerToken` bytes of its body.
        case byBodySize(bytesPerToken: Int)
    }

    /// A run of base64url characters of one exact length, and what a request carrying one costs.
    package struct Run: Sendable, Equatable {
        let length: Int
        let cost: Double

        /// A run of exactly `length` characters, costing `cost`.
        package init(length: Int, cost: Double) {
            self.length = length
            self.cost = cost
        }
    }

    /// What body the route reads: at most `maxBytes`, of media type `mediaType` (413 and 415 otherwise).
    package struct Body: Sendable, Equatable {
        let maxBytes: Int
        let mediaType: String

        /// A body of at most `maxBytes` bytes of media type `mediaType`.
        package init(maxBytes: Int, mediaType: String) {
            self.maxBytes = maxBytes
            self.mediaType = mediaType
        }
    }

    let method: Method
    let path: [Segment]
    /// The path shape as Hummingbird writes it, which is also the `route` label of the request metrics
    /// (`/s/{token}`), on both entrances.
    let pattern: String
    let rateLimit: RateLimit
    /// The body the route reads; nil for none.
    let body: Body?
    /// The full handler (Hummingbird's entrance).
    let answer: @Sendable (HotRequest) async throws -> Response
    /// The memory-only handler (the event-loop fast path); nil for a route the fast path never answers.
    let answerFromMemory: (@Sendable (HotRequest) -> ReadyResponse?)?

    /// A route from its path shape written as Hummingbird writes it (`/s/{token}`).
    package init(
        _ method: Method, _ path: String, rateLimit: RateLimit, body: Body? = nil,
        answer: @escaping @Sendable (HotRequest) async throws -> Response,
        answerFromMemory: (@Sendable (HotRequest) -> ReadyResponse?)? = nil
    ) {
        self.method = method
        self.path = path.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        self.pattern = "/" + self.path.map { segment in
            switch segment {
            case .literal(let text): text
            case .parameter(let name): "{\(name)}"
            }
        }.joined(separator: "/")
        self.rateLimit = rateLimit
        self.body = body
        self.answer = answer
        self.answerFromMemory = answerFromMemory
    }

    /// The name of the path's parameter, if it has one.
    var parameterName: String? {
        for case .parameter(let name) in path { return name }
        return nil
    }
}

/// A request to a hot route as either entrance holds it; each part is read only when a handler asks for it, so
/// the fast path makes no string a route does not need.
package struct HotRequest {
    /// Where the parts come from.
    enum Source {
        /// Hummingbird's request and the route's path parameter.
        case hummingbird(Request, parameter: String?)
        /// The connection's bytes, as the fast path scanned them.
        case bytes(FastRequest)
    }

    let source: Source
    /// The body, read whole within the route's cap (empty for a route without one).
    package let body: ByteBuffer

    /// The path parameter (`{token}`), raw as it is in the target.
    package var parameter: String? {
        switch source {
        case .hummingbird(_, let parameter): parameter
        case .bytes(let request): request.text(request.parameter)
        }
    }

    /// The request target as a URI (path and query).
    package var uri: URI {
        switch source {
        case .hummingbird(let request, _): request.uri
        case .bytes(let request): URI(request.text(request.head.target) ?? "/")
        }
    }

    /// The `Host` (authority), port included.
    package var host: String? {
        switch source {
        case .hummingbird(let request, _): request.head.authority
        case .bytes(let request): request.text(request.head.host)
        }
    }

    /// The rate-limit tokens this request costs under `cost`.
    func cost(_ cost: HotRoute.Cost) -> Double {
        switch cost {
        case .byBodySize(let bytesPerToken):
            return 1 + Double(body.readableBytes / bytesPerToken)
        case .byRuns(let runs):
            return body.withUnsafeReadableBytes { body in
                switch source {
                case .hummingbird(let request, _):
                    var target = request.uri.string
                    return target.withUTF8 { Base64URLRun.cost(runs, UnsafeRawBufferPointer($0), body) }
                case .bytes(let request):
                    return request.bytes.withUnsafeReadableBytes { bytes in
                        Base64URLRun.cost(runs, UnsafeRawBufferPointer(rebasing: bytes[request.head.target]), body)
                    }
                }
            }
        }
    }

    /// Whether it is a `HEAD` request (Hummingbird's entrance only: the fast path hands `HEAD` on), whose answer
    /// goes without its body and which counts no click.
    package var isHead: Bool {
        switch source {
        case .hummingbird(let request, _): request.method == .head
        case .bytes: false
        }
    }

    /// The `User-Agent`.
    package var userAgent: String? {
        switch source {
        case .hummingbird(let request, _): request.headers[.userAgent]
        case .bytes(let request): request.text(request.head.userAgent)
        }
    }

    /// The `Referer`.
    package var referer: String? {
        switch source {
        case .hummingbird(let request, _): request.headers[.referer]
        case .bytes(let request): request.text(request.head.referer)
        }
    }

    /// The query of the target (after `?`, before any `#`), raw; nil without one.
    package var query: Substring? {
        let target: String?
        switch source {
        case .hummingbird(let request, _):
            target = request.uri.string
        case .bytes(let request):
            // Most share URLs have no query: look for the `?` without making a string.
            let view = request.bytes.readableBytesView
            let start = view.startIndex + request.head.target.lowerBound
            guard view[start..<(start + request.head.target.count)].contains(UInt8(ascii: "?")) else { return nil }
            target = request.text(request.head.target)
        }
        guard let target, let mark = target.firstIndex(of: "?") else { return nil }
        return target[target.index(after: mark)...].prefix { $0 != "#" }
    }
}
