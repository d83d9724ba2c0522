import Foundation
import LinkdTestSupport
import Testing
@testable import LinkRouter
@testable import WebFallback

/// assetlinks.json's Dynamic App Links rules, read the way Android documents them (`AndroidLinkMatcher`: the decoded
/// path, rules in order, first match wins, no match stays in the browser, `*` up to the first place the next
/// character is found), against what `Router` resolves on the same host: for every pattern, its sample path and its
/// variants in shape, slashes, case and percent-encoding (`AppleLinkCandidates`), Android opens it in the app exactly
/// when linkd resolves it to a route, but for the named `AndroidLinkLimit`s.
@Suite struct AndroidAssetLinksTests {
    /// The example manifests, each as an app with Android.
    static func examples() throws -> [AppManifest] {
        try Fixtures.exampleManifests.map { path in
            let app = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            let yaml = AndroidLinkFixtures.withAndroid(try String(contentsOfFile: path, encoding: .utf8), app: app)
            return try ManifestLoader.parse(yaml: yaml, file: "\(app).yaml")
        }
    }

    @Test("every example manifest, every host: Android opens a path in the app exactly when linkd resolves it, but for the named limits")
    func examplesAgree() throws {
        let tally = try Self.checkAgreement(Self.examples())
        for variant in ["sample", "trailing /", "uuid in capitals", "string param's first character as %XX"] {
            #expect(tally.resolved[variant, default: 0] > 0, "no '\(variant)' candidate resolved")
        }
        for variant in ["trailing //", "doubled / before segment 1", "doubled / before segment 2", "root doubled"] {
            #expect(tally.tried[variant, default: 0] > 0 && tally.opened[variant, default: 0] == 0, "'\(variant)'")
        }
        #expect(tally.limits[.decodedSpelling, default: 0] > 0)
        #expect(tally.limits[.escapedSlashInParam, default: 0] > 0)
        #expect(Set(tally.limits.keys).isSubset(of: [.paramTypeBeyondLength, .decodedSpelling, .escapedSlashInParam]), "\(tally.limits)")
    }

    @Test("wildcards, optional segments, typed params, required queries, a literal with '?', escapes: Android and linkd agree but for the named limits")
    func globsAgree() throws {
        let tally = try Self.checkAgreement([ManifestLoader.parse(yaml: AndroidLinkFixtures.globs, file: "globs.yaml")])
        #expect(tally.opened["wildcard with an unreserved character as %XX", default: 0] > 0)
        #expect(tally.opened["int param's first character as %XX", default: 0] > 0)
        #expect(tally.tried["wildcard holding //", default: 0] > 0 && tally.opened["wildcard holding //", default: 0] == 0)
        // Android's `*` stops at the first `/`: a param before literals and a wildcard tail does not span segments
        // (iOS's limit `paramSpansBeforeWildcardTail` is not one here).
        #expect(tally.limits[.paramTypeBeyondLength, default: 0] > 0)
        #expect(Set(tally.limits.keys).isSubset(of: [.paramTypeBeyondLength, .decodedSpelling, .escapedSlashInParam]), "\(tally.limits)")
    }

