internal import Yams

/// What opens instead of a route a state may not open: `intercepts`.
extension ManifestParser {
    /// `intercepts`, first match wins: the states and routes each applies to, the route shown instead and whether
    /// the original target is kept as a continuation.
    func parseIntercepts(_ node: Node?, in manifest: AppManifest, pendingRoutes: inout RouteReferences) -> [AppManifest.Intercept] {
        var intercepts: [AppManifest.Intercept] = []
        for item in reader.list(node, context: "intercepts") {
            let fields = reader.mapping(item, context: "an intercept", allowed: ["states", "routes", "route", "continuation"],
                                        required: ["states", "route"])
            guard let routeNode = fields["route"], let route = reader.string(routeNode, context: "route") else { continue }
            pendingRoutes.append((route, routeNode))
            let routes = reader.strings(fields["routes"], context: "routes")
            pendingRoutes += routes
            intercepts.append(AppManifest.Intercept(
                states: reader.strings(fields["states"], context: "states").map { checkState($0.0, $0.1, manifest) },
                routes: routes.map(\.0), route: route,
                continuation: reader.bool(fields["continuation"], context: "continuation") ?? true))
        }
        return intercepts
    }
}
