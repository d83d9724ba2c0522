internal import Yams

/// The tab bar: `tabs`.
extension ManifestParser {
    /// `tabs`: the tabs in order, each id once, at most one the default, each root a route reference. Returns the
    /// declared tab ids.
    func parseTabs(_ node: Node?, into manifest: inout AppManifest, pendingRoutes: inout RouteReferences) -> Set<String> {
        var tabIDs = Set<String>()
        var defaultCount = 0
        for (index, item) in reader.list(node, context: "tabs").enumerated() {
            let fields = reader.mapping(item, context: "a tab", allowed: ["id", "root", "default"], required: ["id", "root"])
            guard let id = reader.string(fields["id"], context: "tab id") else { continue }
            if !tabIDs.insert(id).inserted {
                reader.fail(.duplicateID, fields["id"], "tab '\(id)' is declared twice", hint: "give each tab its own id")
            }
            let isDefault = reader.bool(fields["default"], context: "default of tab \(id)") ?? false
            if isDefault {
                defaultCount += 1
                if defaultCount > 1 {
                    reader.fail(.badValue, fields["default"], "more than one tab is the default", hint: "mark one tab 'default: true'")
                }
            }
            guard let rootNode = fields["root"], let root = reader.string(rootNode, context: "root of tab \(id)") else { continue }
            pendingRoutes.append((root, rootNode))
            manifest.tabs.append(AppManifest.Tab(id: id, root: root, order: index, isDefault: isDefault))
        }
        return tabIDs
    }
}
