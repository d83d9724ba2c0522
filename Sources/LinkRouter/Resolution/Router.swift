import Foundation

/// Resolves URLs against a set of app manifests. Matchers are compiled once in `init`; `resolve` is a pure
/// function (no I/O, no clock) and safe to call from any thread.
public final class Router: Sendable {
    /// Limits for incoming URLs.
    public struct Limits: Sendable {
        /// URLs over this many UTF-8 bytes are refused (`urlTooLong`).
        public var maxURLBytes: Int
        /// Creates limits; default 4096 bytes.
        public init(maxURLBytes: Int = 4096) { self.maxURLBytes = maxURLBytes }
    }

    /// One app, compiled: a class, so that a lookup retains one reference instead of copying the manifest.
    final class Compiled: Sendable {
        let manifest: AppManifest
        let matcher: RouteMatcher
        /// Presentations that hide the tab bar.
        let hidden: Set<Presentation>
        /// Every route with its placement per state, worked out once.
        let routes: [String: CompiledRoute]
        /// The share hosts (empty: any host of the app).
        let shareHosts: Set<String>
        /// The share path's segments (`/s/:token` → `s`, `:token`), split once; nil without a share section.
        let sharePathSegments: [String]?

        init(manifest: AppManifest, matcher: RouteMatcher) {
            self.manifest = manifest
            self.matcher = matcher
            let hidden = Set(manifest.tabBarHiddenFor)
            self.hidden = hidden
            self.shareHosts = Set(manifest.share?.hosts ?? [])
            self.sharePathSegments = manifest.share.map { $0.path.split(separator: "/").map(String.init) }
            var routes: [String: CompiledRoute] = [:]
            for (id, route) in manifest.routes {
                let placements = manifest.states.map { state in
                    (state: state, placement: Router.placement(of: route, state: state, manifest: manifest, hidden: hidden))
                }
                routes[id] = CompiledRoute(
                    route: route, placements: placements, actions: manifest.returns.first { $0.from == id }?.actions ?? [:])
            }
            self.routes = routes
        }
    }

    /// A route and where it goes for each state.
    final class CompiledRoute: Sendable {
        let route: AppManifest.Route
        /// Per state (a short list: a linear scan of short strings beats hashing).
        let placements: [(state: String, placement: Placement)]
        /// The return rule's after-actions (params filled per resolution).
        let actions: [String: RouteTarget]

        init(route: AppManifest.Route, placements: [(state: String, placement: Placement)], actions: [String: RouteTarget]) {
            self.route = route
            self.placements = placements
            self.actions = actions
        }
    }

    /// Where a route goes for one state: the parts of a resolution that do not depend on the URL.
    struct Placement: Sendable {
        let tab: String?
        let stack: [String]
        let returnTo: [String: String]
        let visible: Bool
    }

    let apps: [String: Compiled]
    private let byScheme: [String: Compiled]
    private let byHost: [String: Compiled]
    /// App ids in load order.
    public let appIDs: [String]
    /// Apps with share links, in load order.
    public let shareAppIDs: [String]
    /// Host (share host or link host) → the first app with share links that claims it.
    private let shareAppByHost: [String: String]
    /// Limits in force.
    public let limits: Limits

