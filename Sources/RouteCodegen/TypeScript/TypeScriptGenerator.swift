import LinkRouter

/// The TypeScript output, one module:
/// - `ROUTES`, the route constant map (Handz's §9.2 form: `LIBRARY_FLOW_DETAIL: 'Library/FlowDetail'`), `as const`,
///   and `RouteId`;
/// - `RouteParams`, each route's params as linkd carries them (a React Navigation param list: `undefined` for none);
/// - `TABS`, `TAB_ROOTS`, `LAUNCH_TAB`, `STATES`, `UNAUTHENTICATED_STATE`, `MANIFEST`;
/// - `linking`, React Navigation's linking configuration: `prefixes` (each custom scheme's `scheme://`, each host's
///   `https://host`) and `config.screens` — the routes of each tab under `TAB_NAVIGATOR` (`MainTabs`) and that tab's
///   screen (`TAB_SCREENS`: `RecentsTab`…), the others at the top, each with its patterns as React Navigation paths
///   (`/coin/:coinId` → `coin/:coinId`; a type is dropped, `:tab?` stays; an optional literal gives one path per
///   variant, the second and later as React Navigation 7's `alias`; a wildcard tail has no React Navigation form and
///   is left out with a comment).
/// Compiles with `tsc --strict` on its own: it imports nothing, and `linking` is a plain object React Navigation's
/// `LinkingOptions` accepts.
struct TypeScriptGenerator {
    let table: RouteTable
    let identity: ManifestIdentity

    /// The name of the tab navigator's screen in the root navigator.
    static let tabNavigator = "MainTabs"

    func render() -> String {
        var out = CodeWriter(indent: 2)
        out.raw(Header(language: .typescript, table: table, identity: identity).slashComments)
        out.line()
        out.line("/** A `uuid` param: 8-4-4-4-12 hex digits. */")
        out.line("export type Uuid = string;")
        out.line("/** A `slug` param: lowercase letters and digits, in runs joined by '-'. */")
        out.line("export type Slug = string;")
        out.line("/** An `int` param as a URL carries it: an optional '-' and 1 to 18 digits. */")
        out.line("export type IntText = `${number}`;")
        out.line()
        out.line("/** The manifest this module was made from (`version` null: made from a file, not a published version). */")
        out.block("export const MANIFEST = {", "} as const;") { out in
            out.line("app: \(Text.typeScriptString(table.app)),")
            out.line("version: \(identity.version.map(String.init) ?? "null"),")
            out.line("hash: \(Text.typeScriptString(identity.hash)),")
        }
        out.line()
        writeRoutes(to: &out)
        out.line()
        writeTabsAndStates(to: &out)
        out.line()
        writeLinking(to: &out)
        return out.text
    }

    private func writeRoutes(to out: inout CodeWriter) {
        var scope = IdentifierScope(.screamingSnake, fallback: "ROUTE")
        out.line("/** The route ids of the manifest, by constant name. */")
        out.block("export const ROUTES = {", "} as const;") { out in
            for route in table.routes {
                out.line("\(scope.identifier(for: route.id)): \(Text.typeScriptString(route.id)),")
            }
        }
        out.line()
        out.line("/** A route id of the manifest. */")
        out.line("export type RouteId = (typeof ROUTES)[keyof typeof ROUTES];")
        out.line()
        out.line("/**")
        out.line(" * Each route's params as linkd's resolutions and share links carry them, by route id (`undefined`: none; `?`:")
        out.line(" * a param a share link to the route need not carry). A React Navigation param list.")
        out.line(" */")
        out.block("export type RouteParams = {", "};") { out in
            for route in table.routes {
                let key = Self.key(route.id)
                guard !route.params.isEmpty else {
                    out.line("\(key): undefined;")
                    continue
                }
                let fields = route.params.map { "\(Self.key($0.name))\($0.required ? "" : "?"): \(Self.type($0.type))" }
                out.line("\(key): { \(fields.joined(separator: "; ")) };")
            }
        }
    }

    private func writeTabsAndStates(to out: inout CodeWriter) {
        var tabScope = IdentifierScope(.screamingSnake, fallback: "TAB")
        out.line("/** The tab ids, by constant name, in the tab bar's order. */")
        out.block("export const TABS = {", "} as const;") { out in
            for tab in table.tabs { out.line("\(tabScope.identifier(for: tab.id)): \(Text.typeScriptString(tab.id)),") }
        }
        out.line("/** A tab id of the manifest. */")
        out.line("export type TabId = (typeof TABS)[keyof typeof TABS];")
        out.line("/** The route at each tab's root. */")
        out.block("export const TAB_ROOTS: { readonly [Tab in TabId]: RouteId } = {", "};") { out in
            for tab in table.tabs { out.line("\(Self.key(tab.id)): \(Text.typeScriptString(tab.root)),") }
        }
        if let launch = table.tabs.first(where: \.isDefault) ?? table.tabs.first {
            out.line("/** The tab the app launches to. */")
            out.line("export const LAUNCH_TAB: TabId = \(Text.typeScriptString(launch.id));")
        }
        out.line()
        var stateScope = IdentifierScope(.screamingSnake, fallback: "STATE")
        out.line("/** The session states of the app, by constant name. */")
        out.block("export const STATES = {", "} as const;") { out in
            for state in table.states { out.line("\(stateScope.identifier(for: state)): \(Text.typeScriptString(state)),") }
        }
        out.line("/** A session state of the app. */")
        out.line("export type StateId = (typeof STATES)[keyof typeof STATES];")
        if table.states.contains(table.unauthenticatedState) {
            out.line("/** The state of a caller who sends none. */")
            out.line("export const UNAUTHENTICATED_STATE: StateId = \(Text.typeScriptString(table.unauthenticatedState));")
        }
    }

