import Foundation
import LinkRouter
import LinkStore

/// Custom paths (`CustomPath`): a link's own path on its app's share hosts (`https://links.handz.example/guard-pass`),
/// answered like its short id — the same pages, the same resolution — for as long as the link holds it.
///
/// A path is refused (`409 path_taken`, naming what holds it) when one of the app's route patterns matches it (the
/// manifest's routes come first), when it starts with one of linkd's own prefixes, or when another link of the app
/// holds it (in any case: `CustomPath`'s case rule). A revoked or expired link holds its path (and answers 410 there)
/// until a new link takes it; the old link then no longer answers at that path.
extension LinkService {
    /// The most live custom paths an app may hold outside its `share.pathPatterns`: its apple-app-site-association
    /// and assetlinks.json list each (`CustomPathFiles`), and both must stay under `WellKnownFiles.maxBytes`. Paths
    /// the patterns cover are not listed (the files cover each pattern once) and do not count.
    static let maxCustomPathsPerApp = 200

    /// The token a path of `share.pathPatterns` that no link holds resolves with (`/s/<this>`): `unknown` at once,
    /// as an unknown short id is, without a store read or a signature check (`memoryStatus`).
    static let patternMissToken = "-"

    /// The shapes `liveCustomPaths` leaves out for `manifest`: its `share.pathPatterns`.
    static func patternShapes(_ manifest: AppManifest) -> CustomPathShapes {
        CustomPathShapes((manifest.share?.pathPatterns ?? []).map(\.text), caseInsensitive: manifest.caseInsensitivePaths)
    }

    /// Prefixes of paths linkd answers itself on every host (compared in lowercase): never a custom path.
    static let reservedPathPrefixes = ["/s/", "/v1/", "/.well-known/", "/static/", "/admin", "/healthz", "/readyz", "/metrics"]

    /// What holds a path that a new link may not take.
    enum PathHolder: Encodable, Sendable {
        case route(String)
        case reserved(String)
        case link(String)