    /// Compiles every manifest. Throws the same `ManifestErrors` the loader would for colliding patterns
    /// or an app, host or scheme claimed twice.
    public init(manifests: [AppManifest], limits: Limits = .init()) throws(ManifestErrors) {
        var apps: [String: Compiled] = [:]
        var byScheme: [String: String] = [:]
        var byHost: [String: String] = [:]
        var errors: [ManifestError] = []
        for manifest in manifests {
            let mark = SourceMark(file: manifest.sourceFile, line: 1, column: 1)
            switch RouteMatcher.compile(manifest) {
            case .success(let matcher):
                if apps[manifest.app] != nil {
                    errors.append(ManifestError(.duplicateID, at: mark, "app '\(manifest.app)' is loaded twice", hint: "load it once"))
                }
                apps[manifest.app] = Compiled(manifest: manifest, matcher: matcher)
            case .failure(let collisions):
                for collision in collisions.list {
                    errors.append(ManifestError(.ambiguousPatterns, at: collision.second.mark,
                        "pattern '\(collision.second.pattern)' of \(collision.second.route) and '\(collision.first.pattern)' of \(collision.first.route) can match the same URL: \(collision.reason)",
                        hint: "make one of them more specific"))
                }
            }
            for scheme in manifest.schemes {
                if let other = byScheme[scheme], other != manifest.app {
                    errors.append(ManifestError(.duplicateID, at: mark, "scheme '\(scheme)' is claimed by \(other) and \(manifest.app)", hint: "give each app its own scheme"))
                }
                byScheme[scheme] = manifest.app
            }
            for host in manifest.hosts {
                if let other = byHost[host], other != manifest.app {
                    errors.append(ManifestError(.duplicateID, at: mark, "host '\(host)' is claimed by \(other) and \(manifest.app)", hint: "give each app its own host"))
                }
                byHost[host] = manifest.app
            }
        }
        guard errors.isEmpty else { throw ManifestErrors(errors) }
        self.apps = apps
        self.byScheme = byScheme.compactMapValues { apps[$0] }
        self.byHost = byHost.compactMapValues { apps[$0] }
        self.appIDs = manifests.map(\.app)
        let shareManifests = manifests.filter { $0.share != nil }
        self.shareAppIDs = shareManifests.map(\.app)
        var shareAppByHost: [String: String] = [:]
        for manifest in shareManifests {
            for host in (manifest.share?.hosts ?? []) + manifest.hosts where shareAppByHost[host] == nil {
                shareAppByHost[host] = manifest.app
            }
        }
        self.shareAppByHost = shareAppByHost
        self.limits = limits
    }

    /// The manifest of `app`.
    public func manifest(app: String) -> AppManifest? { apps[app]?.manifest }

    /// Whether `app` has the route `route` (the share path asks for every opening: no copy of the manifest).
    public func hasRoute(app: String, route: String) -> Bool { apps[app]?.manifest.routes[route] != nil }

    /// Every loaded manifest, in load order.
    public var manifests: [AppManifest] { appIDs.compactMap { apps[$0]?.manifest } }

    /// The manifest of the app whose `hosts` name `host` (lowercase, no port; one app per host, checked at load).
    public func manifest(host: String) -> AppManifest? { byHost[host]?.manifest }

    /// The app with share links that claims `host` (lowercase, no port) as a share host or link host.
    public func shareApp(host: String) -> String? { shareAppByHost[host] }

    /// Which app claims this URL's scheme or host (nil when none or when the URL does not parse).
    public func app(for url: String) -> String? {
        guard case .success(let parsed) = IncomingURL.parse(url, maxBytes: limits.maxURLBytes) else { return nil }
        return (parsed.isWeb ? byHost[parsed.host] : byScheme[parsed.scheme])?.manifest.app
    }

    /// Resolves `url` for a caller in `state` (nil: the app's unauthenticated state).
    /// - Parameters:
    ///   - url: custom-scheme or https URL as received.
    ///   - state: the caller's session state.
    ///   - app: the app to resolve against; nil picks it from the scheme or host.
    ///   - links: the share-token lookup (the daemon backs it with its store); called at most once.
    ///   - client: the caller's app version and platform; a route its version lacks (the route's `since`) answers
    ///     `updateRequired` with a fallback. Nil: every route is open to it (today's answer).
    public func resolve(url: String, state: String?, app: String? = nil, client: ClientApp? = nil,
                        links: (ShareLinkQuery) -> LinkStatus = { _ in .unknown }) -> Resolution {
        let resolution = resolveAnyVersion(url: url, state: state, app: app, links: links)
        guard let client else { return resolution }
        return requiringVersion(resolution, client: client, state: state)
    }

