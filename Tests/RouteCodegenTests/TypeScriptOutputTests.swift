import Foundation
import LinkRouter
import RouteCodegen
import Testing

/// The TypeScript output compiled by `tsc --strict` (Debian's node-typescript; `scripts/ensure-deps.sh test` installs
/// it with nodejs) and run by node: Handz's route constant map (seed 001 §9.2) and COIN's linking config (seed 004
/// §10.3) read back as values.
@Suite("TypeScript output compiles and says what the manifests say")
struct TypeScriptOutputTests {
    static let tsc = Tools.find("tsc")
    static let node = Tools.find("node")
    static let fixtures = Fixture.all

    /// React Navigation 7's `LinkingOptions` as far as `linking` uses it (its package is not installed here): the
    /// generated object must be assignable to it — mutable `prefixes`, `screens` of paths or nested configs.
    static let linkingShape = """
        type PathConfig = { path?: string; alias?: Array<string | { path: string }>; exact?: boolean; screens?: PathConfigMap };
        type PathConfigMap = { [screen: string]: string | PathConfig };
        type LinkingOptions = { prefixes: string[]; config?: { initialRouteName?: string; screens: PathConfigMap } };
        """

    @Test(
        "every output compiles with --strict, on its own and used by typed code",
        .enabled(if: tsc != nil, "tsc is not installed (apt-get install node-typescript; scripts/ensure-deps.sh test installs it)"))
    func compiles() throws {
        let tsc = try #require(Self.tsc)
        let directory = try Tools.directory("ts")
        var files: [String] = []
        for fixture in Self.fixtures {
            try Tools.write(fixture.generate(.typescript), "\(fixture.name).ts", in: directory)
            files.append("\(fixture.name).ts")
        }
        // Each on its own, with tsc's default target (ES3: no extended escapes, reserved words quoted).
        for file in files {
            let result = try Tools.run(tsc, ["--strict", "--noEmit", file], in: directory)
            #expect(result.status == 0, "\(file): \(result.output)")
        }
        // Used by typed code: params are typed per route (a missing or unknown one does not compile), ids are the
        // ROUTES values, and `linking` fits React Navigation's options.
        let use = """
            import { ROUTES, RouteId, RouteParams, linking, TABS, TAB_ROOTS, LAUNCH_TAB, UNAUTHENTICATED_STATE, MANIFEST } from './handz';
            import * as coin from './coin';
            \(Self.linkingShape)
            const options: LinkingOptions = linking;
            const coinOptions: LinkingOptions = coin.linking;
            const detail: RouteParams['Library/FlowDetail'] = { flowId: '6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b' };
            const none: RouteParams['Library/Home'] = undefined;
            // @ts-expect-error: flowId is required
            const missing: RouteParams['Library/FlowDetail'] = {};
            // @ts-expect-error: Library/FlowDetail takes no folderId
            const unknown: RouteParams['Library/FlowDetail'] = { flowId: 'x', folderId: 'y' };
            const id: RouteId = ROUTES.LIBRARY_FLOW_DETAIL;
            // @ts-expect-error: not a route id of Handz
            const notRoute: RouteId = 'Library/Nowhere';
            const canvas: coin.RouteParams['Canvas'] = { coinId: 'c-1' };
            const root: RouteId = TAB_ROOTS[LAUNCH_TAB];
            const tab: typeof TABS.LIBRARY = 'library';
            const version: number | null = MANIFEST.version;
            export const used = [options, coinOptions, detail, none, missing, unknown, id, notRoute, canvas, root, tab, version, UNAUTHENTICATED_STATE];
            """
        try Tools.write(use, "use.ts", in: directory)
        let result = try Tools.run(tsc, ["--strict", "--noEmit", "--target", "es2017", "--module", "commonjs", "use.ts"], in: directory)
        #expect(result.status == 0, "use.ts: \(result.output)")
    }

