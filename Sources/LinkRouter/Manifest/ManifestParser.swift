internal import Yams

/// Turns a YAML tree into an `AppManifest`, then cross-checks it. Problems go to the reader.
struct ManifestParser {
    let reader: YAMLReader

    static let topKeys = ["app", "name", "schemes", "hosts", "ports", "caseInsensitivePaths", "ios", "android",
                          "webFallback", "states", "unauthenticatedState", "tabStates", "stateRoots", "tabs", "tabBar",
                          "routes", "returns", "intercepts", "share", "notFoundRoute", "ics", "origin"]
    static let routeKeys = ["id", "tab", "layer", "presentation", "states", "patterns", "query", "parent", "shareable"]

    func parse(_ root: Node) -> AppManifest? {
        let top = reader.mapping(root, context: "the manifest", allowed: Self.topKeys,
                                 required: ["app", "name", "states", "unauthenticatedState", "routes"])
        let app = reader.string(top["app"], context: "app") ?? ""
        let ios = reader.mapping(top["ios"], context: "ios", allowed: ["appIDs", "appStoreID", "webcredentials", "appClipIDs"])
        let android = reader.mapping(top["android"], context: "android", allowed: ["package", "sha256CertFingerprints"])
        let tabBar = reader.mapping(top["tabBar"], context: "tabBar", allowed: ["hiddenFor"])

        var manifest = AppManifest(
            app: app,
            displayName: reader.string(top["name"], context: "name") ?? app,
            schemes: reader.strings(top["schemes"], context: "schemes").map { $0.0.lowercased() },
            hosts: reader.strings(top["hosts"], context: "hosts").map { $0.0.lowercased() },
            ports: reader.list(top["ports"], context: "ports").compactMap { reader.int($0, context: "a port") },
            caseInsensitivePaths: reader.bool(top["caseInsensitivePaths"], context: "caseInsensitivePaths") ?? false,
            iosAppIDs: reader.strings(ios["appIDs"], context: "ios.appIDs").map(\.0),
            appStoreID: reader.string(ios["appStoreID"], context: "ios.appStoreID"),
            iosWebCredentials: reader.bool(ios["webcredentials"], context: "ios.webcredentials") ?? false,
            iosAppClipIDs: reader.strings(ios["appClipIDs"], context: "ios.appClipIDs").map(\.0),
            androidPackage: reader.string(android["package"], context: "android.package"),
            androidFingerprints: reader.strings(android["sha256CertFingerprints"], context: "android.sha256CertFingerprints").map(\.0),
            webFallbackURL: reader.string(top["webFallback"], context: "webFallback"),
            states: [], unauthenticatedState: "", tabStates: [], stateRoots: [:], tabs: [],
            tabBarHiddenFor: [], routes: [:], routeOrder: [], returns: [], intercepts: [], share: nil,
            notFoundRoute: nil, ics: [], origin: nil, sourceFile: reader.file)

        for (value, node) in reader.strings(tabBar["hiddenFor"], context: "tabBar.hiddenFor") {
            if let presentation = presentation(value, node) { manifest.tabBarHiddenFor.append(presentation) }
        }
        for (fingerprint, node) in zip(manifest.androidFingerprints, reader.list(android["sha256CertFingerprints"], context: "")) {
            let parts = fingerprint.split(separator: ":")
            if parts.count != 32 || !parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) {
                reader.fail(.badValue, node, "'\(fingerprint)' is not a SHA-256 fingerprint",
                            hint: "write 32 hex byte pairs separated by ':' (keytool -list -v prints it)")
            }
        }
        let appIDNodes = Array(zip(manifest.iosAppIDs, reader.list(ios["appIDs"], context: "")))
            + Array(zip(manifest.iosAppClipIDs, reader.list(ios["appClipIDs"], context: "")))
        for (appID, node) in appIDNodes {
            let parts = appID.split(separator: ".", maxSplits: 1)
            if parts.count != 2 || parts[0].count != 10 || !parts[0].allSatisfy({ $0.isUppercase || $0.isNumber }) {
                reader.fail(.badValue, node, "'\(appID)' is not an iOS app id", hint: "write TEAMID.bundle.id (a 10-character team id)")
            }
        }
        for (scheme, node) in reader.strings(top["schemes"], context: "") where scheme == "http" || scheme == "https" {
            reader.fail(.badValue, node, "'\(scheme)' is not a custom scheme", hint: "list https hosts under 'hosts'")
        }

