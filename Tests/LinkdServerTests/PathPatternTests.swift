import Foundation
import HTTPTypes
import LinkRouter
import LinkStore
import LinkdTestSupport
import Testing

@testable import LinkdServer

/// `share.pathPatterns` (Handz with `/l/*`, `/????`, `/?????`, `/tab/*`, `/moves/*`: `PathPatternFixtures`): a path of a pattern
/// is linkd's to answer on the share host — the link holding it, or what an unknown short id gets — the well-known
/// files cover each pattern once whatever the number of links, and such paths do not count toward the cap of 200
/// listed custom paths.
@Suite("Custom paths: share.pathPatterns", .serialized)
struct PathPatternTests {
    static let host = CustomPathTests.host

    /// `withAPI` on the examples with Handz's patterns, no rate limit (hundreds of resolutions).
    static func withPatterns(on backend: StoreKind = .sqlite, _ body: @escaping @Sendable (API) async throws -> Void) async throws {
        let manifests = try PathPatternFixtures.manifestPaths()
        try await withAPI(on: backend, { $0.links.manifests = manifests; $0.limits.rateLimitPerSecond = 0 }, body)
    }

    /// Whether the app opens `path` by `matcher` exactly when `/v1/resolve` resolves it (to a route, or as an
    /// unavailable link); what it resolved as.
    static func agreement(_ api: API, _ matcher: AppleLinkMatcher, _ path: String) async throws -> (agrees: Bool, outcome: String) {
        let resolution = try await api.resolve("https://\(host)\(path)", state: "free")
        let outcome = resolution["outcome"] as? String ?? ""
        let resolves = AppleLinkCandidates.resolvesToRoute(outcome: outcome, problem: (resolution["problem"] as? [String: Any])?["code"] as? String)
        return (resolves == matcher.opensInApp(path: path), outcome)
    }

    /// A path of four lowercase letters and digits (no two differ only by case), from `index`.
    static func code(_ index: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var rest = index, out = ""
        for _ in 0..<4 {
            out.append(alphabet[rest % 36])
            rest /= 36
        }
        return "/" + out
    }

    @Test("300 links on pattern paths (over the cap): each answered and resolved, all covered by the AASA's patterns, whose size does not change", arguments: StoreKind.allCases)
    func manyPatternPaths(backend: StoreKind) async throws {
        try await Self.withPatterns(on: backend) { api in
            let key = try await api.clientKey(app: "handz")
            let before = try await api.get("/.well-known/apple-app-site-association", host: Self.host)
            let assetLinksBefore = try await api.get("/.well-known/assetlinks.json", host: Self.host)
            let paths = (0..<150).map { "/l/old-\($0)" } + (0..<150).map { Self.code($0 * 7_919 + 11) }
            var ids: [String: String] = [:]
            for path in paths {
                let created = try await CustomPathTests.create(api, key: key, path: path)
                #expect(created.status == 201, "\(path): \(created.text)")
                ids[path] = created.string("id")
            }
            let after = try await api.get("/.well-known/apple-app-site-association", host: Self.host)
            #expect(after.text == before.text, "the files cover the patterns, not each path")
            #expect(try await api.get("/.well-known/assetlinks.json", host: Self.host).text == assetLinksBefore.text)
            let matcher = try AppleLinkMatcher(json: Data(after.text.utf8))
            for path in paths {
                let resolution = try await api.resolve("https://\(Self.host)\(path)", state: "free")
                #expect((resolution["link"] as? [String: Any])?["id"] as? String == ids[path], "\(path)")
                #expect(resolution["route"] as? String == "ShareLink/FlowView", "\(path)")
                #expect(matcher.opensInApp(path: path) && matcher.opensInApp(path: path + "/"), "\(path)")
            }
            for path in paths.prefix(3) + paths.suffix(3) {
                #expect(try await CustomPathTests.page(api, path, userAgent: UserAgent.desktop).status == 200, "\(path)")
            }
        }
    }