    @Test("the rules do not depend on whether `*` backtracks: read as Apple reads `*`, the same URLs open")
    func sameWithBacktrackingStar() throws {
        let manifests = try Self.examples() + [ManifestLoader.parse(yaml: AndroidLinkFixtures.globs, file: "globs.yaml")]
        let files = try WellKnownFiles(manifests: manifests)
        var spanning = 0
        for manifest in manifests {
            let package = try #require(manifest.androidPackage)
            for host in Set(manifest.hosts + manifest.shareHosts).sorted() {
                let matcher = try AndroidLinkMatcher(json: Data(try #require(files.assetLinks(host: host))))
                for candidate in AppleLinkCandidates.candidates(manifest) {
                    let documented = matcher.opensInApp(package: package, path: candidate.path, query: candidate.query)
                    let backtracking = matcher.opensInApp(package: package, path: candidate.path, query: candidate.query, star: .backtracking)
                    // The one difference: a param before literals and a wildcard tail spans segments when `*` backtracks
                    // (iOS's `paramSpansBeforeWildcardTail`); with the documented `*` it cannot.
                    if candidate.pattern == "/u/:name/files/*path" {
                        if documented != backtracking { spanning += 1 }
                        continue
                    }
                    #expect(documented == backtracking, "\(host)\(candidate)")
                }
            }
        }
        #expect(spanning > 0)
    }

    @Test("case-insensitive paths: a literal in other capitals resolves but stays in the browser (caseFoldedLiteral)")
    func caseInsensitivePaths() throws {
        let yaml = AndroidLinkFixtures.globs.replacingOccurrences(of: "unauthenticatedState: in", with: "unauthenticatedState: in\ncaseInsensitivePaths: true")
        let tally = try Self.checkAgreement([ManifestLoader.parse(yaml: yaml, file: "globs.yaml")])
        #expect(tally.limits[.caseFoldedLiteral, default: 0] > 0)
        #expect(Set(tally.limits.keys).isSubset(of: [.paramTypeBeyondLength, .decodedSpelling, .escapedSlashInParam, .caseFoldedLiteral]),
                "\(tally.limits)")
    }

    @Test("documented limits: each disagreement is met, for its named reason")
    func documentedLimits() throws {
        let yaml = """
            app: limits
            name: Limits
            hosts: [links.limits.example]
            android: { package: com.example.limits, sha256CertFingerprints: ["\(AndroidLinkFixtures.fingerprint)"] }
            states: [in]
            unauthenticatedState: in
            routes:
              - { id: Docs, presentation: push, states: [in], patterns: ["/docs/*rest"] }
              - { id: Item, presentation: push, states: [in], patterns: ["/items/:id(int)/view", "/tags/:tag(slug)/all", "/f/:id(uuid)/view"] }
              - { id: Search, presentation: push, states: [in], patterns: ["/search/:scope"], query: { q: { type: string, required: true } } }
              - { id: Any, presentation: push, states: [in], patterns: ["/:section/:item"] }
              - { id: Names, presentation: push, states: [in], patterns: ["/names/:name"] }
              - { id: Recents, presentation: push, states: [in], patterns: ["/tab/recents/now", "/wh?at/x/y"] }
            """
        let manifest = try ManifestLoader.parse(yaml: yaml, file: "limits.yaml")
        let router = try Router(manifests: [manifest])
        let judge = try AndroidLinkJudge([manifest])
        let files = try WellKnownFiles(manifests: [manifest])
        let matcher = try AndroidLinkMatcher(json: Data(try #require(files.assetLinks(host: "links.limits.example"))))
        let uuid = AppleLinkCandidates.uuid
        // 32 segments before the empty one: past the excludes of empty segments.
        let deep = (1...31).map { "s\($0)" }.joined(separator: "/")
        let limits: [(String, String, AndroidLinkLimit)] = [
            ("/items/4x2/view", "", .paramTypeBeyondLength),
            ("/tags/A-Slug/all", "", .paramTypeBeyondLength),
            ("/f/zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz/view", "", .paramTypeBeyondLength),
            ("/t%61b/recents/now", "", .decodedSpelling),
            ("/tab/recents/now%2F", "", .decodedSpelling),
            ("/f/\(uuid.replacingOccurrences(of: "-", with: "%2D"))/view", "", .decodedSpelling),
            ("/whXat/x/y", "", .patternCharacterInLiteral),
            ("/search/x", "", .requiredQueryDoesNotFallThrough),
            ("/search/x/", "", .requiredQueryDoesNotFallThrough),
            ("/docs/\(deep)//x", "", .emptySegmentDeepInWildcardTail),
            ("/names/a%2Fb", "", .escapedSlashInParam),
        ]
        for (path, query, limit) in limits {
            let url = "https://links.limits.example\(path)" + (query.isEmpty ? "" : "?" + query)
            let resolution = router.resolve(url: url, state: nil)
            let opens = try #require(matcher.opensInApp(package: "com.example.limits", path: path, query: query) as Bool?)
            let verdict = judge.verdict(
                host: "links.limits.example", path: path, query: query, manifest: manifest,
                resolves: AppleLinkCandidates.resolvesToRoute(resolution), problem: resolution.problem?.code.description,
                opensInApp: opens, opens: { matcher.opensInApp(package: "com.example.limits", path: $0) ?? false })
            #expect(verdict == .limit(limit), "\(path): \(verdict)")
        }
        // Their neighbours agree: an empty segment up to 32 deep stays in the browser, the canonical spellings open.
        let shallow = (1...30).map { "s\($0)" }.joined(separator: "/")
        #expect(matcher.opensInApp(package: "com.example.limits", path: "/docs/\(shallow)//x") == false)
        #expect(matcher.opensInApp(package: "com.example.limits", path: "/docs/\(deep)/x") == true)
        #expect(matcher.opensInApp(package: "com.example.limits", path: "/search/x/", query: "q=1") == true)
        #expect(matcher.opensInApp(package: "com.example.limits", path: "/names/a%2Fb/") == false)
        #expect(router.resolve(url: "https://links.limits.example/names/a%2Fb", state: nil).params == ["name": "a/b"])
    }

    @Test("rules: empty segments excluded per depth, wildcards, then per length a too-many-segments exclude before trailing-/ and plain forms")
    func componentsOfASmallManifest() throws {
        let yaml = """
            app: small
            name: Small
            hosts: [links.small.example]
            android: { package: com.example.small, sha256CertFingerprints: ["\(AndroidLinkFixtures.fingerprint)"] }
            states: [in]
            unauthenticatedState: in
            routes:
              - { id: Home, presentation: root, states: [in], patterns: ["/"] }
              - { id: Flow, presentation: push, states: [in], patterns: ["/flows/:id(uuid)", "/flows/:id(uuid)/edit"] }
              - { id: List, presentation: push, states: [in], patterns: ["/list/:page(int)?"], query: { sort: { type: slug, required: true } } }
            share: { path: /s/:token, route: Home, unavailableRoute: Home }
            """
        let files = try WellKnownFiles(manifests: [ManifestLoader.parse(yaml: yaml, file: "small.yaml")])
        let bytes = try #require(files.assetLinks(host: "links.small.example"))
        let rules = try #require(AndroidLinkMatcher(json: Data(bytes)).statement(package: "com.example.small")?.rules)
        let uuid = "????????-????-????-????-????????????"
        let listed = rules.map { ($0.exclude ? "-" : "+") + ($0.path ?? "") + ($0.query.map { "?\($0)" } ?? "") }
        // The exclude before a length's trailing-`/` forms is the one before the next longer length's plain forms:
        // written once.
        #expect(listed == [
            "-//*", "-/?*//*", "-/?*/?*//*", "-/?*/?*/?*//*",
            "-/?*/?*/?*/?*/*", "+/flows/\(uuid)/edit/",
            "-/?*/?*/?*/*", "+/flows/\(uuid)/edit",
            "+/s/?*/", "+/flows/\(uuid)/", "+/list/?*/?[\"sort\": \"?*\"]",
            "-/?*/?*/*", "+/s/?*", "+/flows/\(uuid)", "+/list/?*?[\"sort\": \"?*\"]",
            "+/list/?[\"sort\": \"?*\"]",
            "-/?*/*", "+/list?[\"sort\": \"?*\"]",
            "+/",
        ])
        // The statement: sorted keys, no `exclude` on an include, no `?` without a query.
        let text = String(decoding: bytes, as: UTF8.self)
        let relation = "delegate_permission/common.handle_all_urls"
        #expect(text.hasPrefix(#"[{"relation":[""# + relation + #""],"relation_extensions":{""# + relation
            + #"":{"dynamic_app_link_components":[{"/":"//*","exclude":true},"#))
        #expect(text.hasSuffix(#"{"/":"/"}]}},"target":{"namespace":"android_app","package_name":"com.example.small","#
            + #""sha256_cert_fingerprints":[""# + AndroidLinkFixtures.fingerprint + #""]}}]"#))
    }

    @Test("android.dynamicAppLinks: false gives the statement without relation_extensions, byte for byte as before")
    func dynamicAppLinksOff() throws {
        let on = try ManifestLoader.parse(yaml: AndroidLinkFixtures.globs, file: "globs.yaml")
        let off = try ManifestLoader.parse(
            yaml: AndroidLinkFixtures.globs.replacingOccurrences(
                of: "android: { package: com.example.globs,", with: "android: { dynamicAppLinks: false, package: com.example.globs,"),
            file: "globs.yaml")
        #expect(on.androidDynamicAppLinks && !off.androidDynamicAppLinks)
        let bytes = try #require(try WellKnownFiles(manifests: [off]).assetLinks(host: "links.globs.example"))
        #expect(String(decoding: bytes, as: UTF8.self) == #"[{"relation":["delegate_permission/common.handle_all_urls"],"#
            + #""target":{"namespace":"android_app","package_name":"com.example.globs","sha256_cert_fingerprints":[""#
            + AndroidLinkFixtures.fingerprint + #""]}}]"#)
        let matcher = try AndroidLinkMatcher(json: Data(try #require(try WellKnownFiles(manifests: [on]).assetLinks(host: "links.globs.example"))))
        #expect(matcher.statement(package: "com.example.globs")?.rules?.isEmpty == false)
        // An app without Android: still an empty list.
        let withoutAndroid = try ManifestLoader.parse(yaml: AndroidLinkFixtures.globs.replacingOccurrences(
            of: "android: { package: com.example.globs, sha256CertFingerprints: [\"\(AndroidLinkFixtures.fingerprint)\"] }\n", with: ""), file: "globs.yaml")
        #expect(try WellKnownFiles(manifests: [withoutAndroid]).assetLinks(host: "links.globs.example") == Array("[]".utf8))
    }

    @Test("a host of the app with no pattern: one rule excluding every path, never an empty list Android would discard")
    func hostWithoutPatterns() throws {
        let yaml = """
            app: bare
            name: Bare
            hosts: [links.bare.example]
            android: { package: com.example.bare, sha256CertFingerprints: ["\(AndroidLinkFixtures.fingerprint)"] }
            states: [in]
            unauthenticatedState: in
            routes:
              - { id: Home, presentation: root, states: [in] }
            """
        let manifest = try ManifestLoader.parse(yaml: yaml, file: "bare.yaml")
        #expect(manifest.androidLinkComponents(host: "links.bare.example") == [LinkRule(path: "*", exclude: true)])
        #expect(manifest.androidLinkComponents(host: "other.example").isEmpty)
    }

    @Test("the glob matcher itself: `*` stops at the first place the next character is found, `?` is one character, the path is decoded")
    func globMatcher() {
        #expect(AndroidLinkMatcher.glob("/flows/*", "/flows/a/b/c"))
        #expect(AndroidLinkMatcher.glob("/flows/?*", "/flows/a/b"))
        #expect(!AndroidLinkMatcher.glob("/flows/?*", "/flows/"))
        #expect(AndroidLinkMatcher.glob("/a/?*/b", "/a/x/b") && !AndroidLinkMatcher.glob("/a/?*/b", "/a/x/y/b"))
        #expect(AndroidLinkMatcher.glob("/a/?*/b", "/a/x/y/b", star: .backtracking))
        #expect(!AndroidLinkMatcher.glob("*//*", "/a//b") && AndroidLinkMatcher.glob("*//*", "/a//b", star: .backtracking))
        #expect(AndroidLinkMatcher.glob("/?*//*", "/a//b") && !AndroidLinkMatcher.glob("/?*//*", "/a/b//c"))
        #expect(!AndroidLinkMatcher.glob("/A/*", "/a/x"))
        #expect(AndroidLinkMatcher.decoded("/t%61b/caf%c3%A9/a%2Fb+c%") == "/tab/café/a/b+c%")
        #expect(AndroidLinkMatcher.decoded("/%ff") == "/\u{FFFD}")
        let rules = [AndroidLinkMatcher.Rule(path: "/x", query: ["q": "?*"], fragment: nil, exclude: false)]
        #expect(AndroidLinkMatcher.firstMatch(rules, path: "/x", query: "a=1&q=2") != nil)
        #expect(AndroidLinkMatcher.firstMatch(rules, path: "/x", query: "%71=2") != nil)   // the query is decoded too
        #expect(AndroidLinkMatcher.firstMatch(rules, path: "/x", query: "q=") == nil)
        #expect(AndroidLinkMatcher.firstMatch(rules, path: "/x") == nil)
    }

    // MARK: The check

    /// What `checkAgreement` saw: candidates tried, resolved and opened per variant name, limits met.
    struct Tally {
        var tried: [String: Int] = [:]
        var resolved: [String: Int] = [:]
        var opened: [String: Int] = [:]
        var limits: [AndroidLinkLimit: Int] = [:]
    }

    /// For each manifest and each of its hosts: the file is JSON under 128 KB with one statement for the app's
    /// package, and for every candidate (`AppleLinkCandidates.candidates`) Android opens it in the app exactly when
    /// `Router` resolves it to a route, but for a documented limit (`AndroidLinkJudge`).
    static func checkAgreement(_ manifests: [AppManifest]) throws -> Tally {
        let router = try Router(manifests: manifests)
        let judge = try AndroidLinkJudge(manifests)
        let files = try WellKnownFiles(manifests: manifests)
        var tally = Tally()
        for manifest in manifests {
            let package = try #require(manifest.androidPackage)
            for host in Set(manifest.hosts + manifest.shareHosts).sorted() {
                let bytes = try #require(files.assetLinks(host: host))
                #expect(bytes.count < WellKnownFiles.maxBytes)
                let matcher = try AndroidLinkMatcher(json: Data(bytes))
                #expect(matcher.statements.map(\.packageName) == [package])
                for candidate in AppleLinkCandidates.candidates(manifest) {
                    let resolution = router.resolve(url: candidate.url(host: host), state: nil)
                    let resolves = AppleLinkCandidates.resolvesToRoute(resolution)
                    let opens = try #require(matcher.opensInApp(package: package, path: candidate.path, query: candidate.query) as Bool?)
                    tally.tried[candidate.variant, default: 0] += 1
                    if resolves { tally.resolved[candidate.variant, default: 0] += 1 }
                    if opens { tally.opened[candidate.variant, default: 0] += 1 }
                    let verdict = judge.verdict(
                        host: host, path: candidate.path, query: candidate.query, manifest: manifest, resolves: resolves,
                        problem: resolution.problem?.code.description, opensInApp: opens,
                        opens: { matcher.opensInApp(package: package, path: $0, query: candidate.query) ?? false })
                    switch verdict {
                    case .agreed: break
                    case .limit(let limit): tally.limits[limit, default: 0] += 1
                    case .disagreed(let why): Issue.record("\(host)\(candidate): \(why)")
                    }
                }
            }
        }
        #expect(tally.resolved["sample", default: 0] > 0, "nothing resolved")
        return tally
    }
}
