import Foundation
import LinkdTestSupport
import Testing
@testable import LinkRouter
@testable import WebFallback

/// The apple-app-site-association files, read the way iOS reads them (`AppleLinkMatcher`: components in order, first
/// match wins, `*`, `?`, `exclude`, `caseSensitive`), against what `Router` resolves on the same host: for every
/// pattern, its sample path and its variants in shape, slashes, case and percent-encoding (`AppleLinkCandidates`),
/// iOS opens it in the app exactly when linkd resolves it to a route, but for the named `AppleLinkLimit`s.
@Suite struct AppleAppSiteAssociationTests {
    /// A manifest with what the examples lack: a wildcard tail, an optional segment, `int` and `slug` params, a
    /// required query param, a uuid followed by a param, the root path, case-insensitive paths, a share path on
    /// every host.
    static let globs = """
        app: globs
        name: Globs
        hosts: [links.globs.example]
        caseInsensitivePaths: true
        ios: { appIDs: [ABCDE12345.com.example.globs] }
        states: [in]
        unauthenticatedState: in
        routes:
          - { id: Home, presentation: root, states: [in], patterns: ["/"] }
          - { id: Docs, presentation: push, states: [in], patterns: ["/docs/*rest"] }
          - { id: Item, presentation: push, states: [in], patterns: ["/items/:id(int)/view"] }
          - { id: List, presentation: push, states: [in], patterns: ["/list/:page(int)?"] }
          - { id: User, presentation: push, states: [in], patterns: ["/u/:name", "/u/:name/posts/:post(slug)"] }
          - { id: Search, presentation: push, states: [in], patterns: ["/search/:scope"], query: { q: { type: string, required: true } } }
          - { id: Thing, presentation: push, states: [in], patterns: ["/t/:a(uuid)/:b"] }
          - { id: Odd, presentation: push, states: [in], patterns: ["/wh?at/x"] }
        share: { path: /s/:token, route: Home, unavailableRoute: Home }
        """

    @Test("every example manifest, every host: iOS opens a path in the app exactly when linkd resolves it, in every spelling tried")
    func examplesAgreeInEverySpelling() throws {
        let manifests = try ManifestLoader.load(paths: Fixtures.exampleManifests)
        #expect(manifests.count >= 4)
        let tally = try Self.checkAgreement(manifests)
        // Each family of spellings was tried on a path that resolves, and agreed.
        for variant in ["sample", "trailing /", "uuid in capitals", "string param's first character as %XX"] {
            #expect(tally.resolved[variant, default: 0] > 0, "no '\(variant)' candidate resolved")
        }
        // Empty segments never resolve (nonCanonicalPath); the rest may, through a param at the same place.
        for variant in ["trailing //", "doubled / before segment 1", "doubled / before segment 2", "root doubled"] {
            #expect(tally.tried[variant, default: 0] > 0, "no '\(variant)' candidate")
            #expect(tally.resolved[variant, default: 0] == 0, "a '\(variant)' candidate resolved")
        }
        for variant in ["uuid with its - as %2D", "uuid with its - as %2d", "uuid param's first character as %XX",
                        "unreserved character of a literal as %XX", "unreserved character of a literal as %xx",
                        "literal capitalized", "string param holding %2f"] {
            #expect(tally.tried[variant, default: 0] > 0, "no '\(variant)' candidate")
        }
        #expect(tally.limits[.paramTypeBeyondLength, default: 0] > 0)
        #expect(Set(tally.limits.keys).isSubset(of: [.paramTypeBeyondLength]), "\(tally.limits)")
    }