    @Test("the cap of 200 counts only paths outside the patterns: the 201st such path is refused (409 naming share.pathPatterns), pattern paths still made", arguments: StoreKind.allCases)
    func capOutsidePatterns(backend: StoreKind) async throws {
        try await Self.withPatterns(on: backend) { api in
            let key = try await api.clientKey(app: "handz")
            let now = Date()
            func record(_ path: String) -> LinkRecord {
                LinkRecord(
                    id: UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased(), app: "handz", route: "ShareLink/FlowView",
                    params: ["flowId": UUID().uuidString.lowercased()], owner: nil, title: nil, created: now,
                    expires: now.addingTimeInterval(86_400), shortID: ShortID.generate(), path: path)
            }
            // 250 pattern paths (`_` and `-` in them, as the shapes' SQL must take them literally), then 199 outside:
            // three segments under /l/, six characters, a name.
            for index in 0..<250 { try await api.store.createLink(record(index.isMultiple(of: 2) ? "/l/a_\(index)" : Self.code(index * 31 + 5))) }
            for index in 0..<199 {
                let path = switch index % 3 { case 0: "/l/a/\(index)"; case 1: "/x\(100_000 + index)"; default: "/team-\(index)" }
                try await api.store.createLink(record(path))
            }
            #expect(try await CustomPathTests.create(api, key: key, path: "/the-200th").status == 201)
            let refused = try await CustomPathTests.create(api, key: key, path: "/the-201st")
            #expect(refused.status == 409, "\(refused.text)")
            #expect(refused.text.contains("share.pathPatterns"), "\(refused.text)")
            for path in ["/l/still", "/Zz_9", "/ab_de"] {
                let created = try await CustomPathTests.create(api, key: key, path: path)
                #expect(created.status == 201, "\(path): \(created.text)")
            }
            // The files list the 200 outside the patterns.
            let file = try await api.get("/.well-known/apple-app-site-association", host: Self.host)
            let matcher = try AppleLinkMatcher(json: Data(file.text.utf8))
            #expect(matcher.opensInApp(path: "/the-200th") && matcher.opensInApp(path: "/team-2") && !matcher.opensInApp(path: "/the-201st"))
        }
    }

    @Test("a pattern path no link holds answers what an unknown short id gets: page, QR, resolution; one store read per window")
    func unheldPatternPath() async throws {
        try await Self.withPatterns { api in
            let unknown = "/s/\(ShortID.generate())"
            for agent in [UserAgent.iPhone, UserAgent.android, UserAgent.desktop, UserAgent.crawler] {
                let byShort = try await CustomPathTests.page(api, unknown, userAgent: agent)
                for path in ["/WxYz", "/l/gone", "/l/gone/", "/abcde", "/tab/nowhere"] {
                    let page = try await CustomPathTests.page(api, path, userAgent: agent)
                    #expect(page.status == byShort.status && page.text == byShort.text, "\(path) \(agent): \(page.status)")
                }
            }
            let qr = try await CustomPathTests.page(api, "/WxYz/qr.svg", userAgent: UserAgent.desktop)
            #expect(qr.status == (try await CustomPathTests.page(api, unknown + "/qr.svg", userAgent: UserAgent.desktop)).status)
            let expected = try await api.resolve("https://\(Self.host)\(unknown)", state: "free")
            #expect(expected["outcome"] as? String == "linkUnavailable")
            for path in ["/WxYz", "/l/gone", "/%41bc", "/tab/nowhere"] {
                let resolution = try await api.resolve("https://\(Self.host)\(path)", state: "free")
                #expect(CustomPathTests.same(resolution) == CustomPathTests.same(expected), "\(path): \(resolution)")
            }
            // Routes come first; linkd's own paths and other shapes are not the patterns'.
            #expect(try await api.resolve("https://\(Self.host)/tab/library", state: "free")["route"] as? String == "Tab/Library")
            #expect(try await api.resolve("https://\(Self.host)/moves", state: "free")["route"] as? String == "Moves/Home")
            #expect(try await api.resolve("https://\(Self.host)/moves/new", state: "free")["route"] as? String == "Moves/CreateMove")
            // A route whose param's type refuses the path does not take it: the pattern's.
            #expect(try await api.resolve("https://\(Self.host)/moves/not-a-uuid", state: "free")["outcome"] as? String == "linkUnavailable")
            for path in ["/admin", "/l/a/b", "/abcdef", "/abc"] {
                #expect(try await api.resolve("https://\(Self.host)\(path)", state: "free")["outcome"] as? String == "notFound", "\(path)")
            }
            #expect(try await CustomPathTests.page(api, "/abcdef", userAgent: UserAgent.desktop).status == 404)
            // A miss reads the store once per path and window (the negative cache), pages and resolutions alike.
            let reads = api.faults.pathReads
            for _ in 0..<3 { _ = try await CustomPathTests.page(api, "/QqQq", userAgent: UserAgent.desktop) }
            _ = try await api.resolve("https://\(Self.host)/QqQq", state: "free")
            #expect(api.faults.pathReads == reads + 1)
        }
    }

