import Foundation
import Testing
import LinkRouter

/// A small manifest built in code for the matching rules.
private let matchingYAML = """
app: demo
name: Demo
schemes: [demo]
hosts: [links.demo.example, xn--bcher-kva.example]
ports: [8443]
states: [in]
unauthenticatedState: in
tabs:
  - { id: main, root: Home }
routes:
  - { id: Home, tab: main, presentation: root, states: [in], patterns: [/] }
  - { id: New, tab: main, presentation: push, states: [in], parent: Home, patterns: [/items/new] }
  - { id: ByInt, tab: main, presentation: push, states: [in], parent: Home, patterns: ["/items/:id(int)"] }
  - { id: ByUUID, tab: main, presentation: push, states: [in], parent: Home, patterns: ["/items/:id(uuid)/view"] }
  - { id: Named, tab: main, presentation: push, states: [in], parent: Home, patterns: ["/names/:name"] }
  - { id: Paged, tab: main, presentation: push, states: [in], parent: Home, patterns: ["/list/:page(int)?"] }
  - { id: Docs, tab: main, presentation: push, states: [in], parent: Home, patterns: ["/docs/*rest"] }
  - { id: DocsIndex, tab: main, presentation: push, states: [in], parent: Home, patterns: ["/docs/index"] }
  - id: Search
    tab: main
    presentation: push
    states: [in]
    patterns: [/search]
    query: { q: { type: string, required: true }, page: { type: int } }
"""

@Suite("Matching rules")
struct MatchingTests {
    let router: Router
    init() throws {
        router = try Router(manifests: [ManifestLoader.parse(yaml: matchingYAML, file: "demo.yaml")])
    }

    func route(_ url: String) -> String? { router.resolve(url: url, state: "in").route }
    func params(_ url: String) -> [String: String] { router.resolve(url: url, state: "in").params }
    func problem(_ url: String) -> ResolutionProblem.Code? { router.resolve(url: url, state: "in").problem?.code }

    @Test("static beats typed param beats wildcard")
    func specificity() {
        #expect(route("https://links.demo.example/items/new") == "New")
        #expect(route("https://links.demo.example/items/42") == "ByInt")
        #expect(route("https://links.demo.example/items/abc") == nil)
        #expect(route("https://links.demo.example/docs/index") == "DocsIndex")
        #expect(route("https://links.demo.example/docs/a/b/c") == "Docs")
        #expect(params("https://links.demo.example/docs/a/b/c") == ["rest": "a/b/c"])
        #expect(route("https://links.demo.example/docs") == nil)   // a wildcard takes one or more segments
    }

    @Test("typed params: int, uuid, string")
    func types() {
        #expect(route("https://links.demo.example/items/3F2504E0-4F89-11D3-9A0C-0305E82C3301/view") == "ByUUID")
        #expect(route("https://links.demo.example/items/3F2504E0-4F89-11D3-9A0C/view") == nil)
        #expect(route("https://links.demo.example/items/-7") == "ByInt")
        #expect(route("https://links.demo.example/items/1234567890123456789") == nil)   // over 18 digits
    }

    @Test("optional segments")
    func optional() {
        #expect(route("https://links.demo.example/list") == "Paged")
        #expect(params("https://links.demo.example/list/3") == ["page": "3"])
    }

    @Test("custom schemes: the host part is the first segment")
    func customScheme() {
        #expect(route("demo://items/7") == "ByInt")
        #expect(route("demo:///items/7") == "ByInt")
        #expect(route("DEMO://items/7") == "ByInt")
        #expect(route("demo://") == "Home")
    }

    @Test("percent-decoding happens once; an encoded slash stays inside the param")
    func percent() {
        #expect(params("https://links.demo.example/names/a%2Fb") == ["name": "a/b"])
        #expect(params("https://links.demo.example/names/%2541") == ["name": "%41"])
        #expect(params("https://links.demo.example/names/caf%C3%A9") == ["name": "café"])
        #expect(problem("https://links.demo.example/names/%zz") == .malformedURL)
        #expect(problem("https://links.demo.example/names/%FF") == .malformedURL)
        // Custom schemes decode every segment before matching: an escaped literal still matches.
        #expect(route("demo://item%73/new") == "New")
        #expect(route("demo://items/n%65w") == "New")
    }

