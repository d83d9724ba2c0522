package import Foundation
package import LinkRouter
import LinkStore

/// What publishing a manifest does to what is already out there: the live links it would strand (their route gone,
/// or params they lack or carry in another type), the links `moves` carry to other routes, the states that can no
/// longer open a route that has live links, the example URLs whose resolution changes, and the patterns the
/// well-known files stop covering. Computed before a publish; `strands` decides whether it needs `moves` or `force`.
package struct ManifestImpact: Encodable, Sendable {
    /// Live links of one route that the new manifest cannot open as they are.
    struct Stranded: Encodable, Sendable {
        /// The route the links have.
        let route: String
        /// `route_removed`, `params_changed`; for every live link at once (`route` `*`): `share_removed`,
        /// `share_path_changed`, `share_host_removed`.
        let reason: String
        /// What changed, in words.
        let detail: String
        /// How many live links.
        let count: Int
        /// A few of their ids.
        let sample: [String]
    }
    /// Live links carried to another route by `moves`.
    struct Moved: Encodable, Sendable {
        let from: String
        let to: String
        let params: [String: String]
        let count: Int
        let sample: [String]
    }
    /// Live links of a route that some states can no longer open (they get the app's intercept or not-found answer).
    struct LostStates: Encodable, Sendable {
        let route: String
        let states: [String]
        let count: Int
        let sample: [String]
    }
    /// An example URL whose resolution changes for a state.
    struct ChangedURL: Encodable, Sendable {
        let url: String
        let state: String
        /// `outcome route` before (`notFound`, `route Library/FlowDetail`, …).
        let before: String
        /// The same after.
        let after: String
    }

    /// The app.
    let app: String
    /// The version in force before (nil: a new app).
    let fromVersion: Int?
    /// Live links of the app (active, not expired).
    let liveLinks: Int
    /// Live links the new manifest strands.
    let stranded: [Stranded]
    /// Live links `moves` carry.
    let moved: [Moved]
    /// Routes with live links that some states can no longer open.
    let lostStates: [LostStates]
    /// Example URLs (every route pattern of both versions, in every state) whose resolution changes; at most
    /// `maxChangedURLs` listed.
    let changedURLs: [ChangedURL]
    /// How many example URLs change in all.
    let changedURLCount: Int
    /// Path patterns the old manifest had and the new one has not: the well-known files stop covering them.
    let uncoveredPatterns: [String]

    /// How many changed URLs a report lists.
    static let maxChangedURLs = 100

    /// Whether publishing would strand live links.
    var strands: Bool { !stranded.isEmpty }
    /// How many live links would be stranded.
    var strandedLinks: Int { stranded.reduce(0) { $0 + $1.count } }

    private enum CodingKeys: String, CodingKey {
        case app, fromVersion, liveLinks, strandedLinks, stranded, moved, lostStates, changedURLs, changedURLCount, uncoveredPatterns
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(app, forKey: .app)
        try container.encodeIfPresent(fromVersion, forKey: .fromVersion)
        try container.encode(liveLinks, forKey: .liveLinks)
        try container.encode(strandedLinks, forKey: .strandedLinks)
        try container.encode(stranded, forKey: .stranded)
        try container.encode(moved, forKey: .moved)
        try container.encode(lostStates, forKey: .lostStates)
        try container.encode(changedURLs, forKey: .changedURLs)
        try container.encode(changedURLCount, forKey: .changedURLCount)
        try container.encode(uncoveredPatterns, forKey: .uncoveredPatterns)
    }

    /// The impact of replacing `old` (nil: a new app) with `new` (nil: retiring the app), given the app's live links
    /// per route and the moves asked for. Throws `ManifestPublishError.badMoves` for a move the new manifest cannot
    /// take (an unknown route, a param it needs that the links lack).
    static func compute(
        app: String, fromVersion: Int?, old: AppManifest?, new: AppManifest?, oldRouter: Router?, newRouter: Router?,
        live: [RouteLiveLinks], moves: [LinkMove]
    ) throws(ManifestPublishError) -> ManifestImpact {
        var stranded: [Stranded] = []
        var moved: [Moved] = []
        var lost: [LostStates] = []
        for group in live {
            let oldRoute = old?.routes[group.route]
            if let move = moves.first(where: { $0.from == group.route }) {
                guard let target = new?.routes[move.to] else {
                    throw .badMoves("moves: \(move.from) → \(move.to): the new manifest has no route \(move.to)")
                }
                if let problem = paramProblem(from: oldRoute, renames: move.params, to: target) {
                    throw .badMoves("moves: \(move.from) → \(move.to): \(problem)")
                }
                moved.append(Moved(from: move.from, to: move.to, params: move.params, count: group.count, sample: group.sample))
                continue
            }
            guard let newRoute = new?.routes[group.route] else {
                stranded.append(Stranded(
                    route: group.route, reason: "route_removed",
                    detail: new == nil ? "the app is retired" : "the new manifest has no route \(group.route)",
                    count: group.count, sample: group.sample))
                continue
            }
            if let problem = paramProblem(from: oldRoute, renames: [:], to: newRoute) {
                stranded.append(Stranded(route: group.route, reason: "params_changed", detail: problem, count: group.count, sample: group.sample))
                continue
            }
            let gone = (oldRoute?.states ?? []).filter { !newRoute.states.contains($0) }
            if !gone.isEmpty { lost.append(LostStates(route: group.route, states: gone, count: group.count, sample: group.sample)) }
        }
        if let problem = shareProblem(old: old, new: new), !live.isEmpty {
            // Every live link's URL stops resolving, whatever its route: no move carries that.
            stranded.append(Stranded(
                route: "*", reason: problem.reason, detail: problem.detail, count: live.reduce(0) { $0 + $1.count },
                sample: Array(live.flatMap(\.sample).prefix(RouteLiveLinks.sampleSize))))
        }
        for move in moves where !live.contains(where: { $0.route == move.from }) {
            guard new?.routes[move.to] != nil else {
                throw .badMoves("moves: \(move.from) → \(move.to): the new manifest has no route \(move.to)")
            }
        }
        let (changed, changedCount) = changedURLs(old: old, new: new, oldRouter: oldRouter, newRouter: newRouter)
        let newPatterns = Set(new?.routes.values.flatMap(\.patterns) ?? [])
        let uncovered = Set(old?.routes.values.flatMap(\.patterns) ?? []).subtracting(newPatterns).sorted()
        return ManifestImpact(
            app: app, fromVersion: fromVersion, liveLinks: live.reduce(0) { $0 + $1.count }, stranded: stranded, moved: moved,
            lostStates: lost, changedURLs: changed, changedURLCount: changedCount, uncoveredPatterns: uncovered)
    }

    /// The impact of replacing `old` with `new` with no store at hand (`linkd manifest diff`): every route of `old`
    /// counts as having one live link (so the report names every route a live link could be stranded on), as JSON.
    package static func offlineReport(old: AppManifest, new: AppManifest) throws -> Data {
        let oldRouter = try Router(manifests: [old]), newRouter = try Router(manifests: [new])
        let live = old.routeOrder.map { RouteLiveLinks(route: $0, count: 1, sample: []) }
        let impact = try compute(
            app: new.app, fromVersion: nil, old: old, new: new, oldRouter: oldRouter, newRouter: newRouter, live: live, moves: [])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(impact)
    }

    /// Why the share URLs `old` made stop resolving under `new`: no `share` section any more, another share path, or
    /// a share host gone; nil when they go on resolving (or `new` is nil: the retirement says so itself).
    static func shareProblem(old: AppManifest?, new: AppManifest?) -> (reason: String, detail: String)? {
        guard let old, let new, let before = old.share else { return nil }
        guard let after = new.share else {
            return ("share_removed", "the new manifest has no share section: no share URL of \(new.app) resolves")
        }
        if before.path != after.path {
            return ("share_path_changed", "share URLs change from \(before.path) to \(after.path): the ones out there stop resolving")
        }
        let hostsBefore = before.hosts.isEmpty ? old.hosts : before.hosts
        let hostsAfter = after.hosts.isEmpty ? new.hosts : after.hosts
        if let gone = hostsBefore.first(where: { !hostsAfter.contains($0) || !new.hosts.contains($0) }) {
            return ("share_host_removed", "share URLs on \(gone) stop resolving")
        }
        return nil
    }

    /// Why links of `old` (params renamed by `renames`) cannot open `new`: a param `new` needs that `old` does not
    /// give, or gives in another type; nil when they can.
    static func paramProblem(from old: AppManifest.Route?, renames: [String: String], to new: AppManifest.Route) -> String? {
        var given: [String: ParamType] = [:]
        for (name, param) in old?.declaredParams ?? [:] { given[renames[name] ?? name] = param.type }
        for (name, param) in new.declaredParams.sorted(by: { $0.key < $1.key }) {
            if let type = given[name] {
                if type != param.type, param.type != .string {
                    return "param '\(name)' of \(new.id) is \(param.type.rawValue); the links carry a \(type.rawValue)"
                }
            } else if param.required, !new.patterns.contains(where: { $0.contains(":\(name)") }) {
                return "route \(new.id) needs param '\(name)', which the links do not carry"
            }
        }
        return nil
    }

    /// Example URLs of every pattern of both manifests, resolved by both routers in every state both know.
    private static func changedURLs(
        old: AppManifest?, new: AppManifest?, oldRouter: Router?, newRouter: Router?
    ) -> ([ChangedURL], Int) {
        let manifests = [old, new].compactMap { $0 }
        guard let any = manifests.first else { return ([], 0) }
        var urls: [String] = []
        var seen: Set<String> = []
        for manifest in manifests {
            for id in manifest.routeOrder {
                guard let route = manifest.routes[id] else { continue }
                for pattern in route.patterns {
                    for url in exampleURLs(pattern: pattern, route: route, manifest: manifest) where seen.insert(url).inserted {
                        urls.append(url)
                    }
                }
            }
        }
        let states = (old?.states ?? any.states).filter { (new?.states ?? []).contains($0) || new == nil }
        var changed: [ChangedURL] = []
        var count = 0
        for url in urls {
            for state in states {
                let before = summary(oldRouter?.resolve(url: url, state: state, app: any.app))
                let after = summary(newRouter?.resolve(url: url, state: state, app: any.app))
                guard before != after else { continue }
                count += 1
                if changed.count < maxChangedURLs { changed.append(ChangedURL(url: url, state: state, before: before, after: after)) }
            }
        }
        return (changed, count)
    }

    private static func summary(_ resolution: Resolution?) -> String {
        guard let resolution else { return "none" }
        return resolution.route.map { "\(resolution.outcome.rawValue) \($0)" } ?? resolution.outcome.rawValue
    }

    /// A URL `pattern` matches, its params filled with a value of their type, required query params added: on the
    /// app's first host, else its first custom scheme.
    static func exampleURLs(pattern: String, route: AppManifest.Route, manifest: AppManifest) -> [String] {
        guard let parsed = try? PathPattern(parsing: pattern) else { return [] }
        var path = ""
        for (segment, _) in parsed.segments {
            switch segment {
            case .literal(let text): path += "/" + text
            case .param(_, let type): path += "/" + sampleValue(type)
            case .wildcard: path += "/example"
            }
        }
        if path.isEmpty { path = "/" }
        let query = route.query.filter(\.value.required).sorted { $0.key < $1.key }.map { "\($0.key)=\(sampleValue($0.value.type))" }
        let suffix = query.isEmpty ? "" : "?" + query.joined(separator: "&")
        if let host = manifest.hosts.first { return ["https://\(host)\(path)\(suffix)"] }
        if let scheme = manifest.schemes.first { return ["\(scheme):/\(path)\(suffix)"] }
        return []
    }

    private static func sampleValue(_ type: ParamType) -> String {
        switch type {
        case .string: "example"
        case .int: "42"
        case .uuid: "6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b"
        case .slug: "example-slug"
        }
    }
}