        enum CodingKeys: String, CodingKey { case kind, name }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .route(let id): try container.encode("route", forKey: .kind); try container.encode(id, forKey: .name)
            case .reserved(let prefix): try container.encode("reserved", forKey: .kind); try container.encode(prefix, forKey: .name)
            case .link(let id): try container.encode("link", forKey: .kind); try container.encode(id, forKey: .name)
            }
        }

        /// The 409 a creation of a link on this path gets.
        /// `path`: the path refused, when it has a custom path's shape (nil: not repeated in the message).
        func refusal(_ path: String?) -> LinkError {
            let what = switch self {
            case .route(let id): "route \(id) of the manifest matches it"
            case .reserved(let prefix): "linkd answers \(prefix)… itself"
            case .link(let id): "link \(id) holds it"
            }
            return LinkError(.pathTaken, "path \(path.map { $0 + " " } ?? "")is taken: \(what)", holder: self)
        }
    }

    /// Checks a new link's `path` against its shape, linkd's prefixes, the app's share path and route patterns, and
    /// the cap on live paths; the store's unique index decides between links.
    func checkCustomPath(_ path: String, app: String, manifest: AppManifest, router: Router) async throws(LinkError) {
        try checkCustomPathShape(path, manifest: manifest, router: router)
        guard countsAgainstCustomPathCap(path, manifest: manifest) else { return }
        guard try await customPathRoom(app: app, manifest: manifest) > 0 else {
            throw LinkError(.conflict, "app \(app) has \(Self.maxCustomPathsPerApp) live custom paths outside its share.pathPatterns, "
                + "the most it may have (each is listed in its well-known files); a path that share.pathPatterns covers does not count")
        }
    }

    /// Checks `path` against its shape, linkd's prefixes, the app's share path and its route patterns (no store read).
    func checkCustomPathShape(_ path: String, manifest: AppManifest, router: Router) throws(LinkError) {
        // linkd's own prefixes first (`/.well-known/…` is refused as linkd's, not for its `.`); a path of the app's
        // `share.pathPatterns` is refused only for what linkd answers itself there (`CustomPathPattern.isLinkdsOwn`).
        let lower = CustomPath.key(path)
        var reserved = Self.reservedPathPrefixes
        if let share = manifest.share, let literal = share.path.split(separator: "/").first, !literal.hasPrefix(":") {
            reserved.append("/\(literal.lowercased())/")
        }
        let covered = CustomPath.isShape(path) && manifest.pathPatternsCover(path)
        for prefix in reserved where !covered && (lower.hasPrefix(prefix) || lower + "/" == prefix) {
            throw PathHolder.reserved(prefix).refusal(nil)
        }
        if let problem = CustomPath.problem(path) { throw LinkError(.invalid, problem) }
        if let route = routeMatching(path, manifest: manifest, router: router) {
            throw PathHolder.route(route).refusal(path)
        }
    }

    /// Whether a live link holding `path` takes one of its app's `maxCustomPathsPerApp` places: every path outside
    /// the app's `share.pathPatterns` does (each is listed in the well-known files); a covered one does not. The one
    /// place that decides it, for creations and imports.
    func countsAgainstCustomPathCap(_ path: String, manifest: AppManifest) -> Bool {
        !(CustomPath.isShape(path) && manifest.pathPatternsCover(path))
    }

    /// How many more live custom paths outside its `share.pathPatterns` `app` may have now (one store read).
    func customPathRoom(app: String, manifest: AppManifest) async throws(LinkError) -> Int {
        let live = try await Self.storing {
            try await store.liveCustomPaths(app: app, limit: Self.maxCustomPathsPerApp, outside: Self.patternShapes(manifest))
        }
        return max(0, Self.maxCustomPathsPerApp - live.count)
    }

    /// Whether a resolution is the one a custom path gets from the router: no pattern matched.
    static func mayBeCustomPath(_ resolution: Resolution) -> Bool {
        resolution.outcome == .notFound && resolution.problem?.code == .noMatch
    }

    /// Whether one of `app`'s route patterns takes `path` (one resolution): matches it, or — on a path of its
    /// `share.pathPatterns` (`covered`), which linkd answers anyway — resolves it.
    func routeMatches(_ path: String, app: String, covered: Bool = false) -> Bool {
        guard let manifest = router.manifest(app: app), let host = manifest.hosts.first else { return false }
        let resolution = router.resolve(url: "https://\(host)\(path)", state: nil, app: app)
        if covered { return !Self.mayBePatternPath(resolution) }
        guard resolution.outcome == .notFound, let code = resolution.problem?.code else { return true }
        return code != .noMatch && code != .unknownApp
    }

    /// Whether a resolution leaves a path of `share.pathPatterns` to its link (or to the unavailable answer): no
    /// route resolved it (a route whose params' types refuse the path does not take it; one the state may not open
    /// does).
    static func mayBePatternPath(_ resolution: Resolution) -> Bool {
        guard resolution.outcome == .notFound, let code = resolution.problem?.code else { return false }
        return code != .notAllowed && code != .nonCanonicalPath
    }

    /// The route one of `manifest`'s patterns opens at `path` (on any of its hosts), or nil when none matches.
    private func routeMatching(_ path: String, manifest: AppManifest, router: Router) -> String? {
        guard let host = manifest.hosts.first else { return nil }
        let url = "https://\(host)\(path)"
        let resolution = router.resolve(url: url, state: nil, app: manifest.app)
        if resolution.outcome == .notFound, let code = resolution.problem?.code, code == .noMatch || code == .unknownApp { return nil }
        // The route the pattern names: as a state that may open it sees it (the signed-out state may be intercepted).
        for state in manifest.states {
            let opened = router.resolve(url: url, state: state, app: manifest.app)
            if opened.outcome == .route, let route = opened.route { return route }
        }
        return resolution.intercept?.continuation?.route ?? resolution.route ?? "(a route pattern)"
    }

    /// The URL of a custom path: on the app's first share host.
    static func customPathURL(_ path: String, app: String, router: Router) -> String? {
        guard let host = router.manifest(app: app)?.shareHosts.first else { return nil }
        return "https://\(host)\(path)"
    }

    // MARK: Answering at a custom path

    /// The app and path `url` names when it may be a custom path: an http(s) URL on a share host of an app, whose
    /// path (as written, one trailing `/` allowed, as routes allow it) has a custom path's shape and is not linkd's;
    /// `covered` when one of the app's `share.pathPatterns` covers it (linkd answers it, held or not).
    func customPathCandidate(url: String) -> (app: String, path: String, covered: Bool)? {
        guard let (path, _) = LongLink.pathAndQuery(url), let start = url.range(of: "://") else { return nil }
        let authority = url[start.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return customPathCandidate(host: String(authority), path: path)
    }

    /// `customPathCandidate` of a request: its `Host` and the path of its target.
    func customPathCandidate(host: String, path: Substring) -> (app: String, path: String, covered: Bool)? {
        var path = path
        if path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        let hostname = Authority.hostname(host)
        guard let app = router.shareApp(host: hostname), let manifest = router.manifest(app: app),
              manifest.shareHosts.contains(hostname) else { return nil }
        if manifest.pathPatternsCover(path) { return (app, String(path), true) }
        guard CustomPath.isShape(path) else { return nil }
        let lower = CustomPath.key(String(path))
        guard !Self.reservedPathPrefixes.contains(where: { lower.hasPrefix($0) || lower + "/" == $0 }) else { return nil }
        return (app, String(path), false)
    }

    /// What memory says of the link at a custom path: its record (when it holds the path in this spelling), none,
    /// or unknown to memory (`needsRecord` with a key `load` reads).
    enum PathVerdict {
        case link(LinkRecord?)
        case needsRecord(String)
    }

    /// The link at `path` of `app` from memory (none, at once, for a path no link may hold: a path of
    /// `share.pathPatterns` in other characters, `/%41bc`).
    func cachedPathLink(app: String, path: String) -> PathVerdict {
        guard CustomPath.isShape(path) else { return .link(nil) }
        return switch store.cachedLink(app: app, path: path) {
        case .unknown: .link(nil)
        case .miss: .needsRecord(Self.pathKey(app: app, path: path))
        case .record(let record): .link(holds(record, path: path) ? record : nil)
        }
    }

    /// The link at `path` of `app`, reading the store when memory does not know; nil for none (a store failure too).
    func pathLink(app: String, path: String) async -> LinkRecord? {
        guard CustomPath.isShape(path), let record = try? await store.link(app: app, path: path) else { return nil }
        return holds(record, path: path) ? record : nil
    }

    /// Whether `record` answers at `path`: it holds it in this spelling (any case in an app whose manifest says
    /// `caseInsensitivePaths`, as its routes do).
    private func holds(_ record: LinkRecord, path: String) -> Bool {
        guard let held = record.path else { return false }
        if held == path { return true }
        return router.manifest(app: record.app)?.caseInsensitivePaths == true && CustomPath.key(held) == CustomPath.key(path)
    }

    /// The URL `url` resolves as: a custom path's link's short URL, when `url` (or the deep link of a long link) is
    /// one; for a path of `share.pathPatterns` no link holds, the share URL of `patternMissToken` (what an unknown
    /// short id resolves to); else `url`. `nil` when memory does not know the path: `missing` gets the key `load`
    /// reads. Asked only when no route took the URL (`mayBeCustomPath`, `mayBePatternPath`): a route comes first.
    func customPathTarget(_ url: String, resolution: Resolution, missing: inout [String]) -> String? {
        var candidateURL = url
        if case .inner(let inner)? = LongLink.parse(url) { candidateURL = inner }
        guard let (app, path, covered) = customPathCandidate(url: candidateURL) else { return url }
        if candidateURL != url, router.app(for: url) != app { return url }
        guard covered ? Self.mayBePatternPath(resolution) : Self.mayBeCustomPath(resolution) else { return url }
        switch cachedPathLink(app: app, path: path) {
        case .needsRecord(let key):
            missing.append(key)
            return nil
        case .link(let record):
            if let shortID = record?.shortID, let short = router.shareURL(app: app, token: shortID) { return short }
            return covered ? router.shareURL(app: app, token: Self.patternMissToken) ?? url : url
        }
    }

    /// The `needsRecord` key of a custom path (a short id or a link id never starts with `/`).
    static func pathKey(app: String, path: String) -> String { app + path }

    /// Reads the link of a `pathKey` into memory.
    func loadPath(_ key: String) async {
        guard let slash = key.firstIndex(of: "/") else { return }
        _ = try? await store.link(app: String(key[..<slash]), path: String(key[slash...]))
    }
}