    @Test("https: a literal or uuid segment matches only as the apple-app-site-association writes it; other params decode")
    func canonicalSpelling() {
        // A literal written with an escaped unreserved character matches no literal (iOS's pattern would not either)…
        #expect(route("https://links.demo.example/item%73/new") == nil)
        #expect(problem("https://links.demo.example/item%73/new") == .noMatch)
        #expect(router.resolve(url: "https://links.demo.example/item%73/new", state: "in").problem?.message.contains("'item%73'") == true)
        #expect(route("https://links.demo.example/items/n%65w") == nil)   // not New, and "new" is no int
        // …but a param at that place takes it, decoded, as iOS's `?*` would.
        #expect(params("https://links.demo.example/names/%61bc") == ["name": "abc"])
        #expect(params("https://links.demo.example/items/%34%32") == ["id": "42"])
        #expect(params("https://links.demo.example/docs/%61/b") == ["rest": "a/b"])
        #expect(route("https://links.demo.example/docs/ind%65x") == "Docs")   // the literal index is skipped, the wildcard takes it
        // A uuid is written plainly (any case): iOS's 36 `?` do not match `%2D`.
        #expect(route("https://links.demo.example/items/3f2504e0-4f89-11d3-9a0c-0305e82c3301/view") == "ByUUID")
        #expect(route("https://links.demo.example/items/3f2504e0%2D4f89-11d3-9a0c-0305e82c3301/view") == nil)
        #expect(route("https://links.demo.example/items/%33f2504e0-4f89-11d3-9a0c-0305e82c3301/view") == nil)
        #expect(route("demo://items/3f2504e0%2D4f89-11d3-9a0c-0305e82c3301/view") == "ByUUID")
        #expect(route("https://links.demo.example/items/ne%77") == nil)
        #expect(route("https://links.demo.example/items/new") == "New")
        // A param takes bytes the canonical spelling escapes written raw (a literal would not: AppleAppSiteAssociationTests).
        #expect(params("https://links.demo.example/names/névé") == ["name": "névé"])
    }

    @Test("a dot segment ('.', '..', written or escaped) is never a param's value nor part of a wildcard tail")
    func dotSegments() {
        for url in ["https://links.demo.example/names/..", "https://links.demo.example/names/.", "https://links.demo.example/names/%2E%2E",
                    "https://links.demo.example/names/%2e", "demo://names/..", "https://links.demo.example/docs/..",
                    "https://links.demo.example/docs/a/../b", "https://links.demo.example/docs/a/.", "demo://docs/a/%2E%2E/b"] {
            #expect(route(url) == nil, "\(url)")
            #expect(problem(url) == .noMatch, "\(url)")
        }
        #expect(params("https://links.demo.example/names/...") == ["name": "..."])
        #expect(params("https://links.demo.example/names/.x") == ["name": ".x"])
        #expect(params("https://links.demo.example/docs/a/.b/c..") == ["rest": "a/.b/c.."])
    }

