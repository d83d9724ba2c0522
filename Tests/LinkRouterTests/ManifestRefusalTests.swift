import Foundation
import Testing
import LinkRouter

/// The start of a valid manifest; each test appends one mistake.
private let base = """
app: bad
name: Bad
states: [signedOut, signedIn]
unauthenticatedState: signedOut
tabs:
  - { id: home, root: Home }
routes:
  - { id: Home, tab: home, presentation: root, states: [signedIn], patterns: [/home] }
  - { id: Detail, tab: home, presentation: push, states: [signedIn], parent: Home, patterns: ["/d/:id(int)"] }

"""

private func problems(_ yaml: String) -> [String] {
    do {
        _ = try ManifestLoader.parse(yaml: yaml, file: "bad.yaml")
        return []
    } catch {
        return error.errors.map(\.description)
    }
}

@Suite("Manifests that must be refused")
struct ManifestRefusalTests {
    @Test("the base fixture is valid")
    func baseIsValid() { #expect(problems(base) == []) }

    @Test("origin.baseURL: plain http only to a loopback host, parsed out of the authority")
    func originPlainHTTP() {
        func origin(_ url: String) -> [String] { problems(base + "origin:\n  baseURL: \"\(url)\"\n  previewPath: /previews\n") }
        let hint = "use an https URL (plain http only to a loopback host: localhost, 127.0.0.0/8 or [::1])"
        #expect(origin("http://localhost.evil.example") ==
                ["bad.yaml:11:12: error: origin.baseURL 'http://localhost.evil.example' is not https — \(hint)"])
        for refused in ["http://127.0.0.1.evil.example", "http://localhost@evil.example", "http://127.0.0.1:80@evil.example/",
                        "http://evil.example", "http://127.0.0.1.nip.io:8080", "http://[::1].evil.example", "http://[::2]:80",
                        "http://128.0.0.1", "http://127.0.0.256", "http://0177.0.0.1", "http://localhost:http", "http://localhost:99999",
                        "ftp://localhost", "HTTPS://x.example"] {
            #expect(origin(refused).count == 1, "\(refused) must be refused")
        }
        for allowed in ["https://api.handz.example", "http://localhost", "http://LOCALHOST:8080/base", "http://127.0.0.1:9000",
                        "http://127.1.2.3/x", "http://[::1]:8080", "http://[::1]", "http://localhost?x=1"] {
            #expect(origin(allowed) == [], "\(allowed) must be allowed")
        }
    }

    @Test("origin.previewPath: no empty, '.' or '..' segment")
    func originPreviewPathSegments() {
        func origin(_ path: String) -> [String] { problems(base + "origin:\n  baseURL: https://api.example\n  previewPath: \"\(path)\"\n") }
        for refused in ["/v1/../admin", "/v1/./x", "/v1//x", "/..", "/v1/previews/:id/.."] {
            #expect(origin(refused).count == 1 && origin(refused).first?.contains("has an empty, '.' or '..' segment") == true, "\(refused)")
        }
        for allowed in ["/v1/previews/:id", "/v1/previews/:id/", "/", "/v1/.well/x..y"] {
            #expect(origin(allowed) == [], "\(allowed)")
        }
    }