        // States.
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
        var pendingRoutes: [(String, Node)] = []
        for (state, keyNode, value) in reader.pairs(top["stateRoots"], context: "stateRoots") {
            _ = checkState(state, keyNode, manifest)
            if let route = reader.string(value, context: "stateRoots.\(state)") {
                manifest.stateRoots[state] = route
                pendingRoutes.append((route, value))
            }
        }

        // Routes.
        var routeNodes: [String: Node] = [:]
        var parentNodes: [String: Node] = [:]
        for item in reader.list(top["routes"], context: "routes") {
            let fields = reader.mapping(item, context: "a route", allowed: Self.routeKeys,
                                        required: ["id", "presentation", "states"])
            guard let id = reader.string(fields["id"], context: "route id") else { continue }
            if let previous = routeNodes[id] {
                reader.fail(.duplicateID, fields["id"], "route '\(id)' is declared twice (first at line \(reader.mark(previous).line))",
                            hint: "give each route its own id")
                continue
            }
            routeNodes[id] = fields["id"]
            var route = AppManifest.Route(
                id: id, tab: reader.string(fields["tab"], context: "tab of \(id)"),
                presentation: .push, states: [], patterns: [], query: [:], parent: nil,
                shareable: reader.bool(fields["shareable"], context: "shareable of \(id)") ?? false,
                mark: reader.mark(fields["id"]))
            if let node = fields["presentation"], let text = reader.string(node, context: "presentation of \(id)"),
               let value = presentation(text, node) {
                route.presentation = value
            }
            if let layerNode = fields["layer"], let layer = reader.string(layerNode, context: "layer of \(id)") {
                if layer != "tab" && layer != "modal" {
                    reader.fail(.badValue, layerNode, "layer '\(layer)' of \(id) is not tab or modal", hint: "write 'tab' or 'modal'")
                } else if layer == "tab" && route.tab == nil {
                    reader.fail(.missingKey, layerNode, "route \(id) is in the tab layer but names no tab", hint: "add 'tab: <tab id>'")
                } else if layer == "modal" && route.tab != nil {
                    reader.fail(.badValue, layerNode, "route \(id) is in the modal layer but names a tab", hint: "remove 'tab' or write 'layer: tab'")
                }
            }
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
            for (name, keyNode, value) in reader.pairs(fields["query"], context: "query of \(id)") {
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
                _ = keyNode
                route.query[name] = param
            }
            if let parentNode = fields["parent"], let parent = reader.string(parentNode, context: "parent of \(id)") {
                route.parent = parent
                parentNodes[id] = parentNode
            }
            manifest.routes[id] = route
            manifest.routeOrder.append(id)
        }

