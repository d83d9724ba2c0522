package import HTTPTypes
package import Hummingbird

/// Hummingbird's router as the routes see it: every route registered through it is registered on the router and
/// recorded (method and path pattern) in `catalog`, so what the server answers `405` and `Allow` with is read from
/// the routes as registered, never from a list kept by hand. Each `GET` route is registered for `HEAD` too, with
/// the same handler (`HeadResponder` drops the body on the way out).
///
/// Used while the server is built, on one task; `catalog` is the finished table to hand to the middleware.
package final class RouteRecorder<Context: RequestContext>: RouterMethods {
    /// The router the routes land on.
    package let router: Router<Context>
    private var entries: [RouteCatalog.Entry] = []

    /// A recorder registering on `router`.
    package init(router: Router<Context>) {
        self.router = router
    }

    @discardableResult
    package func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == Context {
        router.on(path, method: method, responder: responder)
        record(method, path)
        if method == .get {
            router.on(path, method: .head, responder: responder)
            record(.head, path)
        }
        return self
    }

    @discardableResult
    package func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }

    /// The routes recorded so far.
    package var catalog: RouteCatalog { RouteCatalog(entries: entries) }

    private func record(_ method: HTTPRequest.Method, _ path: RouterPath) {
        if let index = entries.firstIndex(where: { $0.path == path }) {
            entries[index].methods.append(method)
        } else {
            entries.append(RouteCatalog.Entry(path: path, methods: [method]))
        }
    }
}

/// The routes of a router: each path pattern with the methods registered on it.
package struct RouteCatalog: Sendable {
    /// One path pattern and its methods, in the order registered.
    struct Entry: Sendable {
        let path: RouterPath
        var methods: [HTTPRequest.Method]
    }

    /// What a path names: the pattern that matches it (the metrics label) and the methods it takes.
    package struct Match: Sendable, Equatable {
        /// The route's pattern as Hummingbird writes it (`/s/{token}`).
        let pattern: String
        /// Its methods in `Allow` order (`GET, HEAD, POST, PUT, PATCH, DELETE`, then any other by name).
        let methods: [HTTPRequest.Method]

        /// The `Allow` header value.
        var allow: String { methods.map(\.rawValue).joined(separator: ", ") }
    }

    let entries: [Entry]

    /// The route whose pattern matches `path` (the request's path, no query), as Hummingbird's router would pick
    /// it: segments split on `/` with empty ones ignored, a literal segment before a parameter; nil when no
    /// pattern matches.
    func match(path: String) -> Match? {
        let segments = path.split(separator: "/")
        var best: (entry: Entry, rank: [Int])?
        for entry in entries {
            let components = entry.path.components
            guard components.count == segments.count,
                  zip(components, segments).allSatisfy({ $0 ~= $1 })
            else { continue }
            let rank = components.map(Self.rank)
            if best == nil || rank.lexicographicallyPrecedes(best!.rank, by: >) { best = (entry, rank) }
        }
        return best.map { Match(pattern: $0.entry.path.description, methods: Self.ordered($0.entry.methods)) }
    }

    /// How specific a pattern segment is (higher wins), as Hummingbird's trie orders them.
    private static func rank(_ element: RouterPath.Element) -> Int {
        if element == element.description { return 2 }  // a literal equals its own text
        return element.description.hasPrefix("{") ? 1 : 0  // a parameter before a wildcard
    }

    private static let order: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete]

    private static func ordered(_ methods: [HTTPRequest.Method]) -> [HTTPRequest.Method] {
        let known = order.filter(methods.contains)
        let others = Set(methods).subtracting(order).sorted { $0.rawValue < $1.rawValue }
        return known + others
    }
}
