internal import Yams

/// The navigation map: `routes` (each route's fields, then the cross-checks of tabs and parents) and `notFoundRoute`.
extension ManifestParser {
    /// Where each route's `id` and `parent` are written, for the checks made once the tabs are read.
    struct RouteNodes {
        /// Route id → the node of its `id`.
        var ids: [String: Node] = [:]
        /// Route id → the node of its `parent`, for routes that name one.
        var parents: [String: Node] = [:]
        /// Route id → the node of its `shareable`, for routes that have one.
        var shareable: [String: Node] = [:]
    }

    /// `routes`: each route once, in manifest order, with its fields and parent.
    func parseRoutes(_ node: Node?, into manifest: inout AppManifest) -> RouteNodes {
        var routeNodes = RouteNodes()
        for item in reader.list(node, context: "routes") {
            let fields = reader.mapping(item, context: "a route", allowed: Self.routeKeys,
                                        required: ["id", "presentation", "states"])
            guard let id = reader.string(fields["id"], context: "route id") else { continue }
            if let previous = routeNodes.ids[id] {
                reader.fail(.duplicateID, fields["id"], "route '\(id)' is declared twice (first at line \(reader.mark(previous).line))",
                            hint: "give each route its own id")
                continue
            }
            routeNodes.ids[id] = fields["id"]
            routeNodes.shareable[id] = fields["shareable"]
            var route = parseRoute(id, fields, manifest)
            if let parentNode = fields["parent"], let parent = reader.string(parentNode, context: "parent of \(id)") {
                route.parent = parent
                routeNodes.parents[id] = parentNode
            }
            manifest.routes[id] = route
            manifest.routeOrder.append(id)
        }
        return routeNodes
    }

    /// One route's fields but its parent: tab, shareable, presentation, layer, states, patterns and query params.
    private func parseRoute(_ id: String, _ fields: [String: Node], _ manifest: AppManifest) -> AppManifest.Route {
        var route = AppManifest.Route(
            id: id, tab: reader.string(fields["tab"], context: "tab of \(id)"),
            presentation: .push, states: [], patterns: [], query: [:], parent: nil,
            shareable: reader.bool(fields["shareable"], context: "shareable of \(id)") ?? false,
            mark: reader.mark(fields["id"]))
        if let node = fields["presentation"], let text = reader.string(node, context: "presentation of \(id)"),
           let value = presentation(text, node) {
            route.presentation = value
        }
        checkLayer(fields["layer"], of: id, tab: route.tab)
        route.states = reader.strings(fields["states"], context: "states of \(id)").map { checkState($0.0, $0.1, manifest) }
        for (text, node) in reader.strings(fields["patterns"], context: "patterns of \(id)") {
            do {
                _ = try PathPattern(parsing: text)
                route.patterns.append(text)
                route.patternMarks.append(reader.mark(node))
            } catch {
                reader.fail(.badPattern, node, error.message, hint: error.hint)
            }
        }
        route.query = parseQuery(fields["query"], of: id)
        route.params = parseParams(fields["params"], of: id, declaredInURL: route)
        route.since = parseSince(fields["since"], of: id)
        return route
    }

    /// A route's `since`: the first app version that has it, `"1.3"` for every platform or `{ ios: "1.3", android:
    /// "1.4" }` per platform.
    private func parseSince(_ node: Node?, of id: String) -> AppVersionRequirement? {
        guard let node else { return nil }
        var versions: [AppPlatform: AppVersion] = [:]
        let hint = "write a dotted version such as \"1.3\" (at most 4 numbers), or { ios: \"1.3\", android: \"1.4\" }"
        if case .mapping = node {
            let fields = reader.mapping(node, context: "since of \(id)", allowed: AppPlatform.allCases.map(\.rawValue))
            for platform in AppPlatform.allCases {
                guard let valueNode = fields[platform.rawValue], let text = reader.string(valueNode, context: "since.\(platform.rawValue) of \(id)") else { continue }
                guard let version = AppVersion(text) else {
                    reader.fail(.badValue, valueNode, "since.\(platform.rawValue) of \(id) is not an app version: '\(text.prefix(40))'", hint: hint)
                    continue
                }
                versions[platform] = version
            }
        } else if let text = reader.string(node, context: "since of \(id)") {
            guard let version = AppVersion(text) else {
                reader.fail(.badValue, node, "since of \(id) is not an app version: '\(text.prefix(40))'", hint: hint)
                return nil
            }
            for platform in AppPlatform.allCases { versions[platform] = version }
        }
        return versions.isEmpty ? nil : AppVersionRequirement(versions: versions)
    }

    /// A route's `layer`: `tab` (the route names a tab) or `modal` (it names none).
    private func checkLayer(_ node: Node?, of id: String, tab: String?) {
        if let layerNode = node, let layer = reader.string(layerNode, context: "layer of \(id)") {
            if layer != "tab" && layer != "modal" {
                reader.fail(.badValue, layerNode, "layer '\(layer)' of \(id) is not tab or modal", hint: "write 'tab' or 'modal'")
            } else if layer == "tab" && tab == nil {
                reader.fail(.missingKey, layerNode, "route \(id) is in the tab layer but names no tab", hint: "add 'tab: <tab id>'")
            } else if layer == "modal" && tab != nil {
                reader.fail(.badValue, layerNode, "route \(id) is in the modal layer but names a tab", hint: "remove 'tab' or write 'layer: tab'")
            }
        }
    }