    private func writeLinking(to out: inout CodeWriter) {
        var screenScope = IdentifierScope(.upperCamel, fallback: "Tab", reserved: [Self.tabNavigator])
        let tabScreens = table.tabs.map { (tab: $0, screen: screenScope.identifier(for: $0.id + " tab")) }
        out.line("/** The screen of the tab navigator in the root navigator, which `linking` nests each tab's routes under. */")
        out.line("export const TAB_NAVIGATOR = \(Text.typeScriptString(Self.tabNavigator));")
        out.line("/** The screen of each tab in the tab navigator (the tab's stack), which `linking` nests its routes under. */")
        out.block("export const TAB_SCREENS = {", "} as const;") { out in
            for (tab, screen) in tabScreens { out.line("\(Self.key(tab.id)): \(Text.typeScriptString(screen)),") }
        }
        out.line()
        out.line("/**")
        out.line(" * React Navigation's linking configuration: `<NavigationContainer linking={linking}>`. Screens are named by route")
        out.line(" * id; a tab's routes are nested under TAB_NAVIGATOR and the tab's screen. Share links (linkd's share path) are")
        out.line(" * not here: resolve them with linkd (`POST /v1/resolve`) and navigate to the route it answers.")
        if table.caseInsensitivePaths {
            out.line(" * The manifest compares literal path segments case-insensitively; React Navigation compares them as written.")
        }
        out.line(" */")
        let prefixes = table.schemes.map { $0 + "://" } + table.hosts.map { "https://" + $0 }
        out.block("export const linking = {", "};") { out in
            out.line("prefixes: [\(prefixes.map(Text.typeScriptString).joined(separator: ", "))],")
            out.block("config: {", "},") { out in
                out.block("screens: {", "},") { out in
                    let tabbed = tabScreens.filter { entry in table.routes.contains { $0.tab == entry.tab.id && !$0.patterns.isEmpty } }
                    if !tabbed.isEmpty {
                        out.block("\(Self.tabNavigator): {", "},") { out in
                            out.block("screens: {", "},") { out in
                                for (tab, screen) in tabbed {
                                    out.block("\(screen): {", "},") { out in
                                        out.block("screens: {", "},") { out in
                                            for route in table.routes where route.tab == tab.id { writeScreen(route, to: &out) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                    let tabIDs = Set(table.tabs.map(\.id))
                    for route in table.routes where route.tab.map({ !tabIDs.contains($0) }) ?? true { writeScreen(route, to: &out) }
                }
            }
        }
    }

    /// One route's entry of `config.screens`: its paths, or nothing when it has none.
    private func writeScreen(_ route: RouteTable.Route, to out: inout CodeWriter) {
        var paths: [String] = []
        for pattern in route.patterns {
            guard let variants = Self.paths(pattern) else {
                out.line("// \(Text.comment(route.id)): \(Text.comment(pattern.text)) has a wildcard tail, which React Navigation cannot match.")
                continue
            }
            for path in variants where !paths.contains(path) { paths.append(path) }
        }
        guard let first = paths.first else { return }
        let key = Self.key(route.id)
        if paths.count == 1 {
            out.line("\(key): \(Text.typeScriptString(first)),")
        } else {
            let alias = paths.dropFirst().map(Text.typeScriptString).joined(separator: ", ")
            out.line("\(key): { path: \(Text.typeScriptString(first)), alias: [\(alias)] },")
        }
    }

    /// `pattern` as React Navigation paths (no leading `/`): one per variant of its optional literals; nil when it
    /// ends in a wildcard tail.
    static func paths(_ pattern: PathPattern) -> [String]? {
        var variants: [[String]] = [[]]
        for (segment, optional) in pattern.segments {
            let text: String
            switch segment {
            case .literal(let literal): text = literal
            case .param(let name, _): text = ":" + name + (optional ? "?" : "")
            case .wildcard: return nil
            }
            if optional, case .literal = segment {
                variants = variants + variants.map { $0 + [text] }
            } else {
                variants = variants.map { $0 + [text] }
            }
        }
        return variants.map { $0.joined(separator: "/") }
    }

    /// A property key: as it is when it is an identifier and no reserved word, else a string literal
    /// (`'Library/FlowDetail'`);
    /// `__proto__` computed, as a literal key would set the object's prototype.
    private static func key(_ name: String) -> String {
        if name == "__proto__" { return "['__proto__']" }
        let scalars = Array(name.unicodeScalars)
        let isIdentifier = !scalars.isEmpty && scalars.enumerated().allSatisfy { index, scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || scalar == "$"
                || (index > 0 && ("0"..."9").contains(scalar))
        }
        // A reserved word is quoted too: ECMAScript 3 takes none as a property name.
        return isIdentifier && !Keywords.typescript.contains(name) ? name : Text.typeScriptString(name)
    }

    private static func type(_ type: ParamType) -> String {
        switch type {
        case .string: "string"
        case .slug: "Slug"
        case .int: "IntText"
        case .uuid: "Uuid"
        }
    }
}