        // Tabs.
        var tabIDs = Set<String>()
        var defaultCount = 0
        for (index, item) in reader.list(top["tabs"], context: "tabs").enumerated() {
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

        // Cross references of routes.
        for id in manifest.routeOrder {
            guard let route = manifest.routes[id] else { continue }
            if let tab = route.tab, !tabIDs.contains(tab) {
                reader.fail(.unknownTab, routeNodes[id], "route \(id) names tab '\(tab)' that is not declared",
                            hint: hintFor(tab, in: Array(tabIDs), what: "tab"))
            }
            if let parent = route.parent, let node = parentNodes[id] { pendingRoutes.append((parent, node)) }
        }
        reportParentCycles(manifest, parentNodes: parentNodes)

        // Return paths.
        for item in reader.list(top["returns"], context: "returns") {
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
            for (action, _, value) in reader.pairs(fields["actions"], context: "actions") {
                let spec = reader.mapping(value, context: "action '\(action)'", allowed: ["route", "params"], required: ["route"])
                guard let routeNode = spec["route"], let route = reader.string(routeNode, context: "route") else { continue }
                pendingRoutes.append((route, routeNode))
                var params: [String: String] = [:]
                for (name, _, valueNode) in reader.pairs(spec["params"], context: "params") {
                    params[name] = reader.string(valueNode, context: "param \(name)")
                }
                rule.actions[action] = RouteTarget(route: route, params: params)
            }
            manifest.returns.append(rule)
        }

        // Intercepts.
        for item in reader.list(top["intercepts"], context: "intercepts") {
            let fields = reader.mapping(item, context: "an intercept", allowed: ["states", "routes", "route", "continuation"],
                                        required: ["states", "route"])
            guard let routeNode = fields["route"], let route = reader.string(routeNode, context: "route") else { continue }
            pendingRoutes.append((route, routeNode))
            let routes = reader.strings(fields["routes"], context: "routes")
            pendingRoutes += routes
            manifest.intercepts.append(AppManifest.Intercept(
                states: reader.strings(fields["states"], context: "states").map { checkState($0.0, $0.1, manifest) },
                routes: routes.map(\.0), route: route,
                continuation: reader.bool(fields["continuation"], context: "continuation") ?? true))
        }

        // Share links.
        if let shareNode = top["share"] {
            let fields = reader.mapping(shareNode, context: "share", allowed: ["path", "hosts", "route", "unavailableRoute", "message", "cta", "badges"],
                                        required: ["path", "route", "unavailableRoute"])
            var share = AppManifest.ShareConfig(path: "/s/:token", hosts: [], route: "", unavailableRoute: "",
                                                unavailableMessage: "This link is no longer available.", cta: [:])
            if let node = fields["path"], let path = reader.string(node, context: "share.path") {
                share.path = path
                do {
                    let pattern = try PathPattern(parsing: path)
                    if !pattern.paramNames.contains("token") || pattern.segments.contains(where: { $0.optional }) {
                        reader.fail(.badPattern, node, "share.path '\(path)' has no ':token' param (or has optional parts)",
                                    hint: "write it like '/s/:token'")
                    }
                } catch {
                    reader.fail(.badPattern, node, error.message, hint: error.hint)
                }
            }
            for (host, node) in reader.strings(fields["hosts"], context: "share.hosts") {
                if !manifest.hosts.contains(host.lowercased()) {
                    reader.fail(.badValue, node, "share host '\(host)' is not one of the app's hosts", hint: "add it to 'hosts'")
                }
                share.hosts.append(host.lowercased())
            }
            if let node = fields["route"], let route = reader.string(node, context: "share.route") {
                share.route = route
                pendingRoutes.append((route, node))
            }
            if let node = fields["unavailableRoute"], let route = reader.string(node, context: "share.unavailableRoute") {
                share.unavailableRoute = route
                pendingRoutes.append((route, node))
            }
            if let message = reader.string(fields["message"], context: "share.message") { share.unavailableMessage = message }
            for (state, keyNode, value) in reader.pairs(fields["cta"], context: "share.cta") {
                _ = checkState(state, keyNode, manifest)
                if let route = reader.string(value, context: "share.cta.\(state)") {
                    share.cta[state] = route
                    pendingRoutes.append((route, value))
                }
            }
            share.badges = badges(fields["badges"])
            manifest.share = share
        }
        if let node = top["notFoundRoute"], let route = reader.string(node, context: "notFoundRoute") {
            manifest.notFoundRoute = route
            pendingRoutes.append((route, node))
        }

        // .ics rules.
        let ics = reader.mapping(top["ics"], context: "ics", allowed: ["rules"])
        for item in reader.list(ics["rules"], context: "ics.rules") {
            let fields = reader.mapping(item, context: "an ics rule", allowed: ["component", "route", "params", "followLinks"],
                                        required: ["component", "route"])
            var rule = AppManifest.ICSRule(component: "", route: "", params: [:],
                                           followLinks: reader.bool(fields["followLinks"], context: "followLinks") ?? false)
            if let node = fields["component"], let component = reader.string(node, context: "component") {
                if !["VEVENT", "VTODO", "VJOURNAL"].contains(component) {
                    reader.fail(.badValue, node, "component '\(component)' is not VEVENT, VTODO or VJOURNAL",
                                hint: YAMLReader.closest(component, in: ["VEVENT", "VTODO", "VJOURNAL"]).map { "did you mean '\($0)'?" }
                                    ?? "use VEVENT, VTODO or VJOURNAL")
                }
                rule.component = component
            }
            if let node = fields["route"], let route = reader.string(node, context: "route") {
                rule.route = route
                pendingRoutes.append((route, node))
            }
            for (param, _, value) in reader.pairs(fields["params"], context: "params") {
                guard let property = reader.string(value, context: "params.\(param)") else { continue }
                let valid = !property.isEmpty && property.allSatisfy { ($0.isASCII && ($0.isUppercase || $0.isNumber)) || $0 == "-" }
                if !valid {
                    reader.fail(.badValue, value, "'\(property)' is not an iCalendar property name",
                                hint: "write an upper-case name such as UID, DTSTART, SUMMARY, URL or X-VENDOR-NAME")
                }
                rule.params[param] = property
            }
            manifest.ics.append(rule)
        }

        // Origin.
        if let originNode = top["origin"] {
            let fields = reader.mapping(originNode, context: "origin", allowed: ["baseURL", "previewPath"], required: ["baseURL", "previewPath"])
            let base = reader.string(fields["baseURL"], context: "origin.baseURL") ?? ""
            let path = reader.string(fields["previewPath"], context: "origin.previewPath") ?? ""
            if !base.isEmpty, !OriginBaseURL.isAllowed(base) {
                reader.fail(.badValue, fields["baseURL"], "origin.baseURL '\(base)' is not https",
                            hint: "use an https URL (plain http only to a loopback host: localhost, 127.0.0.0/8 or [::1])")
            }
            if !path.isEmpty, !path.hasPrefix("/") {
                reader.fail(.badValue, fields["previewPath"], "origin.previewPath must start with '/'", hint: "write '/\(path)'")
            }
            manifest.origin = AppManifest.Origin(baseURL: base, previewPath: path)
        }

        for (route, node) in pendingRoutes where manifest.routes[route] == nil {
            reader.fail(.unknownRoute, node, "unknown route '\(route)'", hint: hintFor(route, in: manifest.routeOrder, what: "route"))
        }
        if top["tabs"] != nil, manifest.tabs.isEmpty, reader.errors.isEmpty {
            reader.fail(.missingKey, top["tabs"], "tabs is empty", hint: "declare at least one tab or remove 'tabs'")
        }
        checkPatterns(manifest)
        return manifest
    }

