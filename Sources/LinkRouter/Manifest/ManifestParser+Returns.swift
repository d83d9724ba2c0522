internal import Yams

/// Return paths: `returns`.
extension ManifestParser {
    /// `returns`: per closed route, the route each state returns to and the target of each named action.
    func parseReturns(_ node: Node?, in manifest: AppManifest, pendingRoutes: inout RouteReferences) -> [AppManifest.ReturnRule] {
        var returns: [AppManifest.ReturnRule] = []
        for item in reader.list(node, context: "returns") {
            let fields = reader.mapping(item, context: "a return rule", allowed: ["from", "close", "actions"], required: ["from"])
            guard let fromNode = fields["from"], let from = reader.string(fromNode, context: "from") else { continue }
            pendingRoutes.append((from, fromNode))
            var rule = AppManifest.ReturnRule(from: from, close: [:], actions: [:])
            for (state, keyNode, value) in reader.pairs(fields["close"], context: "close") {
                _ = checkState(state, keyNode, manifest)
                if let route = reader.string(value, context: "close.\(state)") {
                    rule.close[state] = route
                    pendingRoutes.append((route, value))
                }
            }
            rule.actions = parseReturnActions(fields["actions"], pendingRoutes: &pendingRoutes)
            returns.append(rule)
        }
        return returns
    }

    /// A return rule's `actions`: action name → the route it opens and that route's params.
    private func parseReturnActions(_ node: Node?, pendingRoutes: inout RouteReferences) -> [String: RouteTarget] {
        var actions: [String: RouteTarget] = [:]
        for (action, _, value) in reader.pairs(node, context: "actions") {
            let spec = reader.mapping(value, context: "action '\(action)'", allowed: ["route", "params"], required: ["route"])
            guard let routeNode = spec["route"], let route = reader.string(routeNode, context: "route") else { continue }
            pendingRoutes.append((route, routeNode))
            var params: [String: String] = [:]
            for (name, _, valueNode) in reader.pairs(spec["params"], context: "params") {
                params[name] = reader.string(valueNode, context: "param \(name)")
            }
            actions[action] = RouteTarget(route: route, params: params)
        }
        return actions
    }
}
