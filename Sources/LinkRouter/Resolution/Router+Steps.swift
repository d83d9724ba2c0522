import Foundation

/// The steps of a resolution (`Router.resolve`): a share token, an unavailable link, a path that matches nothing, a
/// route opened and placed in its tab, stack and presentation.
extension Router {
    func resolveShare(token: String, url: String, state: String, compiled: Compiled,
                      share: AppManifest.ShareConfig, links: (ShareLinkQuery) -> LinkStatus) -> Resolution {
        let manifest = compiled.manifest
        switch links(ShareLinkQuery(app: manifest.app, token: token)) {
        case .active(let target):
            let routeID = target.route.isEmpty ? share.route : target.route
            guard let route = compiled.routes[routeID] else {
                return unavailable(compiled, state: state, share: share, link: .init(id: target.linkID, status: "deleted", expiresAt: nil))
            }
            var resolution = open(route, params: target.params, url: url, state: state, compiled: compiled)
            resolution.link = .init(id: target.linkID, status: "active", expiresAt: Int(target.expiresAt.timeIntervalSince1970))
            return resolution
        case .unavailable(let linkID, let reason):
            return unavailable(compiled, state: state, share: share, link: .init(id: linkID, status: reason.rawValue, expiresAt: nil))
        case .unknown:
            return unavailable(compiled, state: state, share: share, link: .init(id: nil, status: "unknown", expiresAt: nil))
        }
    }

    /// The resolution of a long link's deep link (`LongLink`): as if it were asked for, when it is a URL of the same
    /// app; `notFound` with `badLongLink` otherwise.
    func resolveLongLink(_ longLink: LongLink.Parsed, state: String?, callerState: String, compiled: Compiled,
                         links: (ShareLinkQuery) -> LinkStatus) -> Resolution {
        let appID = compiled.manifest.app
        switch longLink {
        case .refused(let why):
            return notFound(compiled, state: callerState, problem: .init(.badLongLink, why))
        case .inner(let inner):
            guard app(for: inner) == appID else {
                return notFound(compiled, state: callerState, problem: .init(.badLongLink, "a long link's link must be a URL of \(appID)"))
            }
            return resolve(url: inner, state: state, app: appID, links: links)
        }
    }

    func unavailable(_ compiled: Compiled, state: String, share: AppManifest.ShareConfig,
                             link: Resolution.LinkInfo) -> Resolution {
        let manifest = compiled.manifest
        guard let route = compiled.routes[share.unavailableRoute] else {
            return .failure(.init(.noMatch, "unavailable route missing"), app: manifest.app)
        }
        var resolution = place(route, params: [:], state: state, compiled: compiled)
        resolution.outcome = .linkUnavailable
        resolution.link = link
        resolution.message = share.unavailableMessage
        resolution.cta = share.cta[state]
        return resolution
    }

    func notFound(_ compiled: Compiled, state: String, problem: ResolutionProblem) -> Resolution {
        let manifest = compiled.manifest
        guard let routeID = manifest.notFoundRoute, let route = compiled.routes[routeID] else {
            return .failure(problem, app: manifest.app)
        }
        var resolution = place(route, params: [:], state: state, compiled: compiled)
        resolution.outcome = .notFound
        resolution.problem = problem
        return resolution
    }

    /// Opens a route by id as if a URL had matched it (state checks and intercepts included); used by the calendar
    /// resolver for `.ics` rules. `url` is the continuation URL kept for intercepts.
    func open(app appID: String, route routeID: String, params: [String: String], url: String, state: String?) -> Resolution {
        guard let compiled = apps[appID] else { return .failure(.init(.unknownApp, "app '\(appID)' is not loaded")) }
        let callerState = state ?? compiled.manifest.unauthenticatedState
        guard compiled.manifest.states.contains(callerState) else {
            return .failure(.init(.unknownState, "state '\(callerState)' is not a state of \(appID)"), app: appID)
        }
        guard let route = compiled.routes[routeID] else {
            return notFound(compiled, state: callerState, problem: .init(.noMatch, "route \(routeID) is missing"))
        }
        return open(route, params: params, url: url, state: callerState, compiled: compiled)
    }

