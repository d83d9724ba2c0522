import LinkRouter

/// The Swift output: one namespace `enum <App>Links` holding
/// - `RouteID`, a `String` enum of the route ids (`.libraryFlowDetail` = `"Library/FlowDetail"`);
/// - `Route`, one case per route with its params as typed associated values (`uuid` → `UUID`, `int` → `Int`,
///   `string`/`slug` → `String`; optional ones `?` with `= nil`), its `id`, its `params` as linkd carries them, and
///   `init?(id:params:)` from a resolution's `route` and `params`;
/// - `Tab` (with each tab's `root` and the `launch` tab) and `State` (with `unauthenticated`).
/// Imports Foundation (for `UUID`) and nothing else.
struct SwiftGenerator {
    let table: RouteTable
    let identity: ManifestIdentity

    /// Members of the enums, which no case may be named.
    private static let members: Set<String> = Keywords.swiftUnescapable.union([
        "id", "params", "rawValue", "allCases", "hashValue", "hash", "root", "launch", "unauthenticated", "description",
    ])
    /// Names the route initialiser and `params` use for their own values.
    private static let locals: Set<String> = Keywords.swiftUnescapable.union(["routeID", "values", "text", "value", "result"])

    func render() -> String {
        var routeScope = IdentifierScope(.lowerCamel, fallback: "route", reserved: Self.members)
        let routeCases = table.routes.map { (route: $0, name: routeScope.identifier(for: $0.id)) }
        var out = CodeWriter()
        out.raw(Header(language: .swift, table: table, identity: identity).slashComments)
        out.line()
        out.line("import Foundation")
        out.line()
        let namespace = table.namespace
        out.line("/// The routes, tabs and states of the manifest of `\(Text.comment(table.app))` (\(Text.comment(table.displayName))).")
        out.line("///")
        out.line("/// `Route(id:params:)` reads the `route` and `params` of linkd's resolutions; `Route.params` is what a share link carries.")
        out.block("public enum \(namespace) {") { out in
            out.line("/// The app id.")
            out.line("public static let appID = \(Text.swiftString(table.app))")
            out.line("/// The published version of the manifest this file was made from (nil: made from a file).")
            out.line("public static let manifestVersion: Int? = \(identity.version.map(String.init) ?? "nil")")
            out.line("/// The content hash of that manifest.")
            out.line("public static let manifestHash = \(Text.swiftString(identity.hash))")
            out.line()
            writeRouteIDs(routeCases, to: &out)
            out.line()
            writeRoutes(routeCases, namespace: namespace, to: &out)
            out.line()
            writeTabs(routeCases, to: &out)
            writeStates(to: &out)
            out.line()
            writeParsers(to: &out)
        }
        return out.text
    }

    // MARK: Route ids and routes

    private func writeRouteIDs(_ cases: [(route: RouteTable.Route, name: String)], to out: inout CodeWriter) {
        out.line("/// A route id of the manifest.")
        stringEnum("RouteID", cases.map { ($0.name, $0.route.id, Text.comment($0.route.id)) }, to: &out) { _ in }
    }

    private func writeRoutes(_ cases: [(route: RouteTable.Route, name: String)], namespace: String, to out: inout CodeWriter) {
        out.line("/// A route with its params, typed. A param a share link to the route need not carry is optional.")
        out.block("public enum Route: Hashable, Sendable {") { out in
            for (route, name) in cases {
                let patterns = route.patterns.map(\.text).joined(separator: ", ")
                out.line("/// `\(Text.comment(route.id))`" + (patterns.isEmpty ? "" : ": \(Text.comment(patterns))"))
                let labels = Self.labels(route)
                let values = zip(route.params, labels).map { param, label in
                    "\(label): \(Self.swiftType(param.type))" + (param.required ? "" : "? = nil")
                }
                out.line("case \(Self.escaped(name))" + (values.isEmpty ? "" : "(\(values.joined(separator: ", ")))"))
            }
            out.line()
            out.line("/// The route's id.")
            out.block("public var id: RouteID {") { out in
                if cases.isEmpty { out.line("switch self {}"); return }
                out.line("switch self {")
                for (_, name) in cases { out.line("case .\(Self.escaped(name)): return .\(Self.escaped(name))") }
                out.line("}")
            }
            out.line()
            out.line("/// The params as linkd's resolutions and share links carry them: text by name (a uuid in lowercase).")
            out.block("public var params: [String: String] {") { out in
                if cases.isEmpty { out.line("switch self {}"); return }
                out.line("switch self {")
                for (route, name) in cases where !route.params.isEmpty { writeParams(route, name: name, to: &out) }
                if cases.contains(where: { $0.route.params.isEmpty }) {
                    out.line("default:")
                    out.line("    return [:]")
                }
                out.line("}")
            }
            out.line()
            out.line("/// The route a resolution names, with its params read as their types; nil for a route id this manifest")
            out.line("/// does not have, a required param that is missing, or a param that is not of its type.")
            out.block("public init?(id routeID: String, params values: [String: String]) {") { out in
                out.line("switch routeID {")
                for (route, name) in cases { writeInit(route, name: name, namespace: namespace, to: &out) }
                out.line("default:")
                out.line("    return nil")
                out.line("}")
            }
        }
    }