    /// A route's `query`: param name → its type (a `ParamType`) and whether it is required.
    private func parseQuery(_ node: Node?, of id: String) -> [String: AppManifest.QueryParam] {
        var query: [String: AppManifest.QueryParam] = [:]
        for (name, _, value) in reader.pairs(node, context: "query of \(id)") {
            let spec = reader.mapping(value, context: "query param '\(name)' of \(id)", allowed: ["type", "required"], required: ["type"])
            var param = AppManifest.QueryParam(type: .string, required: reader.bool(spec["required"], context: "required") ?? false)
            if let typeNode = spec["type"], let typeName = reader.string(typeNode, context: "type") {
                if let type = ParamType(rawValue: typeName) {
                    param.type = type
                } else {
                    reader.fail(.badValue, typeNode, "unknown param type '\(typeName)' for query param '\(name)'",
                                hint: "use one of: \(ParamType.allCases.map(\.rawValue).joined(separator: ", "))")
                }
            }
            query[name] = param
        }
        return query
    }

    /// A route's `params`: name → type of the params it takes outside its URL (a share link's record carries them,
    /// e.g. the `flowId` of Handz's `ShareLink/FlowView`). A name its patterns or query already declare is refused.
    private func parseParams(_ node: Node?, of id: String, declaredInURL route: AppManifest.Route) -> [String: ParamType] {
        var params: [String: ParamType] = [:]
        let inURL = Set(route.declaredURLParams.keys)
        for (name, keyNode, value) in reader.pairs(node, context: "params of \(id)") {
            guard let typeName = reader.string(value, context: "type of param '\(name)' of \(id)") else { continue }
            guard let type = ParamType(rawValue: typeName) else {
                reader.fail(.badValue, value, "unknown param type '\(typeName)' for param '\(name)' of \(id)",
                            hint: "use one of: \(ParamType.allCases.map(\.rawValue).joined(separator: ", "))")
                continue
            }
            if inURL.contains(name) {
                reader.fail(.duplicateID, keyNode, "param '\(name)' of \(id) is already declared by its patterns or query",
                            hint: "remove it from 'params'")
                continue
            }
            params[name] = type
        }
        return params
    }

    /// A manifest that marks a route `shareable` must be able to make share links: refused without a `share` section
    /// (`POST /v1/links` could only answer "no share configuration").
    func checkShareableRoutes(_ manifest: AppManifest, routeNodes: RouteNodes, shareNode: Node?) {
        guard shareNode == nil else { return }
        for id in manifest.routeOrder where manifest.routes[id]?.shareable == true {
            reader.fail(.missingKey, routeNodes.shareable[id] ?? routeNodes.ids[id],
                        "route \(id) is shareable but the manifest has no 'share' section, so no share link can be made",
                        hint: "add a 'share' section (path, route, unavailableRoute; docs/manifest.md) or remove 'shareable: true'")
        }
    }

    /// Each route's tab is a declared tab; each route's parent becomes a route reference.
    func checkRouteReferences(_ manifest: AppManifest, tabIDs: Set<String>, routeNodes: RouteNodes,
                              pendingRoutes: inout RouteReferences) {
        for id in manifest.routeOrder {
            guard let route = manifest.routes[id] else { continue }
            if let tab = route.tab, !tabIDs.contains(tab) {
                reader.fail(.unknownTab, routeNodes.ids[id], "route \(id) names tab '\(tab)' that is not declared",
                            hint: hintFor(tab, in: Array(tabIDs), what: "tab"))
            }
            if let parent = route.parent, let node = routeNodes.parents[id] { pendingRoutes.append((parent, node)) }
        }
    }

    /// Reports each cycle of `parent` links once, at the parent of the first route on it in manifest order.
    func reportParentCycles(_ manifest: AppManifest, parentNodes: [String: Node]) {
        var reported = Set<String>()
        for id in manifest.routeOrder {
            var seen: [String] = [id]
            var current = manifest.routes[id]?.parent
            while let next = current, manifest.routes[next] != nil {
                if next == id {
                    if reported.insert(Set(seen).sorted().joined(separator: ",")).inserted {
                        reader.fail(.parentCycle, parentNodes[id], "parents form a cycle: \((seen + [id]).joined(separator: " → "))",
                                    hint: "remove the 'parent' that points back")
                    }
                    break
                }
                if seen.contains(next) { break }
                seen.append(next)
                current = manifest.routes[next]?.parent
            }
        }
    }

    /// `notFoundRoute`: the route shown for a URL that matches nothing.
    func parseNotFoundRoute(_ node: Node?, pendingRoutes: inout RouteReferences) -> String? {
        guard let node, let route = reader.string(node, context: "notFoundRoute") else { return nil }
        pendingRoutes.append((route, node))
        return route
    }
}
