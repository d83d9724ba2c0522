internal import Yams

/// The session states: `states`, `unauthenticatedState`, `tabStates` and `stateRoots`.
extension ManifestParser {
    /// The declared states (each once), the unauthenticated state, the states with the tab shell (all states when
    /// `tabStates` is absent) and the root route of each state without it.
    func parseStates(_ top: [String: Node], into manifest: inout AppManifest, pendingRoutes: inout RouteReferences) {
        var stateNodes: [String: Node] = [:]
        for (state, node) in reader.strings(top["states"], context: "states") {
            if stateNodes[state] != nil {
                reader.fail(.duplicateID, node, "state '\(state)' is declared twice", hint: "remove one")
            }
            stateNodes[state] = node
            manifest.states.append(state)
        }
        if let node = top["unauthenticatedState"], let state = reader.string(node, context: "unauthenticatedState") {
            manifest.unauthenticatedState = checkState(state, node, manifest)
        }
        manifest.tabStates = reader.strings(top["tabStates"], context: "tabStates").map { checkState($0.0, $0.1, manifest) }
        if top["tabStates"] == nil { manifest.tabStates = manifest.states }
        for (state, keyNode, value) in reader.pairs(top["stateRoots"], context: "stateRoots") {
            _ = checkState(state, keyNode, manifest)
            if let route = reader.string(value, context: "stateRoots.\(state)") {
                manifest.stateRoots[state] = route
                pendingRoutes.append((route, value))
            }
        }
    }
}