    @Test("wildcards, optional segments, typed params, required queries, case-insensitive paths and escapes: iOS and linkd agree")
    func globsAgreeInEverySpelling() throws {
        let tally = try Self.checkAgreement([ManifestLoader.parse(yaml: Self.globs, file: "globs.yaml")])
        // Case-insensitive: a literal in capitals and a literal's escape in lowercase hex open and resolve.
        #expect(tally.resolved["literal in capitals", default: 0] > 0)
        #expect(tally.resolved["literal's escapes in lowercase hex", default: 0] > 0)
        #expect(tally.resolved["wildcard with an unreserved character as %XX", default: 0] > 0)
        #expect(tally.resolved["int param's first character as %XX", default: 0] > 0)
    }

    @Test("case-sensitive paths: a literal's escape in lowercase hex neither opens nor resolves; in capitals it does both")
    func hexCaseOnCaseSensitivePaths() throws {
        let yaml = """
            app: odd
            name: Odd
            hosts: [links.odd.example]
            ios: { appIDs: [ABCDE12345.com.example.odd] }
            states: [in]
            unauthenticatedState: in
            routes:
              - { id: Odd, presentation: push, states: [in], patterns: ["/wh?at/x", "/café"] }
            """
        let manifest = try ManifestLoader.parse(yaml: yaml, file: "odd.yaml")
        let tally = try Self.checkAgreement([manifest])
        #expect(tally.tried["literal's escapes in lowercase hex", default: 0] == 2)
        #expect(tally.resolved["literal's escapes in lowercase hex", default: 0] == 0)
        let router = try Router(manifests: [manifest])
        #expect(router.resolve(url: "https://links.odd.example/caf%C3%A9", state: nil).route == "Odd")
        #expect(router.resolve(url: "https://links.odd.example/caf%c3%a9", state: nil).route == nil)
        #expect(router.resolve(url: "https://links.odd.example/café", state: nil).route == nil)   // raw: not as iOS sends it
        #expect(router.resolve(url: "https://links.odd.example/wh%3Fat/x", state: nil).route == "Odd")
        #expect(router.resolve(url: "https://links.odd.example/wh%3fat/x", state: nil).route == nil)
    }

