import Foundation
import LinkRouter
import LinkdTestSupport
import Testing

/// The daemon as iOS and an app meet it: iOS fetches `/.well-known/apple-app-site-association` from the link host and
/// decides by it whether a URL opens the app; the app then asks `GET /v1/resolve?url=…` where the URL goes. For every
/// example app host and every candidate spelling of its patterns (`AppleLinkCandidates`: trailing and doubled
/// slashes, case, percent-encoding), the two answers must agree — the URL opens in the app exactly when linkd
/// resolves it to a route — but for the documented limits (`AppleLinkLimit`).
@Suite("Universal links: the served apple-app-site-association and /v1/resolve agree", .serialized)
struct UniversalLinkAgreementTests {
    /// `examples/*.yaml`: what `linkd serve` loads when given no manifests.
    static var exampleManifestPaths: [String] {
        let examples = LinkdProcess.repositoryRoot.appendingPathComponent("examples")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted().map { examples.appendingPathComponent($0).path }
    }

    @Test("every example host: each candidate opens in the app by the served file exactly when GET /v1/resolve resolves it to a route")
    func servedFileAndResolveAgree() async throws {
        // A real daemon on a real port (the Host header picks the file), no rate limit: a few thousand resolutions.
        let daemon = try LinkdDaemon(configuration: "rateLimitPerSecond: 0\n")
        defer { daemon.stop() }
        // A live link holds a custom path on Handz's share host: its file lists the path, and everything agrees still.
        let admin = try #require(daemon.initialAdminKey)
        let created = try await TestHTTP.send("POST", daemon.baseURL + "/v1/links", bearer: admin, json: [
            "app": "handz", "params": ["flowId": UUID().uuidString.lowercased()], "path": "/guard-pass",
        ])
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")

        let manifests = try ManifestLoader.load(paths: Self.exampleManifestPaths)
        #expect(manifests.count >= 4)
        // Only to name a disagreement a documented limit: what linkd would say with `int`/`slug` params as `string`.
        let loose = try LooseTypeRouters(manifests)
        var limits: [AppleLinkLimit: Int] = [:]
        var resolvedVariants: Set<String> = []
        var tried = 0
        for manifest in manifests {
            for host in Set(manifest.hosts + manifest.shareHosts).sorted() {
                let file = try await TestHTTP.send("GET", daemon.baseURL + "/.well-known/apple-app-site-association", headers: ["Host": host])
                #expect(file.status == 200 && file.headers["content-type"] == "application/json", "\(host)")
                let matcher = try AppleLinkMatcher(json: file.body)
                #expect(matcher.details.map(\.appIDs) == [manifest.iosAppIDs])
                if host == "links.handz.example" {
                    let paths = ["/guard-pass", "/guard-pass/", "/Guard-Pass", "/guard-pass/x", "/guard-pas", "/no-such-path"]
                    let answers = try await Self.resolveAll(paths.map { "https://\(host)\($0)" }, daemon: daemon)
                    for (path, answer) in zip(paths, answers) {
                        let resolves = AppleLinkCandidates.resolvesToRoute(outcome: answer.outcome, problem: answer.problem)
                        #expect(resolves == matcher.opensInApp(path: path), "\(host)\(path): \(answer.outcome)")
                        #expect(resolves == (path == "/guard-pass" || path == "/guard-pass/"), "\(host)\(path)")
                    }
                }
                let candidates = AppleLinkCandidates.candidates(manifest)
                let answers = try await Self.resolveAll(candidates.map { $0.url(host: host) }, daemon: daemon)
                for (candidate, answer) in zip(candidates, answers) {
                    tried += 1
                    let resolves = AppleLinkCandidates.resolvesToRoute(outcome: answer.outcome, problem: answer.problem)
                    if resolves { resolvedVariants.insert(candidate.variant) }
                    let verdict = AppleLinkCandidates.verdict(
                        candidate, resolves: resolves, opensInApp: matcher.opensInApp(path: candidate.path, query: candidate.query),
                        resolvesWithLooseTypes: loose.resolves(candidate.url(host: host)))
                    switch verdict {
                    case .agreed: break
                    case .limit(let limit): limits[limit, default: 0] += 1
                    case .disagreed(let why):
                        Issue.record("\(host)\(candidate): \(why) (resolve: \(answer.outcome) \(answer.problem ?? "-"))")
                    }
                    // An empty segment is refused with its own code, whatever else the path holds.
                    if candidate.path.contains("//") {
                        #expect(answer.problem == "nonCanonicalPath", "\(host)\(candidate): \(answer.outcome) \(answer.problem ?? "-")")
                    }
                }
            }
        }
        #expect(tried > 1000)
        #expect(resolvedVariants.isSuperset(of: ["sample", "trailing /", "uuid in capitals", "string param's first character as %XX"]))
        #expect(Set(limits.keys).isSubset(of: [.paramTypeBeyondLength]), "\(limits)")
    }