    @Test("share targets: an empty, '.' or '..' value, a '/' in a one-segment param, a dot segment in a wildcard are refused")
    func shareTargetValues() throws {
        #expect(router.manifest(app: "demo")?.routes["Named"]?.declaredParams["name"]?.fillsSegment == true)
        #expect(router.manifest(app: "demo")?.routes["Docs"]?.declaredParams["rest"]?.fillsTail == true)
        let spec = try #require(router.manifest(app: "demo")?.routes["Named"]?.declaredParams["name"])
        #expect(spec.refusal(of: "") == "is empty")
        #expect(spec.refusal(of: ".") == "is '.', a dot segment")
        #expect(spec.refusal(of: "..") == "is '..', a dot segment")
        #expect(spec.refusal(of: "a/b") == "fills one path segment and must not contain '/'")
        #expect(spec.refusal(of: "...") == nil && spec.refusal(of: "a.b") == nil)
        let tail = try #require(router.manifest(app: "demo")?.routes["Docs"]?.declaredParams["rest"])
        #expect(tail.refusal(of: "a/b/c") == nil)
        for bad in ["a/../b", "a//b", "a/", "/a", "..", "a/."] { #expect(tail.refusal(of: bad) != nil, "\(bad)") }
        let query = try #require(router.manifest(app: "demo")?.routes["Search"]?.declaredParams["q"])
        #expect(query.refusal(of: "a/b") == nil, "a query param fills no path segment")
        #expect(query.refusal(of: "..") != nil, "but no value is ever a dot segment")
    }

    @Test("scheme and host are case-insensitive, the path is case-sensitive")
    func caseRules() {
        #expect(route("HTTPS://LINKS.Demo.Example/items/new") == "New")
        #expect(route("https://links.demo.example/Items/new") == nil)
    }

    @Test("https: a trailing slash is ignored, an empty segment is nonCanonicalPath; custom schemes ignore both; fragments and unknown query params are ignored")
    func slashes() {
        #expect(route("https://links.demo.example/items/new/") == "New")
        #expect(route("https://links.demo.example/") == "Home")
        #expect(route("https://links.demo.example") == "Home")
        for doubled in ["https://links.demo.example//items///new/", "https://links.demo.example/items//new",
                        "https://links.demo.example//items/new", "https://links.demo.example/items/new//", "https://links.demo.example//"] {
            let resolution = router.resolve(url: doubled, state: "in")
            #expect(resolution.outcome == .notFound && resolution.problem?.code == .nonCanonicalPath, "\(doubled)")
            #expect(resolution.problem?.message.contains("empty segment") == true)
        }
        #expect(route("demo://items//new/") == "New")
        #expect(route("demo:////items///new//") == "New")
        #expect(route("https://links.demo.example/items/new#top") == "New")
        #expect(route("https://links.demo.example/items/new?utm_source=x&y") == "New")
    }

    @Test("caseInsensitivePaths folds ASCII letters, and the hex digits of an escape on https, as caseSensitive: false does")
    func caseInsensitiveFold() throws {
        let yaml = """
            app: fold
            name: Fold
            schemes: [fold]
            hosts: [links.fold.example]
            caseInsensitivePaths: true
            states: [in]
            unauthenticatedState: in
            routes:
              - { id: Cafe, presentation: push, states: [in], patterns: ["/Café/menu"] }
              - { id: Odd, presentation: push, states: [in], patterns: ["/wh?at"] }
            """
        let router = try Router(manifests: [ManifestLoader.parse(yaml: yaml, file: "fold.yaml")])
        func route(_ url: String) -> String? { router.resolve(url: url, state: "in").route }
        #expect(route("https://links.fold.example/caf%C3%A9/MENU") == "Cafe")
        #expect(route("https://links.fold.example/CAF%c3%a9/menu") == "Cafe")
        #expect(route("https://links.fold.example/WH%3fAT") == "Odd")
        #expect(route("https://links.fold.example/caf%C3%89/menu") == nil)   // É: not an ASCII letter
        #expect(route("https://links.fold.example/c%41f%C3%A9/menu") == nil)  // an escaped letter is still not canonical
        #expect(route("fold://CAF%C3%A9/menu") == "Cafe")
    }

    @Test("typed query params: required, optional, wrong type")
    func query() {
        #expect(params("https://links.demo.example/search?q=a+b&page=2") == ["q": "a+b", "page": "2"])
        #expect(params("https://links.demo.example/search?q=%26") == ["q": "&"])
        #expect(problem("https://links.demo.example/search") == .badQuery)
        #expect(problem("https://links.demo.example/search?q=x&page=two") == .badQuery)
    }

    @Test("userinfo is refused; ports only when configured; IDN hosts as punycode or Unicode")
    func authority() {
        #expect(problem("https://user@links.demo.example/items/new") == .userinfoRefused)
        #expect(problem("https://links.demo.example:444/items/new") == .portRefused)
        #expect(route("https://links.demo.example:8443/items/new") == "New")
        #expect(route("https://XN--BCHER-KVA.example/items/new") == "New")
        #expect(route("https://bücher.example/items/new") == "New")
        #expect(route("https://BÜCHER.example/items/new") == "New")
        #expect(problem("https://other.example/items/new") == .unknownApp)
    }

    @Test("over-long and malformed URLs get a clear problem, never a crash")
    func limits() {
        let long = "https://links.demo.example/names/" + String(repeating: "a", count: 5000)
        let r = router.resolve(url: long, state: "in")
        #expect(r.problem?.code == .urlTooLong)
        #expect(r.problem?.message.contains("4096") == true)
        for bad in ["", "links.demo.example/items", "://x", "1http://x", "https://[::1]/", "https://links.demo.example:99999/"] {
            #expect(router.resolve(url: bad, state: "in").outcome == .notFound, "\(bad)")
        }
        #expect(router.resolve(url: "demo://items/1", state: "nope").problem?.code == .unknownState)
    }

    @Test("Resolution JSON keys are stable")
    func json() throws {
        let data = try JSONEncoder().encode(router.resolve(url: "demo://items/7", state: "in"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["outcome", "app", "route", "params", "tab", "presentation", "tabBarVisible", "stack", "returnTo"])
        let decoded = try JSONDecoder().decode(Resolution.self, from: data)
        #expect(decoded == router.resolve(url: "demo://items/7", state: "in"))
    }

    @Test("apple-app-site-association components: empty segments excluded, longest first, trailing-/ forms first, excludes before includes, a variant per optional part")
    func aasa() throws {
        let yaml = """
            app: aasa
            name: AASA
            hosts: [a.example]
            states: [in]
            unauthenticatedState: in
            routes:
              - { id: Item, presentation: push, states: [in], patterns: ["/items/:id(int)/view", "/i/:id(uuid)"] }
              - { id: List, presentation: push, states: [in], patterns: ["/list/:page(int)?"] }
            """
        let manifest = try ManifestLoader.parse(yaml: yaml, file: "aasa.yaml")
        let components = manifest.appleLinkComponents(host: "a.example").map { ($0.exclude ? "-" : "+") + $0.path }
        let uuid = "????????-????-????-????-????????????"
        #expect(components == [
            "-*//*",
            "-/items/?*/?*/view/", "+/items/?*/view/",
            "-/items/?*/?*/view", "+/items/?*/view",
            "-/i/*/*/", "+/i/\(uuid)/", "-/list/?*/?*/", "+/list/?*/",
            "-/i/*/*", "+/i/\(uuid)", "-/list/?*/?*", "+/list/?*",
            "+/list/",
            "+/list",
        ])
        #expect(manifest.appleLinkComponents(host: "other.example").isEmpty)
    }

