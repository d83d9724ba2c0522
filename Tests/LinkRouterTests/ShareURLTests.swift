import Foundation
import LinkRouter
import Testing

/// Share URLs built from a manifest's `share.path` and hosts: the token in place of `:token`, for any path shape.
@Suite struct ShareURLTests {
    /// Handz's manifest with its share section's path and hosts replaced (the hosts added to the app's too).
    static func router(path: String, hosts: [String]) throws -> Router {
        let list = "[" + hosts.joined(separator: ", ") + "]"
        let text = try String(contentsOfFile: Examples.path("handz"), encoding: .utf8)
            .replacingOccurrences(of: "\nhosts: [links.handz.example]\n", with: "\nhosts: \(list)\n")
            .replacingOccurrences(of: "  path: /s/:token\n  hosts: [links.handz.example]\n", with: "  path: \(path)\n  hosts: \(list)\n")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("share-url-\(UUID().uuidString).yaml").path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try Router(manifests: ManifestLoader.load(paths: [file]))
    }

    @Test("a share path of any shape, on every share host; a token that needs escaping is escaped")
    func pathShapes() throws {
        let router = try Self.router(path: "/go/:token/open", hosts: ["a.handz.example", "b.handz.example"])
        #expect(router.shareURL(app: "handz", token: "AQAB-_x") == "https://a.handz.example/go/AQAB-_x/open")
        #expect(router.shareURLs(app: "handz", token: "AQAB").map(\.url) == [
            "https://a.handz.example/go/AQAB/open", "https://b.handz.example/go/AQAB/open",
        ])
        #expect(router.shareURL(app: "handz", token: "a b/c") == "https://a.handz.example/go/a%20b%2Fc/open")
        #expect(router.shareURL(app: "nope", token: "AQAB") == nil)
        let plain = try Examples.router()
        #expect(plain.shareURL(app: "handz", token: "AQAB") == "https://links.handz.example/s/AQAB")
    }
}