    @Test("android.dynamicAppLinks: true or false only, refused with its position; an unknown android key with a typo hint")
    func androidDynamicAppLinks() throws {
        let android = "android:\n  package: com.example.bad\n  sha256CertFingerprints: [\"\(Array(repeating: "AB", count: 32).joined(separator: ":"))\"]\n"
        #expect(problems(base + android + "  dynamicAppLinks: maybe\n") ==
                ["bad.yaml:13:20: error: android.dynamicAppLinks must be true or false — write true or false"])
        #expect(problems(base + android + "  dynamicAppLinks: [true]\n") ==
                ["bad.yaml:13:20: error: android.dynamicAppLinks must be true or false — write true or false"])
        #expect(problems(base + android + "  dynamicApplinks: false\n") ==
                ["bad.yaml:13:3: error: unknown key 'dynamicApplinks' in android — did you mean 'dynamicAppLinks'?"])
        #expect(try ManifestLoader.parse(yaml: base + android, file: "ok.yaml").androidDynamicAppLinks)
        #expect(try !ManifestLoader.parse(yaml: base + android + "  dynamicAppLinks: false\n", file: "ok.yaml").androidDynamicAppLinks)
        #expect(try ManifestLoader.parse(yaml: base + android + "  dynamicAppLinks: true\n", file: "ok.yaml").androidDynamicAppLinks)
    }

    @Test("unknown route in a return path")
    func unknownReturnRoute() {
        #expect(problems(base + "returns:\n  - from: Detail\n    close: { signedIn: Hom }\n") ==
                ["bad.yaml:12:24: error: unknown route 'Hom' — did you mean 'Home'?"])
    }

    @Test("unknown route in an intercept")
    func unknownInterceptRoute() {
        #expect(problems(base + "intercepts:\n  - { states: [signedOut], route: Auth/Welcome }\n") ==
                ["bad.yaml:11:35: error: unknown route 'Auth/Welcome' — declare the route or use one that exists"])
    }

    @Test("a tab with no root")
    func tabWithoutRoot() {
        let yaml = base.replacingOccurrences(of: "{ id: home, root: Home }", with: "{ id: home }")
        #expect(problems(yaml) == ["bad.yaml:6:5: error: a tab has no 'root' — add 'root:'"])
    }

    @Test("two patterns that match the same URL")
    func duplicatePattern() {
        let yaml = base + "  - { id: Other, tab: home, presentation: push, states: [signedIn], patterns: [\"/d/:n(int)\"] }\n"
        #expect(problems(yaml) == ["bad.yaml:10:80: error: pattern '/d/:n(int)' of Other and '/d/:id(int)' of Detail can match the same URL: they match exactly the same paths — make one of them more specific (a literal segment or a narrower param type)"])
    }

    @Test("typed params whose types overlap")
    func overlappingTypes() {
        let yaml = base + "  - { id: Other, tab: home, presentation: push, states: [signedIn], patterns: [\"/d/:s(slug)\"] }\n"
        #expect(problems(yaml) == ["bad.yaml:10:80: error: pattern '/d/:s(slug)' of Other and '/d/:id(int)' of Detail can match the same URL: params of types int and slug overlap at the same segment — make one of them more specific (a literal segment or a narrower param type)"])
        let disjoint = base + "  - { id: Other, tab: home, presentation: push, states: [signedIn], patterns: [\"/d/:u(uuid)\"] }\n"
        #expect(problems(disjoint) == [])
    }

    @Test("an optional segment that duplicates another pattern")
    func optionalCollision() {
        let yaml = base + "  - { id: Other, tab: home, presentation: push, states: [signedIn], patterns: [\"/home/:x?\"] }\n"
        #expect(problems(yaml).count == 1)
        #expect(problems(yaml).first?.hasPrefix("bad.yaml:10:80: error: pattern '/home/:x?' of Other and '/home' of Home") == true)
    }

    @Test("unknown param type")
    func unknownParamType() {
        let yaml = base + "  - { id: Other, tab: home, presentation: push, states: [signedIn], patterns: [\"/o/:n(float)\"] }\n"
        #expect(problems(yaml) == ["bad.yaml:10:80: error: unknown param type 'float' in '/o/:n(float)' — use one of: string, int, uuid, slug"])
    }

    @Test("undeclared state")
    func undeclaredState() {
        let yaml = base + "  - { id: Other, tab: home, presentation: push, states: [signedin] }\n"
        #expect(problems(yaml) == ["bad.yaml:10:58: error: state 'signedin' is not declared — did you mean 'signedIn'?"])
    }

    @Test("a cycle in parents")
    func parentCycle() {
        let yaml = base + """
          - { id: A, tab: home, presentation: push, states: [signedIn], parent: B }
          - { id: B, tab: home, presentation: push, states: [signedIn], parent: A }

        """
        #expect(problems(yaml) == ["bad.yaml:10:73: error: parents form a cycle: A → B → A — remove the 'parent' that points back"])
    }

    @Test("duplicate ids, missing keys, unknown keys with a typo hint, all in one report")
    func several() {
        let yaml = base + """
          - { id: Home, tab: home, presentation: push, states: [signedIn] }
          - { id: X, tab: home, states: [signedIn], parnet: Home }

        """
        #expect(problems(yaml) == [
            "bad.yaml:10:11: error: route 'Home' is declared twice (first at line 8) — give each route its own id",
            "bad.yaml:11:5: error: a route has no 'presentation' — add 'presentation:'",
            "bad.yaml:11:45: error: unknown key 'parnet' in a route — did you mean 'parent'?",
        ])
    }

    @Test("A shareable route in a manifest without a share section is refused where 'shareable' is written")
    func shareableWithoutShare() {
        let yaml = """
        app: bad
        name: Bad
        states: [signedOut]
        unauthenticatedState: signedOut
        routes:
          - { id: Home, presentation: root, states: [signedOut], patterns: [/home] }
          - { id: Item, presentation: push, states: [signedOut], patterns: ["/i/:id"], shareable: true }

        """
        #expect(problems(yaml) == [
            "bad.yaml:7:91: error: route Item is shareable but the manifest has no 'share' section, so no share link can be made — add a 'share' section (path, route, unavailableRoute; docs/manifest.md) or remove 'shareable: true'",
        ])
    }

    @Test("route params: a known type, and not a name the route's patterns already declare")
    func routeParams() {
        let yaml = base.replacingOccurrences(of: "patterns: [\"/d/:id(int)\"] }", with: "patterns: [\"/d/:id(int)\"], params: { id: int, kind: colour } }")
        #expect(problems(yaml) == [
            "bad.yaml:9:121: error: param 'id' of Detail is already declared by its patterns or query — remove it from 'params'",
            "bad.yaml:9:136: error: unknown param type 'colour' for param 'kind' of Detail — use one of: string, int, uuid, slug",
        ])
    }

    @Test("ics rules: unknown route, bad component, bad property name")
    func ics() {
        let yaml = base + """
        ics:
          rules:
            - { component: VEVNT, route: Nope, params: { id: "uid x" } }

        """
        #expect(problems(yaml) == [
            "bad.yaml:12:20: error: component 'VEVNT' is not VEVENT, VTODO or VJOURNAL — did you mean 'VEVENT'?",
            "bad.yaml:12:34: error: unknown route 'Nope' — did you mean 'Home'?",
            "bad.yaml:12:54: error: 'uid x' is not an iCalendar property name — write an upper-case name such as UID, DTSTART, SUMMARY, URL or X-VENDOR-NAME",
        ])
    }

    @Test("share.badges: ids, texts and the count are checked where they are written")
    func badges() throws {
        let share = "share:\n  path: /s/:token\n  route: Home\n  unavailableRoute: Home\n  badges:\n"
        let good = base + share + "    privateUpload: \"Private upload - not shared via link.\"\n"
        #expect(problems(good) == [])
        #expect(try ManifestLoader.parse(yaml: good, file: "ok.yaml").share?.badges == ["privateUpload": "Private upload - not shared via link."])
        let yaml = good + """
            "bad id": x
            long: "\(String(repeating: "x", count: 201))"
            list: [a, b]

        """
        #expect(problems(yaml) == [
            "bad.yaml:16:5: error: badge id 'bad id' is not 1–64 letters, digits, '-' or '_' — write an id such as 'privateUpload'",
            "bad.yaml:17:11: error: the text of badge 'long' is 201 characters, more than 200 — shorten it",
            "bad.yaml:18:11: error: share.badges.list must be a non-empty string — write a plain value",
        ])
        let many = base + share + (0...32).map { "    b\($0): text\n" }.joined()
        #expect(problems(many) == ["bad.yaml:15:5: error: share.badges has 33 badges, more than 32 — keep at most 32"])
    }

    @Test("share.pathPatterns: each bad pattern refused where it is written; at most 16; the good ones kept")
    func sharePathPatterns() throws {
        let share = "share:\n  path: /s/:token\n  route: Home\n  unavailableRoute: Home\n  pathPatterns:\n"
        let bad = ["/l/**", "/l*", "/", "l/*", "/s/*", "/S/x?", "/admin?", "/healthz", "/v1/*", "/a//b", "/a/", "/a.b", "/l/*"]
        let yaml = base + share + (["/l/*"] + bad).map { "    - \"\($0)\"\n" }.joined()
        let found = problems(yaml)
        #expect(found.count == bad.count, "\(found)")
        for (index, (text, problem)) in zip(bad, found).enumerated() {
            #expect(problem.hasPrefix("bad.yaml:\(16 + index):7: error: "), "\(text): \(problem)")
        }
        #expect(found[0].contains("'**' is not supported"), "\(found[0])")
        #expect(found[4] == "bad.yaml:20:7: error: path pattern '/s/*' starts with '/s/', which linkd answers itself — choose another prefix, e.g. '/l/*'")
        #expect(found[6].contains("starts with '/admin'"), "\(found[6])")
        #expect(found.last == "bad.yaml:28:7: error: path pattern '/l/*' appears twice in share.pathPatterns — keep one")
        let many = base + share + (0...16).map { "    - \"/p\($0)/*\"\n" }.joined()
        #expect(problems(many) == ["bad.yaml:15:5: error: share.pathPatterns has 17 patterns, more than 16 — keep at most 16 (one '*' segment covers any number of paths)"])
        let good = try ManifestLoader.parse(yaml: base + share + "    - \"/l/*\"\n    - \"/????\"\n    - \"/adm??\"\n", file: "good.yaml")
        #expect(good.share?.pathPatterns.map(\.text) == ["/l/*", "/????", "/adm??"])
    }

    @Test("YAML syntax errors carry their position; oversize manifests are refused")
    func syntaxAndSize() {
        #expect(problems("app: [unclosed\n").first?.hasPrefix("bad.yaml:2:1: error: YAML does not parse") == true)
        let huge = base + "# " + String(repeating: "x", count: ManifestLoader.maxBytes) + "\n"
        #expect(problems(huge) == ["bad.yaml:1:1: error: manifest is \(huge.utf8.count) bytes, over the cap of 1048576 — split the app's routes or shorten the file"])
    }

    @Test("missing required top-level keys")
    func missingTop() {
        #expect(problems("app: x\n") == [
            "bad.yaml:1:1: error: the manifest has no 'name' — add 'name:'",
            "bad.yaml:1:1: error: the manifest has no 'states' — add 'states:'",
            "bad.yaml:1:1: error: the manifest has no 'unauthenticatedState' — add 'unauthenticatedState:'",
            "bad.yaml:1:1: error: the manifest has no 'routes' — add 'routes:'",
        ])
    }
}