    @Test("with share.pathPatterns: every candidate and pattern path, held or not, opens in the app exactly when GET /v1/resolve resolves it")
    func pathPatternsAgree() async throws {
        let paths = try PathPatternFixtures.manifestPaths()
        let daemon = try LinkdDaemon(configuration: "rateLimitPerSecond: 0\n", manifests: paths)
        defer { daemon.stop() }
        let admin = try #require(daemon.initialAdminKey)
        for path in ["/l/held", "/HeLd", "/fived", "/guard-pass"] {
            let created = try await TestHTTP.send("POST", daemon.baseURL + "/v1/links", bearer: admin, json: [
                "app": "handz", "params": ["flowId": UUID().uuidString.lowercased()], "path": path,
            ])
            #expect(created.status == 201, "\(path): \(String(decoding: created.body, as: UTF8.self))")
        }
        let manifest = try #require(try ManifestLoader.load(paths: paths).first { $0.app == "handz" })
        let loose = try LooseTypeRouters([manifest])
        let host = "links.handz.example"
        let file = try await TestHTTP.send("GET", daemon.baseURL + "/.well-known/apple-app-site-association", headers: ["Host": host])
        let matcher = try AppleLinkMatcher(json: file.body)
        // The patterns' own paths, held and not, their near misses, linkd's own paths, then every spelling of the routes.
        let extra = ["/l/held", "/l/held/", "/HeLd", "/heLd", "/fived", "/guard-pass", "/l/nope", "/l/nope/", "/WxYz", "/W%78Yz", "/abcde",
                     "/tab/nowhere", "/tab/library", "/l/a/b", "/l/", "/l", "/abc", "/abcdef", "/admin", "/admin/", "/s/x", "/v1/links",
                     "/tab/x/y", "/tab//x", "//WxYz", "/WxYz//", "/moves", "/moves/new", "/moves/not-a-uuid", "/moves/x/edit"]
        let candidates = AppleLinkCandidates.candidates(manifest)
        let answers = try await Self.resolveAll(extra.map { "https://\(host)\($0)" } + candidates.map { $0.url(host: host) }, daemon: daemon)
        var limits: [AppleLinkLimit: Int] = [:]
        var unavailable = 0
        for (path, answer) in zip(extra, answers) {
            let resolves = AppleLinkCandidates.resolvesToRoute(outcome: answer.outcome, problem: answer.problem)
            #expect(resolves == matcher.opensInApp(path: path), "\(path): \(answer.outcome) \(answer.problem ?? "-")")
        }
        for (candidate, answer) in zip(candidates, answers.dropFirst(extra.count)) {
            let resolves = AppleLinkCandidates.resolvesToRoute(outcome: answer.outcome, problem: answer.problem)
            if answer.outcome == "linkUnavailable" { unavailable += 1 }
            switch AppleLinkCandidates.verdict(
                candidate, resolves: resolves, opensInApp: matcher.opensInApp(path: candidate.path, query: candidate.query),
                resolvesWithLooseTypes: loose.resolves(candidate.url(host: host))) {
            case .agreed: break
            case .limit(let limit): limits[limit, default: 0] += 1
            case .disagreed(let why): Issue.record("\(host)\(candidate): \(why) (resolve: \(answer.outcome) \(answer.problem ?? "-"))")
            }
        }
        #expect(unavailable > 0, "some spellings of the routes are pattern paths no link holds")
        #expect(Set(limits.keys).isSubset(of: [.paramTypeBeyondLength]), "\(limits)")
    }

    /// What `GET /v1/resolve` answered: `outcome` and `problem.code`.
    struct Answer: Sendable {
        var outcome: String
        var problem: String?
    }

    /// `GET /v1/resolve?url=…` (no state: the app's unauthenticated one) of each URL, eight at a time, in order.
    static func resolveAll(_ urls: [String], daemon: LinkdDaemon) async throws -> [Answer] {
        let base = daemon.baseURL
        var answers = [Answer?](repeating: nil, count: urls.count)
        try await withThrowingTaskGroup(of: (Int, Answer).self) { group in
            var next = 0
            func start() {
                guard next < urls.count else { return }
                let index = next, url = urls[index]
                next += 1
                group.addTask {
                    let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? url
                    let reply = try await TestHTTP.send("GET", base + "/v1/resolve?url=" + encoded)
                    guard reply.status == 200, let outcome = reply.json["outcome"] as? String else {
                        throw HarnessError("resolve of \(url) answered \(reply.status): \(String(decoding: reply.body, as: UTF8.self))")
                    }
                    return (index, Answer(outcome: outcome, problem: (reply.json["problem"] as? [String: Any])?["code"] as? String))
                }
            }
            for _ in 0..<8 { start() }
            while let (index, answer) = try await group.next() {
                answers[index] = answer
                start()
            }
        }
        return answers.map { $0! }
    }
}
