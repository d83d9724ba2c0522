import Foundation
import JSONOutput
@testable import LinkRouter
import Testing

/// `Resolution.jsonBytes()` must say exactly what `JSONEncoder` (sorted keys, unescaped slashes) says.
@Suite("Resolution JSON")
struct ResolutionJSONTests {
    static func foundationJSON(_ resolution: Resolution) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(resolution))
    }

    @Test("dictionaries come out in JSONEncoder's sorted-key order (case-folded keys, ties, prefixes, non-ASCII)")
    func keyOrderMatchesFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aAbBzZ_-09.é")
        for _ in 0..<300 {
            var values: [String: String] = [:]
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let key = String((0..<Int.random(in: 0...4, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
                values[key] = "v\"\\\n\(key)"
            }
            var out = JSONBytes()
            out.dictionary(values)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            #expect(out.bytes == Array(try encoder.encode(values)), "\(values.keys.sorted())")
        }
    }

    @Test("byte for byte the same as JSONEncoder for every example app, state and kind of answer")
    func matchesFoundation() throws {
        let router = try Examples.router()
        let urls = [
            "https://links.handz.example/flows/\(flowID)/edit", "handz://practice/history", "handz://library",
            "https://links.handz.example/s/AAAA", "https://links.handz.example/nowhere?x=%22q%22",
            "coinapp://coin/123", "coinapp://project/7", "coinapp://tab/projects", "coinapp://coin/abc",
            "https://links.ordentus.example/events/42", "story://home", "ftp://x", "https://unknown.example/a",
            "https://links.handz.example:99/flows", String(repeating: "a", count: 5000),
        ]
        var compared = 0
        for url in urls {
            for app in router.appIDs {
                for state in (router.manifest(app: app)?.states ?? []) + ["nope"] {
                    let resolution = router.resolve(url: url, state: state)
                    #expect(resolution.jsonBytes() == (try Self.foundationJSON(resolution)), "\(url) as \(state)")
                    compared += 1
                }
            }
        }
        #expect(compared > 100)
    }

    @Test("strings that need escaping, every optional part, and share-link answers")
    func escapingAndOptionals() throws {
        let tricky = "a\"b\\c/d\ne\rf\tg\u{08}h\u{0C}i\u{01}j é 🚀 </script>"
        let resolution = Resolution(
            outcome: .intercept, app: "handz", route: "Auth/SignIn", params: ["zeta": tricky, "Alpha": "1", "alpha": "2"],
            tab: "Tab/Library", presentation: .fullScreen, tabBarVisible: true, stack: ["A", tricky],
            returnTo: ["signedIn": "Tab/Library", "signedOut": "Auth/WelcomeGate"],
            afterActions: ["import": RouteTarget(route: "Library/FlowDetail", params: ["flowId": "x"]), "Export": RouteTarget(route: "B", params: [:])],
            intercept: .init(route: "Auth/SignIn", continuation: .init(route: "Library/FlowDetail", params: ["flowId": tricky], url: "https://x/y?z=1"), returnTo: nil),
            link: .init(id: "ab", status: "active", expiresAt: 1_800_000_000), message: tricky, cta: "Auth/WelcomeGate",
            problem: ResolutionProblem(.noMatch, tricky))
        #expect(resolution.jsonBytes() == (try Self.foundationJSON(resolution)))
        let parsed = try JSONSerialization.jsonObject(with: Data(resolution.jsonBytes())) as? [String: Any]
        #expect(parsed?["message"] as? String == tricky)
    }
}