    private func writeParams(_ route: RouteTable.Route, name: String, to out: inout CodeWriter) {
        let locals = Self.locals(route)
        out.line("case .\(Self.escaped(name))(\(locals.map { "let \(Self.escaped($0))" }.joined(separator: ", "))):")
        if route.params.allSatisfy(\.required) {
            let pairs = zip(route.params, locals).map { "\(Text.swiftString($0.name)): \(Self.text(of: Self.escaped($1), $0.type))" }
            out.line("    return [\(pairs.joined(separator: ", "))]")
            return
        }
        out.line("    var result: [String: String] = [:]")
        for (param, local) in zip(route.params, locals) {
            let key = Text.swiftString(param.name), local = Self.escaped(local)
            if param.required {
                out.line("    result[\(key)] = \(Self.text(of: local, param.type))")
            } else {
                out.line("    if let \(local) { result[\(key)] = \(Self.text(of: local, param.type)) }")
            }
        }
        out.line("    return result")
    }

    private func writeInit(_ route: RouteTable.Route, name: String, namespace: String, to out: inout CodeWriter) {
        out.line("case \(Text.swiftString(route.id)):")
        let locals = Self.locals(route)
        for (param, local) in zip(route.params, locals) {
            let parse = "\(namespace).\(Self.parser(param.type))", key = Text.swiftString(param.name), local = Self.escaped(local)
            if param.required {
                out.line("    guard let \(local) = \(parse)(values[\(key)]) else { return nil }")
            } else {
                out.line("    var \(local): \(Self.swiftType(param.type))?")
                out.line("    if let text = values[\(key)] {")
                out.line("        guard let value = \(parse)(text) else { return nil }")
                out.line("        \(local) = value")
                out.line("    }")
            }
        }
        let arguments = zip(Self.labels(route), locals).map { "\($0): \(Self.escaped($1))" }
        out.line("    self = .\(Self.escaped(name))" + (arguments.isEmpty ? "" : "(\(arguments.joined(separator: ", ")))"))
    }

    // MARK: Tabs and states

