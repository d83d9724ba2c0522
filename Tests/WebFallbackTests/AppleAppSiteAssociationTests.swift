import Foundation
import LinkdTestSupport
import Testing
@testable import LinkRouter
@testable import WebFallback

/// The apple-app-site-association files, read the way iOS reads them (`AppleLinkMatcher`: components in order, first
/// match wins, `*`, `?`, `exclude`, `caseSensitive`), against what `Router` resolves on the same host.
@Suite struct AppleAppSiteAssociationTests {
    /// A URL to try and what kind of try it is.
    struct Candidate: CustomStringConvertible {
        enum Kind { case sample, nearMiss, typeLimit }
        var path: String
        var query = ""
        var kind: Kind
        var description: String { path + (query.isEmpty ? "" : "?" + query) }
    }

    static let uuid = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"

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

    @Test("every example manifest: resolvable paths are covered, near misses are not, per host")
    func examplesAreExact() throws {
        let manifests = try ManifestLoader.load(paths: Fixtures.exampleManifests)
        #expect(manifests.count == 4)
        try Self.checkExactness(manifests)
    }

    @Test("wildcards, optional segments, typed params, required queries, case-insensitive paths")
    func globsAreExact() throws {
        try Self.checkExactness([ManifestLoader.parse(yaml: Self.globs, file: "globs.yaml")])
    }

    @Test("components: excludes before includes, longest first, uuid as ?, literals encoded, caseSensitive false")
    func componentsOfGlobs() throws {
        let files = try WellKnownFiles(manifests: [ManifestLoader.parse(yaml: Self.globs, file: "globs.yaml")])
        let bytes = try #require(files.appleAppSiteAssociation(host: "links.globs.example"))
        let matcher = try AppleLinkMatcher(json: Data(bytes))
        let components = try #require(matcher.details.first?.components)
        #expect(components.allSatisfy { !$0.caseSensitive })
        let uuid = "????????-????-????-????-????????????"
        let listed = components.map { ($0.exclude ? "-" : "+") + $0.path + ($0.queryItems.map { "?\($0)" } ?? "") }
        #expect(listed == [
            "+/docs/?*",
            "-/u/?*/?*/posts/?*", "-/u/?*/posts/?*/?*", "+/u/?*/posts/?*",
            "-/items/?*/?*/view", "+/items/?*/view",
            "-/t/*/*/?*", "-/t/\(uuid)/?*/?*", "+/t/\(uuid)/?*",
            "-/s/?*/?*", "+/s/?*",
            "-/list/?*/?*", "+/list/?*",
            "-/u/?*/?*", "+/u/?*",
            "-/search/?*/?*", "+/search/?*?[\"q\": \"?*\"]",
            "+/wh%3Fat/x",
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
    }

    // MARK: The check

    /// For each manifest and each of its hosts: the file is JSON under 128 KB; every candidate path that `Router`
    /// resolves (for some state) is covered; every near miss it does not resolve is not covered; a type-limit path
    /// (right shape, wrong characters: what Apple's patterns cannot say, docs/web-fallback.md) is covered — a near
    /// miss counts as one when the manifest with its `int` and `slug` params made `string` resolves it.
    static func checkExactness(_ manifests: [AppManifest]) throws {
        let router = try Router(manifests: manifests)
        let relaxed = try Router(manifests: manifests.map(relaxedTypes))
        let files = try WellKnownFiles(manifests: manifests)
        for manifest in manifests {
            for host in Set(manifest.hosts + manifest.shareHosts).sorted() {
                let bytes = try #require(files.appleAppSiteAssociation(host: host))
                #expect(bytes.count < WellKnownFiles.maxBytes)
                let matcher = try AppleLinkMatcher(json: Data(bytes))
                #expect(matcher.details.map { $0.appIDs } == [manifest.iosAppIDs])
                var samples = 0
                for candidate in candidates(manifest) {
                    let url = "https://\(host)\(candidate.path)" + (candidate.query.isEmpty ? "" : "?" + candidate.query)
                    let resolves = manifest.states.contains { router.resolve(url: url, state: $0).outcome != .notFound }
                    let covered = matcher.opensInApp(path: candidate.path, query: candidate.query)
                    switch candidate.kind {
                    case .sample:
                        if resolves { samples += 1 }
                        #expect(covered == resolves, "\(host)\(candidate): resolves \(resolves), covered \(covered)")
                    case .nearMiss where !resolves && manifest.states.contains(where: {
                        relaxed.resolve(url: url, state: $0).outcome != .notFound
                    }):
                        #expect(covered, "\(host)\(candidate): the right shape with a wrong type is covered")
                    case .nearMiss:
                        #expect(covered == resolves, "\(host)\(candidate): resolves \(resolves), covered \(covered)")
                    case .typeLimit:
                        #expect(covered, "\(host)\(candidate): a path of the right shape is covered")
                    }
                }
                #expect(samples > 0, "\(host): nothing resolved")
            }
        }
    }