    /// `resolve` for an app that has every route.
    private func resolveAnyVersion(url: String, state: String?, app: String?, links: (ShareLinkQuery) -> LinkStatus) -> Resolution {
        let parsed: IncomingURL
        switch IncomingURL.parse(url, maxBytes: limits.maxURLBytes) {
        case .success(let value): parsed = value
        case .failure(let problem): return .failure(problem, app: app)
        }
        let compiled: Compiled
        if let app {
            guard let named = apps[app] else { return .failure(.init(.unknownApp, "app '\(app)' is not loaded")) }
            compiled = named
        } else if let found = parsed.isWeb ? byHost[parsed.host] : byScheme[parsed.scheme] {
            compiled = found
        } else {
            return .failure(.init(.unknownApp, "no app claims \(parsed.isWeb ? "host '\(parsed.host)'" : "scheme '\(parsed.scheme)'")"))
        }
        let appID = compiled.manifest.app
        if parsed.isWeb {
            guard compiled.manifest.hosts.contains(parsed.host) else {
                return .failure(.init(.unknownApp, "host '\(parsed.host)' is not a host of \(appID)"), app: appID)
            }
            if let port = parsed.port, !compiled.manifest.ports.contains(port) {
                return .failure(.init(.portRefused, "port \(port) is not configured for \(appID)"), app: appID)
            }
        } else {
            guard compiled.manifest.schemes.contains(parsed.scheme) else {
                return .failure(.init(.unknownApp, "scheme '\(parsed.scheme)' is not a scheme of \(appID)"), app: appID)
            }
            if parsed.port != nil {
                return .failure(.init(.portRefused, "a custom-scheme URL has no port"), app: appID)
            }
        }
        let callerState = state ?? compiled.manifest.unauthenticatedState
        guard compiled.manifest.states.contains(callerState) else {
            return .failure(.init(.unknownState, "state '\(callerState)' is not a state of \(appID) (\(compiled.manifest.states.joined(separator: ", ")))"), app: appID)
        }

        // An http(s) path with an empty segment: iOS never opens it in the app (the apple-app-site-association
        // excludes `*//*`), so it resolves nowhere.
        if let path = parsed.emptySegmentPath {
            return notFound(compiled, state: callerState, problem: .init(.nonCanonicalPath,
                "path '\(path)' has an empty segment ('//'); iOS does not open such a URL in the app, so linkd does not resolve it (write one '/' between segments)"))
        }

        // Share links first: on the share hosts (or any host when none are listed) and on the custom schemes.
        // `matcher.share` exists only when the manifest has share links.
        if let shareTrie = compiled.matcher.share,
           !parsed.isWeb || compiled.shareHosts.isEmpty || compiled.shareHosts.contains(parsed.host),
           let (terminal, values) = shareTrie.match(parsed.segments, spellings: parsed.spellings),
           let index = terminal.paramNames.firstIndex(of: "token"), index < values.count, let share = compiled.manifest.share {
            return resolveShare(token: values[index], url: url, state: callerState, compiled: compiled, share: share, links: links)
        }

        guard let (terminal, values) = compiled.matcher.routes.match(parsed.segments, spellings: parsed.spellings) else {
            // A long link on the app's host (no route takes its path) resolves as the deep link it carries, once.
            if parsed.isWeb, parsed.segments.isEmpty, let longLink = LongLink.parse(url) {
                return resolveLongLink(longLink, state: state, callerState: callerState, compiled: compiled, links: links)
            }
            let spelling = parsed.firstNonCanonical.map {
                " (on http(s) a literal or uuid segment matches only as the apple-app-site-association writes it — unreserved characters as they are, others as %XX with uppercase hex — and '\($0)' is not written so)"
            } ?? ""
            return notFound(compiled, state: callerState, problem: .init(.noMatch, "no route of \(appID) matches '/\(parsed.segments.joined(separator: "/"))'" + spelling))
        }
        var params: [String: String] = [:]
        for (name, value) in zip(terminal.paramNames, values) { params[name] = value }
        guard let compiledRoute = compiled.routes[terminal.route] else {
            return notFound(compiled, state: callerState, problem: .init(.noMatch, "route \(terminal.route) is missing"))
        }
        let route = compiledRoute.route
        for (name, spec) in route.query {
            if let value = parsed.query[name] {
                guard spec.type.accepts(Substring(value)) else {
                    return notFound(compiled, state: callerState, problem: .init(.badQuery, "query param '\(name)' is not a valid \(spec.type.rawValue)"))
                }
                params[name] = value
            } else if spec.required {
                return notFound(compiled, state: callerState, problem: .init(.badQuery, "query param '\(name)' is required"))
            }
        }
        return open(compiledRoute, params: params, url: url, state: callerState, compiled: compiled)
    }

