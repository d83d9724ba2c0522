internal import Yams

/// Turns a YAML tree into an `AppManifest`, then cross-checks it. Problems go to the reader.
///
/// `parse` reads the sections in a fixed order (the order problems are reported in); each section has its parser in
/// a `ManifestParser+<Section>.swift` file next to this one.
struct ManifestParser {
    let reader: YAMLReader

    static let topKeys = ["app", "name", "schemes", "hosts", "ports", "caseInsensitivePaths", "ios", "android",
                          "webFallback", "states", "unauthenticatedState", "tabStates", "stateRoots", "tabs", "tabBar",
                          "routes", "returns", "intercepts", "share", "notFoundRoute", "ics", "origin"]
    static let routeKeys = ["id", "tab", "layer", "presentation", "states", "patterns", "query", "params", "parent", "shareable", "since"]

    /// Route ids named by a section, each with the node it is written at: checked once every section is read.
    typealias RouteReferences = [(String, Node)]

    /// The manifest in `root`: every section read, then the route references, the tabs and the patterns checked.
    func parse(_ root: Node) -> AppManifest? {
        let top = reader.mapping(root, context: "the manifest", allowed: Self.topKeys,
                                 required: ["app", "name", "states", "unauthenticatedState", "routes"])
        var manifest = parseApp(top)
        var pendingRoutes: RouteReferences = []
        parseStates(top, into: &manifest, pendingRoutes: &pendingRoutes)
        let routeNodes = parseRoutes(top["routes"], into: &manifest)
        let tabIDs = parseTabs(top["tabs"], into: &manifest, pendingRoutes: &pendingRoutes)
        checkRouteReferences(manifest, tabIDs: tabIDs, routeNodes: routeNodes, pendingRoutes: &pendingRoutes)
        reportParentCycles(manifest, parentNodes: routeNodes.parents)
        manifest.returns = parseReturns(top["returns"], in: manifest, pendingRoutes: &pendingRoutes)
        manifest.intercepts = parseIntercepts(top["intercepts"], in: manifest, pendingRoutes: &pendingRoutes)
        manifest.share = parseShare(top["share"], in: manifest, pendingRoutes: &pendingRoutes)
        checkShareableRoutes(manifest, routeNodes: routeNodes, shareNode: top["share"])
        manifest.notFoundRoute = parseNotFoundRoute(top["notFoundRoute"], pendingRoutes: &pendingRoutes)
        manifest.ics = parseICS(top["ics"], pendingRoutes: &pendingRoutes)
        manifest.origin = parseOrigin(top["origin"])

        reportUnknownRoutes(pendingRoutes, in: manifest)
        if top["tabs"] != nil, manifest.tabs.isEmpty, reader.errors.isEmpty {
            reader.fail(.missingKey, top["tabs"], "tabs is empty", hint: "declare at least one tab or remove 'tabs'")
        }
        checkPatterns(manifest)
        return manifest
    }

    /// The presentation named `text`, or nil (reported, with the nearest name as a hint).
    func presentation(_ text: String, _ node: Node) -> Presentation? {
        if let value = Presentation(rawValue: text) { return value }
        let names = Presentation.allCases.map(\.rawValue)
        reader.fail(.badValue, node, "unknown presentation '\(text)'",
                    hint: YAMLReader.closest(text, in: names).map { "did you mean '\($0)'?" } ?? "use one of: \(names.joined(separator: ", "))")
        return nil
    }

    /// `state`, reported when the manifest's `states` do not declare it.
    func checkState(_ state: String, _ node: Node, _ manifest: AppManifest) -> String {
        if !manifest.states.contains(state) {
            reader.fail(.unknownState, node, "state '\(state)' is not declared", hint: hintFor(state, in: manifest.states, what: "state"))
        }
        return state
    }

    /// The hint for an undeclared `word`: the nearest candidate, else to declare it.
    func hintFor(_ word: String, in candidates: [String], what: String) -> String {
        if let close = YAMLReader.closest(word, in: candidates) { return "did you mean '\(close)'?" }
        return "declare the \(what) or use one that exists"
    }

    /// Reports each route reference that names no declared route, in the order the sections named them.
    private func reportUnknownRoutes(_ pendingRoutes: RouteReferences, in manifest: AppManifest) {
        for (route, node) in pendingRoutes where manifest.routes[route] == nil {
            reader.fail(.unknownRoute, node, "unknown route '\(route)'", hint: hintFor(route, in: manifest.routeOrder, what: "route"))
        }
    }

    /// Reports each pair of patterns that can match the same URL.
    private func checkPatterns(_ manifest: AppManifest) {
        switch RouteMatcher.compile(manifest) {
        case .success:
            break
        case .failure(let collisions):
            for collision in collisions.list {
                reader.fail(.ambiguousPatterns, at: collision.second.mark,
                            "pattern '\(collision.second.pattern)' of \(collision.second.route) and '\(collision.first.pattern)' of \(collision.first.route) can match the same URL: \(collision.reason)",
                            hint: "make one of them more specific (a literal segment or a narrower param type)")
            }
        }
    }
}
