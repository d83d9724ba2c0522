import LinkRouter

/// What every generator reads from a manifest, in a fixed order (the manifest's), so the output is the same for the
/// same manifest whatever order its dictionaries iterate in.
struct RouteTable {
    /// One route.
    struct Route {
        /// The id, verbatim.
        let id: String
        /// The owning tab, nil for the modal layer.
        let tab: String?
        /// The params, in order: path params as the patterns first name them, then query params, then `params`
        /// (each by name).
        let params: [Param]
        /// The URL path patterns, as written.
        let patterns: [PathPattern]
    }

    /// One param of a route.
    struct Param {
        /// The name, as the manifest and linkd's resolutions spell it.
        let name: String
        /// The value type.
        let type: ParamType
        /// Whether a share link to the route must carry it (`AppManifest.Route.DeclaredParam.required`).
        let required: Bool
    }

    /// One tab.
    struct Tab {
        /// The id.
        let id: String
        /// The route at its root.
        let root: String
        /// Whether the app launches to it.
        let isDefault: Bool
    }

    let app: String
    let displayName: String
    let routes: [Route]
    let tabs: [Tab]
    let states: [String]
    let unauthenticatedState: String
    /// Custom schemes, lowercase.
    let schemes: [String]
    /// https hosts, lowercase.
    let hosts: [String]
    /// The share path (`/s/:token`), if the manifest has one.
    let sharePath: PathPattern?
    /// The share section's custom-path patterns (`share.pathPatterns`).
    let sharePathPatterns: [CustomPathPattern]
    /// The hosts the share path is recognised on.
    let shareHosts: [String]
    /// Whether literal path segments compare case-insensitively.
    let caseInsensitivePaths: Bool
    /// The Android package, if any.
    let androidPackage: String?

    init(_ manifest: AppManifest) {
        app = manifest.app
        displayName = manifest.displayName
        routes = manifest.routeOrder.compactMap { id in
            guard let route = manifest.routes[id] else { return nil }
            let patterns = route.patterns.compactMap { try? PathPattern(parsing: $0) }
            return Route(id: id, tab: route.tab, params: Self.params(of: route, patterns: patterns), patterns: patterns)
        }
        tabs = manifest.tabs.sorted { $0.order < $1.order }.map { Tab(id: $0.id, root: $0.root, isDefault: $0.id == manifest.defaultTab?.id) }
        states = manifest.states
        unauthenticatedState = manifest.unauthenticatedState
        schemes = manifest.schemes
        hosts = manifest.hosts
        sharePath = manifest.share.flatMap { try? PathPattern(parsing: $0.path) }
        sharePathPatterns = manifest.share?.pathPatterns ?? []
        shareHosts = manifest.shareHosts
        caseInsensitivePaths = manifest.caseInsensitivePaths
        androidPackage = manifest.androidPackage
    }

    /// The route's params in the table's order: those of its `patterns` (parsed), then its query's, then the rest.
    private static func params(of route: AppManifest.Route, patterns: [PathPattern]) -> [Param] {
        let declared = route.declaredParams
        var names: [String] = []
        for pattern in patterns {
            for name in pattern.paramNames where !names.contains(name) { names.append(name) }
        }
        names += route.query.keys.sorted().filter { !names.contains($0) }
        names += route.params.keys.sorted().filter { !names.contains($0) }
        return names.compactMap { name in declared[name].map { Param(name: name, type: $0.type, required: $0.required) } }
    }

    /// The name of the generated namespace (`HandzLinks`, `CoinLinks`): the app id in upper camel case.
    var namespace: String { IdentifierStyle.upperCamel.apply(app, fallback: "App") + "Links" }

    /// The route `id`, if the manifest has it.
    func route(_ id: String) -> Route? { routes.first { $0.id == id } }
}