    /// `resolution` for an app of `client`'s version: when the route it shows is newer than the app, outcome
    /// `updateRequired` with the version needed, the store page, and the nearest ancestor the app has as `fallback`
    /// (its parent chain, then its tab's root, then the state's root), placed for the same state.
    func requiringVersion(_ resolution: Resolution, client: ClientApp, state: String?) -> Resolution {
        guard let appID = resolution.app, let compiled = apps[appID], let routeID = resolution.route,
              let route = compiled.routes[routeID]?.route, !client.has(route.since),
              let needed = route.since?.required(on: client.platform)
        else { return resolution }
        let manifest = compiled.manifest
        let callerState = state ?? manifest.unauthenticatedState
        var updated = resolution
        updated.outcome = .updateRequired
        let storeURL: String? = switch client.platform {
        case .ios: manifest.appStoreID.map { "https://apps.apple.com/app/id\($0)" }
        case .android: manifest.androidPackage.map { "https://play.google.com/store/apps/details?id=\($0)" }
        case nil: nil
        }
        updated.update = .init(requiredVersion: needed.description, platform: client.platform?.rawValue, storeURL: storeURL)
        var candidates: [String] = []
        var current = route.parent
        while let id = current, candidates.count < 64, let parent = manifest.routes[id] {
            candidates.append(id)
            current = parent.parent
        }
        let owner = ([route.tab] + candidates.map { manifest.routes[$0]?.tab }).lazy.compactMap { $0 }.first
        if let root = (owner.flatMap { id in manifest.tabs.first { $0.id == id } } ?? manifest.defaultTab)?.root,
           manifest.tabStates.contains(callerState) {
            candidates.append(root)
        }
        if let root = manifest.stateRoots[callerState] { candidates.append(root) }
        for id in candidates where id != routeID {
            guard let fallback = compiled.routes[id], client.has(fallback.route.since), fallback.route.states.contains(callerState) else { continue }
            let declared = fallback.route.declaredParams
            let params = resolution.params.filter { declared[$0.key] != nil }
            updated.fallback = .init(place(fallback, params: params, state: callerState, compiled: compiled))
            break
        }
        return updated
    }

    /// Checks that `route` of `app` can be the target of a share link with these params.
    public func checkShareTarget(app: String, route routeID: String, params: [String: String]) throws(RouteError) {
        guard let manifest = apps[app]?.manifest else { throw RouteError(code: .unknownApp, message: "app '\(app)' is not loaded") }
        guard let route = manifest.routes[routeID] else { throw RouteError(code: .unknownRoute, message: "\(app) has no route '\(routeID)'") }
        guard route.shareable else {
            throw RouteError(code: .notShareable, message: "route \(routeID) is not shareable"
                + (manifest.share.map { $0.route != routeID && manifest.routes[$0.route]?.shareable == true ? " (\(app) shares through \($0.route))" : "" } ?? ""))
        }
        let declared = route.declaredParams
        for (name, value) in params {
            guard let spec = declared[name] else {
                throw RouteError(code: .badParams, message: "route \(routeID) has no param '\(name)'")
            }
            if let refusal = spec.refusal(of: value) {
                throw RouteError(code: .badParams, message: "param '\(name)' of \(routeID) \(refusal)")
            }
        }
        if let missing = declared.filter({ $0.value.required && params[$0.key] == nil }).keys.sorted().first, let spec = declared[missing] {
            throw RouteError(code: .badParams, message: "route \(routeID) needs param '\(missing)' (\(spec.type.rawValue))")
        }
    }

    /// The public share URL for a token: `https://<first share host><share path with the token>`.
    public func shareURL(app: String, token: String) -> String? {
        shareURLAndPath(app: app, token: token)?.url
    }

    /// `shareURL(app:token:)` and the share path in it, after the host's `/` (`s/TOKEN`): what the app's custom
    /// scheme opens as `handz://s/TOKEN`.
    public func shareURLAndPath(app: String, token: String) -> (url: String, path: String)? {
        guard let compiled = apps[app], let host = compiled.manifest.shareHosts.first, let path = sharePath(compiled, token: token)
        else { return nil }
        return ("https://\(host)/\(path)", path)
    }

    /// The share URLs of a token, one per host its app's share path is served on (`AppManifest.shareHosts`), the
    /// first share host first; empty when the app has no share section.
    public func shareURLs(app: String, token: String) -> [(host: String, url: String)] {
        guard let compiled = apps[app], let path = sharePath(compiled, token: token) else { return [] }
        return compiled.manifest.shareHosts.map { (host: $0, url: "https://\($0)/\(path)") }
    }

    /// The app's share path with `token` in place of `:token`, without its leading `/`; nil without a share section.
    private func sharePath(_ compiled: Compiled, token: String) -> String? {
        guard let segments = compiled.sharePathSegments else { return nil }
        // A token or short id is base64url or base62: nothing to escape (the common case, without Foundation's
        // CharacterSet, which was a twentieth of a link creation's CPU).
        let plain = token.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        let encoded = plain ? token : token.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? token
        var path = ""
        for (index, segment) in segments.enumerated() {
            if index > 0 { path += "/" }
            path += segment == ":token" ? encoded : segment
        }
        return path
    }

}
