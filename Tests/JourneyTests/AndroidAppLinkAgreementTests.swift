import Foundation
import LinkRouter
import LinkdTestSupport
import Testing

/// The daemon as Android 15+ and an app meet it: Android fetches `/.well-known/assetlinks.json` from the link host and
/// decides by its Dynamic App Links rules whether a URL opens the app; the app then asks `GET /v1/resolve?url=…` where
/// the URL goes. For every host of the example apps (each given an Android package) and of a manifest with what they
/// lack, and every candidate spelling of its patterns (`AppleLinkCandidates`: trailing and doubled slashes, case,
/// percent-encoding) and more than 1,000 URLs per host with seeded near misses (`RandomLinkCandidates`), the two
/// answers must agree — the URL opens in the app exactly when linkd resolves it to a
/// route — but for the documented limits (`AndroidLinkLimit`). The same answers against the served rules without their
/// excludes must disagree: the check can fail.
@Suite("Android App Links: the served assetlinks.json and /v1/resolve agree", .serialized)
struct AndroidAppLinkAgreementTests {
    @Test("every host: each candidate opens in the app by the served rules exactly when GET /v1/resolve resolves it to a route (Handz also with share.pathPatterns)",
          arguments: [false, true])
    func servedRulesAndResolveAgree(pathPatterns: Bool) async throws {
        // The examples, each as an app with Android, and the globs manifest, as files the daemon loads.
        let directory = temporaryDataDir() + "-android-manifests"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var paths: [String] = []
        for path in UniversalLinkAgreementTests.exampleManifestPaths {
            let app = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            let copy = directory + "/\(app).yaml"
            let source = pathPatterns && app == "handz" ? try PathPatternFixtures.handzManifest : try String(contentsOfFile: path, encoding: .utf8)
            try AndroidLinkFixtures.withAndroid(source, app: app).write(toFile: copy, atomically: true, encoding: .utf8)
            paths.append(copy)
        }
        paths.append(directory + "/globs.yaml")
        try AndroidLinkFixtures.globs.write(toFile: paths.last!, atomically: true, encoding: .utf8)

        // A real daemon on a real port (the Host header picks the file), no rate limit: a few thousand resolutions.
        let daemon = try LinkdDaemon(configuration: "rateLimitPerSecond: 0\n", manifests: paths)
        defer { daemon.stop() }

        let manifests = try ManifestLoader.load(paths: paths)
        #expect(manifests.count >= 5)
        // Only to name a disagreement a documented limit.
        let judge = try AndroidLinkJudge(manifests)
        var limits: [AndroidLinkLimit: Int] = [:]
        var resolvedVariants: Set<String> = []
        var tried = 0
        var brokenVariants: [String: Int] = [:]
        for manifest in manifests {
            let package = try #require(manifest.androidPackage)
            for host in Set(manifest.hosts + manifest.shareHosts).sorted() {
                let file = try await TestHTTP.send("GET", daemon.baseURL + "/.well-known/assetlinks.json", headers: ["Host": host])
                #expect(file.status == 200 && file.headers["content-type"] == "application/json", "\(host)")
                let matcher = try AndroidLinkMatcher(json: file.body)
                #expect(matcher.statements.map(\.packageName) == [package])
                #expect(matcher.statements.first?.fingerprints == manifest.androidFingerprints.map { $0.uppercased() })
                let broken = matcher.droppingExcludes()
                // The spellings of the patterns, then seeded near misses until the host has more than 1,000.
                let spellings = AppleLinkCandidates.candidates(manifest)
                let seed = host.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
                let candidates = spellings + RandomLinkCandidates.candidates(manifest, count: 1001 - spellings.count, seed: seed)
                #expect(candidates.count > 1000, "\(host): \(candidates.count) candidates")
                let answers = try await UniversalLinkAgreementTests.resolveAll(candidates.map { $0.url(host: host) }, daemon: daemon)
                for (candidate, answer) in zip(candidates, answers) {
                    tried += 1
                    let resolves = AppleLinkCandidates.resolvesToRoute(outcome: answer.outcome, problem: answer.problem)
                    if resolves { resolvedVariants.insert(candidate.variant) }
                    func judged(_ matcher: AndroidLinkMatcher) throws -> AndroidLinkJudge.Verdict {
                        let opens = try #require(matcher.opensInApp(package: package, path: candidate.path, query: candidate.query) as Bool?)
                        return judge.verdict(
                            host: host, path: candidate.path, query: candidate.query, manifest: manifest, resolves: resolves,
                            problem: answer.problem, opensInApp: opens,
                            opens: { matcher.opensInApp(package: package, path: $0, query: candidate.query) ?? false })
                    }
                    switch try judged(matcher) {
                    case .agreed: break
                    case .limit(let limit): limits[limit, default: 0] += 1
                    case .disagreed(let why):
                        Issue.record("\(host)\(candidate): \(why) (resolve: \(answer.outcome) \(answer.problem ?? "-"))")
                    }
                    if case .disagreed = try judged(broken) { brokenVariants[candidate.variant, default: 0] += 1 }
                }
            }
        }
        #expect(tried > 5000)
        #expect(resolvedVariants.isSuperset(of: ["sample", "trailing /", "uuid in capitals", "string param's first character as %XX"]))
        #expect(
            Set(limits.keys).isSubset(of: [.paramTypeBeyondLength, .decodedSpelling, .escapedSlashInParam, .dotSegment, .patternCharacterInLiteral]),
            "\(limits)")
        // Without its excludes the file opens the app for paths linkd refuses (doubled slashes, extra segments).
        #expect(brokenVariants["trailing //", default: 0] > 0 && brokenVariants["extra segment", default: 0] > 0, "\(brokenVariants)")
        #expect(brokenVariants.values.reduce(0, +) > 50, "\(brokenVariants)")
    }
}
