import LinkRouter

/// The Kotlin output: one `object <App>Links` (in the manifest's `android.package` when it has one) holding
/// - `Routes`: each route id as a constant (`LIBRARY_FLOW_DETAIL = "Library/FlowDetail"`) and `ALL`;
/// - `Params`: for each route that takes params, an object of their names (`Params.LibraryFlowDetail.FLOW_ID =
///   "flowId"`), each documented with its type and whether a share link must carry it;
/// - `Tabs` (with `LAUNCH` and `ROOTS`) and `States` (with `UNAUTHENTICATED`).
/// Constants only, so it compiles with any Kotlin (checked with Debian's kotlinc 1.3). The intent filters are the
/// `android-manifest` output's.
struct KotlinGenerator {
    let table: RouteTable
    let identity: ManifestIdentity

    func render() -> String {
        var out = CodeWriter()
        out.raw(Header(language: .kotlin, table: table, identity: identity).slashComments)
        if let package = Self.package(table.androidPackage) {
            out.line()
            out.line("package \(package)")
        }
        out.line()
        let namespace = table.namespace
        out.line("/**")
        out.line(" * The routes, tabs and states of the manifest of `\(Text.comment(table.app))` (\(Text.comment(table.displayName))).")
        out.line(" *")
        out.line(" * A linkd resolution's `route` is one of [Routes]; its `params` are named as in [Params]. The intent filters of")
        out.line(" * the app's links are `linkd codegen --lang android-manifest`.")
        out.line(" */")
        out.block("object \(namespace) {") { out in
            out.line("/** The app id. */")
            out.line("const val APP_ID = \(Text.kotlinString(table.app))")
            out.line("/** The published version of the manifest this file was made from (null: made from a file). */")
            out.line("val MANIFEST_VERSION: Int? = \(identity.version.map(String.init) ?? "null")")
            out.line("/** The content hash of that manifest. */")
            out.line("const val MANIFEST_HASH = \(Text.kotlinString(identity.hash))")
            out.line()
            let routeNames = writeRoutes(to: &out)
            out.line()
            writeParams(namespace: namespace, to: &out)
            out.line()
            writeTabs(routeNames: routeNames, to: &out)
            out.line()
            writeStates(to: &out)
        }
        return out.text
    }

    /// `Routes`; the constant of each route id.
    private func writeRoutes(to out: inout CodeWriter) -> [String: String] {
        var scope = IdentifierScope(.screamingSnake, fallback: "ROUTE", reserved: ["ALL"])
        var names: [String: String] = [:]
        out.line("/** The route ids. */")
        out.block("object Routes {") { out in
            for route in table.routes {
                let name = scope.identifier(for: route.id)
                names[route.id] = name
                let patterns = route.patterns.map(\.text).joined(separator: ", ")
                out.line("/** `\(Text.comment(route.id))`" + (patterns.isEmpty ? "" : ": \(Text.comment(patterns))") + " */")
                out.line("const val \(Self.escaped(name)) = \(Text.kotlinString(route.id))")
            }
            out.line("/** Every route id, in the manifest's order. */")
            Self.list("ALL", table.routes.compactMap { names[$0.id].map(Self.escaped) }, type: "List<String>", function: "listOf", to: &out)
        }
        return names
    }

    private func writeParams(namespace: String, to out: inout CodeWriter) {
        var scope = IdentifierScope(.upperCamel, fallback: "Route", reserved: ["Params", "Routes", "Tabs", "States", namespace])
        out.line("/** The params of each route that takes any: their names as linkd's resolutions and share links carry them. */")
        out.block("object Params {") { out in
            for route in table.routes where !route.params.isEmpty {
                out.line("/** The params of `\(Text.comment(route.id))`. */")
                out.block("object \(Self.escaped(scope.identifier(for: route.id))) {") { out in
                    var constants = IdentifierScope(.screamingSnake, fallback: "PARAM")
                    for param in route.params {
                        out.line("/** `\(Text.comment(param.name))`: \(param.type.rawValue), \(param.required ? "required" : "optional"). */")
                        out.line("const val \(Self.escaped(constants.identifier(for: param.name))) = \(Text.kotlinString(param.name))")
                    }
                }
            }
        }
    }