    private func writeTabs(_ cases: [(route: RouteTable.Route, name: String)], to out: inout CodeWriter) {
        guard !table.tabs.isEmpty else {
            out.line("// The manifest has no tabs.")
            out.line()
            return
        }
        var scope = IdentifierScope(.lowerCamel, fallback: "tab", reserved: Self.members)
        let tabs = table.tabs.map { (tab: $0, name: scope.identifier(for: $0.id)) }
        let routeNames = Dictionary(cases.map { ($0.route.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        out.line("/// A tab, in the tab bar's order.")
        stringEnum("Tab", tabs.map { ($0.name, $0.tab.id, Text.comment($0.tab.id)) }, to: &out) { out in
            out.line()
            out.line("/// The route at the tab's root.")
            out.block("public var root: RouteID {") { out in
                out.line("switch self {")
                for (tab, name) in tabs {
                    out.line("case .\(Self.escaped(name)): return .\(Self.escaped(routeNames[tab.root] ?? "route"))")
                }
                out.line("}")
            }
            out.line()
            out.line("/// The tab the app launches to.")
            let launch = tabs.first { $0.tab.isDefault } ?? tabs[0]
            out.line("public static let launch: Tab = .\(Self.escaped(launch.name))")
        }
        out.line()
    }

    private func writeStates(to out: inout CodeWriter) {
        var scope = IdentifierScope(.lowerCamel, fallback: "state", reserved: Self.members)
        let states = table.states.map { (state: $0, name: scope.identifier(for: $0)) }
        out.line("/// A session state of the app.")
        stringEnum("State", states.map { ($0.name, $0.state, Text.comment($0.state)) }, to: &out) { out in
            guard let unauthenticated = states.first(where: { $0.state == table.unauthenticatedState }) else { return }
            out.line()
            out.line("/// The state of a caller who sends none.")
            out.line("public static let unauthenticated: State = .\(Self.escaped(unauthenticated.name))")
        }
    }

    /// `public enum NAME: String, CaseIterable, Sendable` with `cases` (identifier, raw value, comment); an enum
    /// without cases cannot have a raw type, so it gets a `rawValue` of its own.
    private func stringEnum(
        _ name: String, _ cases: [(String, String, String)], to out: inout CodeWriter, extra: (inout CodeWriter) -> Void
    ) {
        if cases.isEmpty {
            out.block("public enum \(name): Hashable, CaseIterable, Sendable {") { out in
                out.line("/// The id as the manifest spells it.")
                out.line("public var rawValue: String { switch self {} }")
                out.line("/// None: the manifest has none.")
                out.line("public init?(rawValue: String) { return nil }")
                extra(&out)
            }
            return
        }
        out.block("public enum \(name): String, CaseIterable, Sendable {") { out in
            for (identifier, raw, comment) in cases {
                out.line("/// `\(comment)`")
                // The raw value is the case's name unless written.
                out.line("case \(Self.escaped(identifier))" + (identifier == raw && !Keywords.swift.contains(raw) ? "" : " = \(Text.swiftString(raw))"))
            }
            extra(&out)
        }
    }

    // MARK: Param values

    private func writeParsers(to out: inout CodeWriter) {
        out.line("/// A `string` or `slug` param's value: any non-empty text.")
        out.block("fileprivate static func string(_ text: String?) -> String? {") { out in
            out.line("guard let text, !text.isEmpty else { return nil }")
            out.line("return text")
        }
        out.line("/// An `int` param's value: an optional `-` and 1 to 18 digits.")
        out.block("fileprivate static func int(_ text: String?) -> Int? {") { out in
            out.line("guard let text, let first = text.utf8.first, first != UInt8(ascii: \"+\"), text.utf8.count <= 19 else { return nil }")
            out.line("return Int(text)")
        }
        out.line("/// A `uuid` param's value: 8-4-4-4-12 hex digits, any case.")
        out.block("fileprivate static func uuid(_ text: String?) -> UUID? {") { out in
            out.line("text.flatMap(UUID.init(uuidString:))")
        }
    }

    // MARK: Names and types

    /// `name` as Swift writes it: in backticks when it is a keyword.
    private static func escaped(_ name: String) -> String {
        Keywords.swift.contains(name) ? "`\(name)`" : name
    }

    /// The associated values' labels: the params' names (valid identifiers by the manifest's rules; an argument label
    /// may be any keyword but these), renamed (`selfValue`) for the names a label cannot be, or only in backticks that
    /// a call must write differently than the declaration (`let`, `var`, `inout`).
    private static func labels(_ route: RouteTable.Route) -> [String] {
        route.params.map { Self.unlabelled.contains($0.name) ? $0.name + "Value" : $0.name }
    }

    /// Param names that are no label as they are.
    private static let unlabelled: Set<String> = Keywords.swiftUnescapable.union(["let", "var", "inout"])

    /// The locals that hold the params' values in `params` and the initialiser: the params' names, unless one is a
    /// name those use for their own values.
    private static func locals(_ route: RouteTable.Route) -> [String] {
        let clashes = { (name: String) in locals.contains(name) }
        var scope = IdentifierScope(.lowerCamel, fallback: "param", reserved: locals.union(route.params.map(\.name).filter { !clashes($0) }))
        return route.params.map { clashes($0.name) ? scope.identifier(for: $0.name + "Value") : $0.name }
    }

    private static func swiftType(_ type: ParamType) -> String {
        switch type {
        case .string, .slug: "String"
        case .int: "Int"
        case .uuid: "UUID"
        }
    }

    private static func parser(_ type: ParamType) -> String {
        switch type {
        case .string, .slug: "string"
        case .int: "int"
        case .uuid: "uuid"
        }
    }

    /// `local` (of `type`) as linkd's text.
    private static func text(of local: String, _ type: ParamType) -> String {
        switch type {
        case .string, .slug: local
        case .int: "String(\(local))"
        case .uuid: "\(local).uuidString.lowercased()"
        }
    }
}