    @Test("assetlinks.json rules: the same walk as the AASA, empty segments excluded per depth, a too-many-segments exclude per length, literals decoded")
    func androidDynamicRules() throws {
        let yaml = """
            app: dal
            name: DAL
            hosts: [a.example]
            states: [in]
            unauthenticatedState: in
            routes:
              - { id: Item, presentation: push, states: [in], patterns: ["/items/:id(int)/view", "/i/:id(uuid)"] }
              - { id: List, presentation: push, states: [in], patterns: ["/list/:page(int)?"] }
              - { id: Docs, presentation: push, states: [in], patterns: ["/caf\u{e9}/wh?at/*rest"] }
            """
        let manifest = try ManifestLoader.parse(yaml: yaml, file: "dal.yaml")
        let rules = manifest.androidLinkComponents(host: "a.example").map { ($0.exclude ? "-" : "+") + $0.path }
        let uuid = "????????-????-????-????-????????????"
        let emptySegments = (0..<32).map { "-/" + String(repeating: "?*/", count: $0) + "/*" }
        #expect(rules == emptySegments + [
            "+/caf\u{e9}/wh?at/?*",
            "-/?*/?*/?*/?*/*", "+/items/?*/view/",
            "-/?*/?*/?*/*", "+/items/?*/view",
            "+/i/\(uuid)/", "+/list/?*/",
            "-/?*/?*/*", "+/i/\(uuid)", "+/list/?*",
            "+/list/",
            "-/?*/*", "+/list",
        ])
        #expect(manifest.androidLinkComponents(host: "other.example").isEmpty)
        // The variants and their order are the AASA's: the includes of both files name the same patterns.
        let apple = manifest.appleLinkComponents(host: "a.example").filter { !$0.exclude }.map(\.path)
        #expect(apple.count == rules.filter { $0.hasPrefix("+") }.count)
        #expect(AppManifest.androidLiteral("wh?at*") == "wh?at?")
    }
}