    private func writeTabs(routeNames: [String: String], to out: inout CodeWriter) {
        var scope = IdentifierScope(.screamingSnake, fallback: "TAB", reserved: ["ALL", "LAUNCH", "ROOTS"])
        let tabs = table.tabs.map { (tab: $0, name: Self.escaped(scope.identifier(for: $0.id))) }
        out.line("/** The tab ids, in the tab bar's order. */")
        out.block("object Tabs {") { out in
            for (tab, name) in tabs {
                out.line("/** `\(Text.comment(tab.id))`, rooted at `\(Text.comment(tab.root))`. */")
                out.line("const val \(name) = \(Text.kotlinString(tab.id))")
            }
            if let launch = tabs.first(where: { $0.tab.isDefault }) ?? tabs.first {
                out.line("/** The tab the app launches to. */")
                out.line("const val LAUNCH = \(launch.name)")
            }
            out.line("/** Every tab id, in the tab bar's order. */")
            Self.list("ALL", tabs.map(\.name), type: "List<String>", function: "listOf", to: &out)
            out.line("/** The route at each tab's root, by tab id. */")
            let roots = tabs.map { tab, name in
                "\(name) to " + (routeNames[tab.root].map { "Routes.\(Self.escaped($0))" } ?? Text.kotlinString(tab.root))
            }
            Self.list("ROOTS", roots, type: "Map<String, String>", function: "mapOf", to: &out)
        }
    }

    private func writeStates(to out: inout CodeWriter) {
        var scope = IdentifierScope(.screamingSnake, fallback: "STATE", reserved: ["ALL", "UNAUTHENTICATED"])
        let states = table.states.map { (state: $0, name: Self.escaped(scope.identifier(for: $0))) }
        out.line("/** The session states of the app. */")
        out.block("object States {") { out in
            for (state, name) in states { out.line("const val \(name) = \(Text.kotlinString(state))") }
            if let unauthenticated = states.first(where: { $0.state == table.unauthenticatedState }) {
                out.line("/** The state of a caller who sends none. */")
                out.line("const val UNAUTHENTICATED = \(unauthenticated.name)")
            }
            out.line("/** Every state. */")
            Self.list("ALL", states.map(\.name), type: "List<String>", function: "listOf", to: &out)
        }
    }

    /// `val NAME: TYPE = FUNCTION(items)`, one item a line (no trailing comma: Kotlin before 1.4 takes none).
    private static func list(_ name: String, _ items: [String], type: String, function: String, to out: inout CodeWriter) {
        guard !items.isEmpty else {
            out.line("val \(name): \(type) = \(function)()")
            return
        }
        out.block("val \(name): \(type) = \(function)(", ")") { out in
            for (index, item) in items.enumerated() { out.line(item + (index == items.count - 1 ? "" : ",")) }
        }
    }

    /// `name` as Kotlin writes it: in backticks when it is a keyword.
    private static func escaped(_ name: String) -> String {
        Keywords.kotlin.contains(name) ? "`\(name)`" : name
    }

    /// The Android package as a Kotlin package (keyword segments in backticks); nil when there is none or it is not
    /// made of identifiers.
    static func package(_ name: String?) -> String? {
        guard let name, !name.isEmpty else { return nil }
        var segments: [String] = []
        for segment in name.split(separator: ".", omittingEmptySubsequences: false) {
            let scalars = Array(segment.unicodeScalars)
            let valid = !scalars.isEmpty && scalars.enumerated().allSatisfy { index, scalar in
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || (index > 0 && ("0"..."9").contains(scalar))
            }
            guard valid else { return nil }
            segments.append(escaped(String(segment)))
        }
        return segments.joined(separator: ".")
    }
}