    @Test("a pattern miss costs a short id's 5 rate-limit tokens")
    func patternMissCost() async throws {
        let manifests = try PathPatternFixtures.manifestPaths()
        try await withAPI({ configuration in
            configuration.links.manifests = manifests
            configuration.limits.rateLimitPerSecond = 0.001
            configuration.limits.rateLimitBurst = 6
        }) { api in
            var statuses: [Int] = []
            for path in ["/AaAa", "/BbBb", "/CcCc"] {
                statuses.append(try await CustomPathTests.page(api, path, userAgent: UserAgent.desktop).status)
            }
            #expect(statuses == [404, 404, 429], "6 tokens: 1 left after one miss, -4 after two (a bucket pays while it holds a token)")
        }
    }

    @Test("the well-known files: each pattern once, linkd's own paths and other shapes excluded; iOS and Android agree with /v1/resolve on held and unheld paths")
    func wellKnownFiles() async throws {
        try await Self.withPatterns { api in
            let key = try await api.clientKey(app: "handz")
            for path in ["/l/held", "/HeLd", "/fived"] { #expect(try await CustomPathTests.create(api, key: key, path: path).status == 201) }
            let file = try await api.get("/.well-known/apple-app-site-association", host: Self.host)
            let matcher = try AppleLinkMatcher(json: Data(file.text.utf8))
            let components = try #require(matcher.details.first).components.map(\.path)
            for glob in ["/l/?*", "/????", "/?????", "/tab/?*"] { #expect(components.filter { $0 == glob }.count == 1, "\(glob)") }
            let paths = ["/l/held", "/l/held/", "/HeLd", "/fived", "/l/nope", "/WxYz", "/WxYz/", "/abcde", "/tab/x", "/tab/library",
                         "/%41bc", "/l/a/b", "/l", "/abc", "/abcdef", "/admin", "/admin/", "/tab/x/y", "/moves", "/WxYz/qr.svg",
                         "/moves/new", "/moves/not-a-uuid", "/moves/\(UUID().uuidString.lowercased())", "/moves/x/edit"]
            for path in paths {
                let (agrees, outcome) = try await Self.agreement(api, matcher, path)
                #expect(agrees, "\(path): \(outcome), opens: \(matcher.opensInApp(path: path))")
            }
            #expect(!matcher.opensInApp(path: "/admin") && matcher.opensInApp(path: "/abcde") && matcher.opensInApp(path: "/l/nope"))

            let manifest = try #require(try ManifestLoader.load(paths: PathPatternFixtures.manifestPaths()).first { $0.app == "handz" })
            let rules = manifest.androidLinkComponents(host: Self.host).map {
                AndroidLinkMatcher.Rule(path: $0.path, query: $0.query.isEmpty ? nil : $0.query, exclude: $0.exclude)
            }
            // Android matches the decoded path (`/%41bc` reads `/Abc` there: a documented limit), so the plain paths only.
            for path in paths where !path.contains("%") {
                let opens = AndroidLinkMatcher.firstMatch(rules, path: path).map { !$0.exclude } ?? false
                let resolution = try await api.resolve("https://\(Self.host)\(path)", state: "free")
                let resolves = AppleLinkCandidates.resolvesToRoute(
                    outcome: resolution["outcome"] as? String ?? "", problem: (resolution["problem"] as? [String: Any])?["code"] as? String)
                #expect(opens == resolves, "\(path): \(resolution["outcome"] ?? "-")")
            }
        }
    }
}