    /// Opens a matched route: checks the state, applies intercepts.
    func open(_ compiledRoute: CompiledRoute, params: [String: String], url: String, state: String,
                      compiled: Compiled) -> Resolution {
        let route = compiledRoute.route
        if route.states.contains(state) {
            return place(compiledRoute, params: params, state: state, compiled: compiled)
        }
        let manifest = compiled.manifest
        for rule in manifest.intercepts where rule.states.contains(state) && (rule.routes.isEmpty || rule.routes.contains(route.id)) {
            guard let screen = compiled.routes[rule.route] else { continue }
            var resolution = place(screen, params: [:], state: state, compiled: compiled)
            resolution.outcome = .intercept
            let back = route.parent ?? route.tab.flatMap { tab in manifest.tabs.first { $0.id == tab }?.root }
            resolution.intercept = .init(route: screen.route.id,
                                         continuation: rule.continuation ? .init(route: route.id, params: params, url: url) : nil,
                                         returnTo: back)
            return resolution
        }
        return notFound(compiled, state: state, problem: .init(.notAllowed, "state '\(state)' may not open \(route.id)"))
    }

    /// Places a route the state may open: the precomputed tab, stack and return paths, plus the after-actions
    /// (the only part that depends on the params).
    func place(_ compiledRoute: CompiledRoute, params: [String: String], state: String, compiled: Compiled) -> Resolution {
        let route = compiledRoute.route
        let placement = compiledRoute.placements.first(where: { $0.state == state })?.placement
            ?? Self.placement(of: route, state: state, manifest: compiled.manifest, hidden: compiled.hidden)
        var actions: [String: RouteTarget]?
        if !compiledRoute.actions.isEmpty {
            var built: [String: RouteTarget] = [:]
            for (name, target) in compiledRoute.actions {
                var values: [String: String] = [:]
                for (key, value) in target.params {
                    if value.hasPrefix(":") {
                        if let copied = params[String(value.dropFirst())] { values[key] = copied }
                    } else {
                        values[key] = value
                    }
                }
                built[name] = RouteTarget(route: target.route, params: values)
            }
            actions = built
        }
        return Resolution(outcome: .route, app: compiled.manifest.app, route: route.id, params: params, tab: placement.tab,
                          presentation: route.presentation, tabBarVisible: placement.visible, stack: placement.stack,
                          returnTo: placement.returnTo, afterActions: actions, intercept: nil, link: nil, message: nil,
                          cta: nil, problem: nil)
    }

    /// Where `route` goes for `state`: tab, stack (root first), tab-bar visibility, return paths per state.
    static func placement(of route: AppManifest.Route, state: String, manifest: AppManifest,
                          hidden: Set<Presentation>) -> Placement {
        let hasShell = manifest.tabStates.contains(state) && !manifest.tabs.isEmpty

        // The parent chain, root first (cycles are refused at load; the bound guards code-built manifests).
        var chain: [String] = []
        var current = route.parent
        while let id = current, chain.count < 64, let parent = manifest.routes[id] {
            chain.append(id)
            current = parent.parent
        }
        chain.reverse()
        let owner = ([route.tab] + chain.map { manifest.routes[$0]?.tab }).lazy.compactMap { $0 }.first
        var tab: AppManifest.Tab?
        var stack = chain
        if hasShell {
            tab = owner.flatMap { id in manifest.tabs.first { $0.id == id } } ?? manifest.defaultTab
            if let root = tab?.root, root != route.id, stack.first != root { stack.insert(root, at: 0) }
        } else if let root = manifest.stateRoots[state], root != route.id, stack.first != root {
            stack.insert(root, at: 0)
        }
        let visible = hasShell && !hidden.contains(route.presentation)

        var returnTo: [String: String] = [:]
        let rule = manifest.returns.first { $0.from == route.id }
        for candidate in manifest.states {
            if let target = rule?.close[candidate] {
                returnTo[candidate] = target
            } else if let parent = chain.last {
                returnTo[candidate] = parent
            } else if manifest.tabStates.contains(candidate), let root = (owner.flatMap { id in manifest.tabs.first { $0.id == id } } ?? manifest.defaultTab)?.root, root != route.id {
                returnTo[candidate] = root
            } else if let root = manifest.stateRoots[candidate], root != route.id {
                returnTo[candidate] = root
            }
        }
        return Placement(tab: hasShell ? tab?.id : nil, stack: stack, returnTo: returnTo, visible: visible)
    }
}