    /// `share.badges`: badge id → text, each id well-formed, each text 1–200 characters, at most 32 badges.
    private func badges(_ node: Node?) -> [String: String] {
        typealias Share = AppManifest.ShareConfig
        let entries = reader.pairs(node, context: "share.badges")
        if entries.count > Share.maxBadges {
            reader.fail(.badValue, node, "share.badges has \(entries.count) badges, more than \(Share.maxBadges)",
                        hint: "keep at most \(Share.maxBadges)")
            return [:]
        }
        var badges: [String: String] = [:]
        for (id, keyNode, value) in entries {
            guard Share.isBadgeID(id) else {
                reader.fail(.badValue, keyNode, "badge id '\(id.prefix(80))' is not 1–\(Share.maxBadgeIDLength) letters, digits, '-' or '_'",
                            hint: "write an id such as 'privateUpload'")
                continue
            }
            if badges[id] != nil {
                reader.fail(.duplicateID, keyNode, "badge '\(id)' appears twice in share.badges", hint: "keep one")
                continue
            }
            guard let text = reader.string(value, context: "share.badges.\(id)") else { continue }
            if text.count > Share.maxBadgeTextLength {
                reader.fail(.badValue, value, "the text of badge '\(id)' is \(text.count) characters, more than \(Share.maxBadgeTextLength)",
                            hint: "shorten it")
                continue
            }
            badges[id] = text
        }
        return badges
    }

    private func presentation(_ text: String, _ node: Node) -> Presentation? {
        if let value = Presentation(rawValue: text) { return value }
        let names = Presentation.allCases.map(\.rawValue)
        reader.fail(.badValue, node, "unknown presentation '\(text)'",
                    hint: YAMLReader.closest(text, in: names).map { "did you mean '\($0)'?" } ?? "use one of: \(names.joined(separator: ", "))")
        return nil
    }

    private func checkState(_ state: String, _ node: Node, _ manifest: AppManifest) -> String {
        if !manifest.states.contains(state) {
            reader.fail(.unknownState, node, "state '\(state)' is not declared", hint: hintFor(state, in: manifest.states, what: "state"))
        }
        return state
    }

    private func hintFor(_ word: String, in candidates: [String], what: String) -> String {
        if let close = YAMLReader.closest(word, in: candidates) { return "did you mean '\(close)'?" }
        return "declare the \(what) or use one that exists"
    }

    private func reportParentCycles(_ manifest: AppManifest, parentNodes: [String: Node]) {
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