    @Test(
        "run by node: Handz's ROUTES are its route ids; COIN's linking has coinapp://, Canvas at coin/:coinId and the tabs' paths",
        .enabled(if: tsc != nil && node != nil, "tsc or node is not installed (apt-get install nodejs node-typescript)"))
    func valuesInNode() throws {
        let values = try Self.evaluate(["handz", "coin"])
        let handz = try #require(values["handz"] as? [String: Any])
        let routes = try #require(handz["ROUTES"] as? [String: String])
        let handzManifest = Fixture.example("handz").manifest
        #expect(Set(routes.values) == Set(handzManifest.routeOrder))
        #expect(routes.count == handzManifest.routeOrder.count)
        // Seed 001 §9.2's ids, each in the map (the seed's constant names are abbreviations; ours are the ids').
        for id in ["Auth/WelcomeGate", "Library/FlowDetail", "Library/InboxItem", "Practice/Gate", "Settings/Help", "Paywall/Upgrade", "ShareLink/FlowView"] {
            #expect(routes.values.contains(id), "\(id)")
        }
        #expect(routes["LIBRARY_FLOW_DETAIL"] == "Library/FlowDetail" && routes["SHARE_LINK_FLOW_VIEW"] == "ShareLink/FlowView")

        let coin = try #require(values["coin"] as? [String: Any])
        let linking = try #require(coin["linking"] as? [String: Any])
        #expect(linking["prefixes"] as? [String] == ["coinapp://", "https://links.coin.example"])
        let screens = try #require((linking["config"] as? [String: Any])?["screens"] as? [String: Any])
        #expect(screens["Canvas"] as? String == "coin/:coinId")
        let tabs = try #require((screens["MainTabs"] as? [String: Any])?["screens"] as? [String: Any])
        func path(_ tab: String, _ screen: String) -> String? {
            ((tabs[tab] as? [String: Any])?["screens"] as? [String: Any])?[screen] as? String
        }
        #expect(path("RecentsTab", "Recents") == "tab/recents")
        #expect(path("ProjectsTab", "Projects") == "tab/projects")
        #expect(path("FavoritesTab", "Favorites") == "tab/favorites")
        #expect(path("ProjectsTab", "ProjectDetail") == "project/:projectId")
        #expect(Set(tabs.keys) == ["RecentsTab", "ProjectsTab", "FavoritesTab"])
        #expect(coin["TAB_SCREENS"] as? [String: String] == ["recents": "RecentsTab", "projects": "ProjectsTab", "favorites": "FavoritesTab"])
        // The screens without a URL (CreateProject, Settings…) are not in the config.
        #expect(Set(screens.keys) == ["MainTabs", "Canvas"])
    }

    @Test(
        "run by node: every example's linking paths are its patterns, and its ROUTES, TABS and STATES its ids",
        .enabled(if: tsc != nil && node != nil, "tsc or node is not installed (apt-get install nodejs node-typescript)"))
    func everyExample() throws {
        let values = try Self.evaluate(Self.fixtures.map(\.name))
        for fixture in Self.fixtures {
            let module = try #require(values[fixture.name] as? [String: Any])
            let manifest = fixture.manifest
            #expect((module["ROUTES"] as? [String: String]).map { Set($0.values) } == Set(manifest.routeOrder), "\(fixture.name)")
            #expect((module["TABS"] as? [String: String]).map { Set($0.values) } == Set(manifest.tabs.map(\.id)), "\(fixture.name)")
            #expect((module["STATES"] as? [String: String]).map { Set($0.values) } == Set(manifest.states), "\(fixture.name)")
            let screens = try #require(((module["linking"] as? [String: Any])?["config"] as? [String: Any])?["screens"] as? [String: Any])
            var found: [String: [String]] = [:]
            Self.collect(screens, into: &found)
            for id in manifest.routeOrder {
                let expected = manifest.routes[id]!.patterns.compactMap { try? PathPattern(parsing: $0) }.flatMap { TypeScriptPaths.paths($0) ?? [] }
                #expect((found[id] ?? []).sorted() == Array(Set(expected)).sorted(), "\(fixture.name) \(id)")
            }
        }
    }

    /// Route id → its paths, from `screens` and the screens nested in it (`MainTabs` and the tabs' screens).
    static func collect(_ screens: [String: Any], into found: inout [String: [String]]) {
        for (name, value) in screens {
            if let path = value as? String {
                found[name, default: []].append(path)
            } else if let config = value as? [String: Any] {
                if let path = config["path"] as? String { found[name, default: []].append(path) }
                found[name, default: []] += config["alias"] as? [String] ?? []
                if let nested = config["screens"] as? [String: Any] { collect(nested, into: &found) }
            }
        }
    }

    /// The named fixtures' modules compiled to CommonJS and loaded by node: module name → its exports as JSON.
    static func evaluate(_ names: [String]) throws -> [String: Any] {
        let tsc = try #require(Self.tsc), node = try #require(Self.node)
        let directory = try Tools.directory("node")
        for name in names {
            try Tools.write(fixtures.first { $0.name == name }!.generate(.typescript), "\(name).ts", in: directory)
        }
        let compile = try Tools.run(
            tsc, ["--strict", "--target", "es2019", "--module", "commonjs", "--outDir", "js"] + names.map { "\($0).ts" }, in: directory)
        try #require(compile.status == 0, "\(compile.output)")
        let script = "const out = {}; for (const name of \(names.debugDescription)) out[name] = require('./js/' + name + '.js'); console.log(JSON.stringify(out));"
        let run = try Tools.run(node, ["-e", script], in: directory)
        try #require(run.status == 0, "\(run.output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    }
}

/// What the React Navigation paths of a pattern are expected to be, written here apart from the generator: each
/// optional literal present or absent, `:name(type)` → `:name`, an optional param → `:name?`, no wildcard.
enum TypeScriptPaths {
    static func paths(_ pattern: PathPattern) -> [String]? {
        var results = [""]
        for (segment, optional) in pattern.segments {
            switch segment {
            case .wildcard: return nil
            case .param(let name, _):
                results = results.map { $0 + "/:" + name + (optional ? "?" : "") }
            case .literal(let text):
                results = optional ? results + results.map { $0 + "/" + text } : results.map { $0 + "/" + text }
            }
        }
        return results.map { String($0.dropFirst()) }
    }
}