    @Test("a uuid and an int param at the same place: the uuid's `*/*` exclude does not hide the int route's trailing /")
    func uuidExcludeDoesNotHideTrailingSlash() throws {
        let yaml = """
            app: same
            name: Same
            hosts: [links.same.example]
            ios: { appIDs: [ABCDE12345.com.example.same] }
            states: [in]
            unauthenticatedState: in
            routes:
              - { id: ByUUID, presentation: push, states: [in], patterns: ["/flows/:id(uuid)"] }
              - { id: ByNumber, presentation: push, states: [in], patterns: ["/flows/:n(int)"] }
            """
        let manifest = try ManifestLoader.parse(yaml: yaml, file: "same.yaml")
        _ = try Self.checkAgreement([manifest])
        let files = try WellKnownFiles(manifests: [manifest])
        let matcher = try AppleLinkMatcher(json: Data(try #require(files.appleAppSiteAssociation(host: "links.same.example"))))
        #expect(matcher.opensInApp(path: "/flows/42/"))
        #expect(matcher.opensInApp(path: "/flows/\(AppleLinkCandidates.uuid)/"))
        #expect(matcher.opensInApp(path: "/flows/4x2/"))   // the int's `?*` cannot say "digits": the type limit
        #expect(!matcher.opensInApp(path: "/flows/a/b/"))
    }

    @Test("documented limits: the file covers these paths though linkd does not resolve them, each for its named reason")
    func documentedLimits() throws {
        let yaml = """
            app: limits
            name: Limits
            hosts: [links.limits.example]
            ios: { appIDs: [ABCDE12345.com.example.limits] }
            states: [in]
            unauthenticatedState: in
            routes:
              - { id: Posts, presentation: push, states: [in], patterns: ["/u/:name/posts/*rest"] }
              - { id: Item, presentation: push, states: [in], patterns: ["/items/:id(int)/view", "/tags/:tag(slug)/all", "/f/:id(uuid)/view"] }
              - { id: Search, presentation: push, states: [in], patterns: ["/search/:scope"], query: { q: { type: string, required: true } } }
              - { id: Any, presentation: push, states: [in], patterns: ["/:section/:item"] }
            """
        let manifest = try ManifestLoader.parse(yaml: yaml, file: "limits.yaml")
        let router = try Router(manifests: [manifest])
        let loose = try LooseTypeRouters([manifest])
        let files = try WellKnownFiles(manifests: [manifest])
        let matcher = try AppleLinkMatcher(json: Data(try #require(files.appleAppSiteAssociation(host: "links.limits.example"))))
        let uuid = AppleLinkCandidates.uuid
        let limits: [(String, String, AppleLinkLimit)] = [
            ("/items/4x2/view", "", .paramTypeBeyondLength),
            ("/items/4x2/view/", "", .paramTypeBeyondLength),
            ("/tags/A-Slug/all", "", .paramTypeBeyondLength),
            ("/f/zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz/view", "", .paramTypeBeyondLength),
            ("/f/\(uuid.dropLast(3))%33/view", "", .paramTypeBeyondLength),
            ("/u/a/b/posts/c", "", .paramSpansBeforeWildcardTail),
            ("/search/x", "", .requiredQueryDoesNotFallThrough),
            ("/search/x/", "", .requiredQueryDoesNotFallThrough),
        ]
        for (path, query, limit) in limits {
            let candidate = AppleLinkCandidate(path: path, query: query, expectation: .limit(limit), variant: limit.rawValue, pattern: "")
            let url = candidate.url(host: "links.limits.example")
            let verdict = AppleLinkCandidates.verdict(
                candidate, resolves: AppleLinkCandidates.resolvesToRoute(router.resolve(url: url, state: nil)),
                opensInApp: matcher.opensInApp(path: path, query: query),
                resolvesWithLooseTypes: loose.resolves(url))
            #expect(verdict == .limit(limit), "\(path): \(verdict)")
        }
        // Their canonical neighbours agree.
        #expect(router.resolve(url: "https://links.limits.example/search/x?q=1", state: nil).route == "Search")
        #expect(router.resolve(url: "https://links.limits.example/u/a/posts/c/d/", state: nil).params == ["name": "a", "rest": "c/d"])
        #expect(matcher.opensInApp(path: "/search/x/", query: "q=1") && matcher.opensInApp(path: "/u/a/posts/c/d/"))
    }

    @Test("components: empty segments excluded first, wildcards, then per length trailing-/ forms before plain ones, excludes before includes")
    func componentsOfGlobs() throws {
        let files = try WellKnownFiles(manifests: [ManifestLoader.parse(yaml: Self.globs, file: "globs.yaml")])
        let bytes = try #require(files.appleAppSiteAssociation(host: "links.globs.example"))
        let matcher = try AppleLinkMatcher(json: Data(bytes))
        let components = try #require(matcher.details.first?.components)
        #expect(components.allSatisfy { !$0.caseSensitive })
        let uuid = "????????-????-????-????-????????????"
        let listed = components.map { ($0.exclude ? "-" : "+") + $0.path + ($0.queryItems.map { "?\($0)" } ?? "") }
        #expect(listed == [
            "-*//*",
            "+/docs/?*",
            "-/u/?*/?*/posts/?*/", "-/u/?*/posts/?*/?*/", "+/u/?*/posts/?*/",
            "-/u/?*/?*/posts/?*", "-/u/?*/posts/?*/?*", "+/u/?*/posts/?*",
            "-/items/?*/?*/view/", "+/items/?*/view/",
            "-/t/*/*/?*/", "-/t/\(uuid)/?*/?*/", "+/t/\(uuid)/?*/",
            "-/items/?*/?*/view", "+/items/?*/view",
            "-/t/*/*/?*", "-/t/\(uuid)/?*/?*", "+/t/\(uuid)/?*",
            "-/s/?*/?*/", "+/s/?*/",
            "-/list/?*/?*/", "+/list/?*/",
            "-/u/?*/?*/", "+/u/?*/",
            "-/search/?*/?*/", "+/search/?*/?[\"q\": \"?*\"]",
            "+/wh%3Fat/x/",
            "-/s/?*/?*", "+/s/?*",
            "-/list/?*/?*", "+/list/?*",
            "-/u/?*/?*", "+/u/?*",
            "-/search/?*/?*", "+/search/?*?[\"q\": \"?*\"]",
            "+/wh%3Fat/x",
            "+/list/",
            "+/list",
            "+/",
        ])
    }

    @Test("the glob matcher itself: * spans slashes and may be empty, ? is one character")
    func globMatcher() {
        #expect(AppleLinkMatcher.glob("/flows/*", "/flows/a/b/c"))
        #expect(AppleLinkMatcher.glob("/flows/*", "/flows/"))
        #expect(!AppleLinkMatcher.glob("/flows/?*", "/flows/"))
        #expect(AppleLinkMatcher.glob("/a/????", "/a/b/cd"))
        #expect(!AppleLinkMatcher.glob("/a/????", "/a/bcd"))
        #expect(AppleLinkMatcher.glob("/A/*", "/a/x", fold: true) && !AppleLinkMatcher.glob("/A/*", "/a/x"))
        #expect(AppleLinkMatcher.glob("*//*", "/a//b") && AppleLinkMatcher.glob("*//*", "//") && !AppleLinkMatcher.glob("*//*", "/a/b/"))
    }

    @Test("the bytes a canonical segment carries as they are are exactly the ones appleEncoded leaves unescaped")
    func canonicalBytes() {
        for byte in UInt8(0)...UInt8(255) {
            let encoded = AppManifest.appleEncoded(String(decoding: [byte], as: UTF8.self))
            let raw = byte < 0x80 && encoded == String(UnicodeScalar(byte))
            #expect(IncomingURL.isRaw(byte) == raw, "byte \(byte)")
        }
    }

    // MARK: The check

    /// What `checkAgreement` saw: candidates tried and resolved per variant name, limits met.
    struct Tally {
        var tried: [String: Int] = [:]
        var resolved: [String: Int] = [:]
        var limits: [AppleLinkLimit: Int] = [:]
    }

    /// For each manifest and each of its hosts: the file is JSON under 128 KB naming the app, and for every candidate
    /// (`AppleLinkCandidates.candidates`) iOS opens it in the app exactly when `Router` resolves it to a route, but
    /// for a documented limit (`AppleLinkCandidates.verdict`).
    static func checkAgreement(_ manifests: [AppManifest]) throws -> Tally {
        let router = try Router(manifests: manifests)
        let loose = try LooseTypeRouters(manifests)
        let files = try WellKnownFiles(manifests: manifests)
        var tally = Tally()
        for manifest in manifests {
            for host in Set(manifest.hosts + manifest.shareHosts).sorted() {
                let bytes = try #require(files.appleAppSiteAssociation(host: host))
                #expect(bytes.count < WellKnownFiles.maxBytes)
                let matcher = try AppleLinkMatcher(json: Data(bytes))
                #expect(matcher.details.map { $0.appIDs } == [manifest.iosAppIDs])
                for candidate in AppleLinkCandidates.candidates(manifest) {
                    let url = candidate.url(host: host)
                    let resolves = AppleLinkCandidates.resolvesToRoute(router.resolve(url: url, state: nil))
                    let verdict = AppleLinkCandidates.verdict(
                        candidate, resolves: resolves, opensInApp: matcher.opensInApp(path: candidate.path, query: candidate.query),
                        resolvesWithLooseTypes: loose.resolves(url))
                    tally.tried[candidate.variant, default: 0] += 1
                    if resolves { tally.resolved[candidate.variant, default: 0] += 1 }
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