    /// Per pattern variant (and the share path): a sample with a valid value of each param; near misses (an extra
    /// segment at the end and after each param, each segment missing, a uuid one character short or long or holding
    /// a `/`, the literals in capitals, the required query missing); type-limit tries (an `int` with letters, a
    /// `slug` with capitals, a uuid of non-hex characters); and unknown top-level paths.
    static func candidates(_ manifest: AppManifest) -> [Candidate] {
        var result: [Candidate] = [
            Candidate(path: "/", kind: .nearMiss),
            Candidate(path: "/zz-not-a-route", kind: .nearMiss),
            Candidate(path: "/zz-not-a-route/\(uuid)", kind: .nearMiss),
            Candidate(path: "/zz/a/b/c/d/e", kind: .nearMiss),
        ]
        var patterns: [(text: String, query: String)] = []
        for id in manifest.routeOrder {
            guard let route = manifest.routes[id] else { continue }
            let query = route.query.filter { $0.value.required }.keys.sorted().map { "\($0)=\(sample(route.query[$0]!.type))" }
                .joined(separator: "&")
            patterns += route.patterns.map { ($0, query) }
        }
        if let share = manifest.share { patterns.append((share.path, "")) }
        for (text, query) in patterns {
            guard let pattern = try? PathPattern(parsing: text) else { continue }
            for variant in pattern.expanded {
                let values = variant.map { segment -> String in
                    switch segment {
                    case .literal(let literal): AppManifest.appleEncoded(literal)
                    case .param(_, let type): sample(type)
                    case .wildcard: "a/b"
                    }
                }
                func path(_ parts: [String]) -> String { "/" + parts.joined(separator: "/") }
                result.append(Candidate(path: path(values), query: query, kind: .sample))
                if !query.isEmpty { result.append(Candidate(path: path(values), kind: .nearMiss)) }
                result.append(Candidate(path: path(values + ["extra"]), query: query, kind: .nearMiss))
                result.append(Candidate(path: path(values + ["extra", "more"]), query: query, kind: .nearMiss))
                for index in values.indices {
                    var missing = values
                    missing.remove(at: index)
                    result.append(Candidate(path: path(missing), query: query, kind: .nearMiss))
                    switch variant[index] {
                    case .literal:
                        var upper = values
                        upper[index] = values[index].uppercased()
                        result.append(Candidate(path: path(upper), query: query, kind: .nearMiss))
                    case .param(_, let type):
                        var extra = values
                        extra.insert("extra", at: index + 1)
                        result.append(Candidate(path: path(extra), query: query, kind: .nearMiss))
                        for (wrong, kind) in wrongValues(type) {
                            var changed = values
                            changed[index] = wrong
                            result.append(Candidate(path: path(changed), query: query, kind: kind))
                        }
                    case .wildcard:
                        var one = values
                        one[index] = "a"
                        result.append(Candidate(path: path(one), query: query, kind: .sample))
                    }
                }
            }
        }
        return result
    }

    /// `manifest` with its `int` and `slug` params (path and query) read as `string`: what Apple's `?*` accepts.
    static func relaxedTypes(_ manifest: AppManifest) -> AppManifest {
        var relaxed = manifest
        for (id, route) in manifest.routes {
            relaxed.routes[id]?.patterns = route.patterns.map {
                $0.replacingOccurrences(of: "(int)", with: "").replacingOccurrences(of: "(slug)", with: "")
            }
            for (name, param) in route.query where param.type != .uuid { relaxed.routes[id]?.query[name]?.type = .string }
        }
        return relaxed
    }

    static func sample(_ type: ParamType) -> String {
        switch type {
        case .uuid: uuid
        case .int: "42"
        case .slug: "a-slug"
        case .string: "abc"
        }
    }

    /// Values of the wrong shape (near misses) and of the right shape with the wrong characters (type limits).
    static func wrongValues(_ type: ParamType) -> [(String, Candidate.Kind)] {
        switch type {
        case .uuid:
            var slashed = Array(uuid)
            slashed[30] = "/"
            return [(String(uuid.dropLast()), .nearMiss), (uuid + "0", .nearMiss), (String(slashed), .nearMiss),
                    ("zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz", .typeLimit)]
        case .int: return [("4x2", .typeLimit)]
        case .slug: return [("A-Slug", .typeLimit)]
        case .string: return [("a%2Fb", .sample)]
        }
    }
}
