import Testing
import LinkRouter

@Suite("Manifest helpers for well-known files and previews")
struct WebHelperTests {
    @Test("universal-link paths, share hosts and preview URLs")
    func helpers() throws {
        let handz = try ManifestLoader.load(path: Examples.path("handz"))
        let components = handz.appleLinkComponents(host: "links.handz.example")
        #expect(components.contains(LinkRule(path: "/s/?*")))
        #expect(components.contains(LinkRule(path: "/s/?*/?*", exclude: true)))
        #expect(components.contains(LinkRule(path: "/flows/????????-????-????-????-????????????/edit")))
        #expect(handz.share?.badges == ["privateUpload": "Private upload - not shared via link."])
        #expect(handz.shareHosts == ["links.handz.example"])
        #expect(handz.previewURL(params: ["flowId": flowID]) == "https://api.handz.example/v1/previews/flows/\(flowID)")
        #expect(handz.previewURL(params: ["flowId": "a/b c"]) == "https://api.handz.example/v1/previews/flows/a%2Fb%20c")
        #expect(handz.previewURL(params: [:]) == nil)
        // A dot segment would move the request to another path of the origin: no URL.
        for value in [".", "..", ""] { #expect(handz.previewURL(params: ["flowId": value]) == nil, "'\(value)'") }
        #expect(handz.previewURL(params: ["flowId": "../x"]) == "https://api.handz.example/v1/previews/flows/..%2Fx")
    }

    @Test("RFC 3492 IDN hosts: Unicode and punycode spellings reach the same app")
    func idn() throws {
        let yaml = """
        app: idn
        name: IDN
        hosts: [xn--mnchen-3ya.example, xn--bcher-kva.example]
        states: [s]
        unauthenticatedState: s
        routes:
          - { id: A, presentation: push, states: [s], patterns: [/a] }
        """
        let router = try Router(manifests: [ManifestLoader.parse(yaml: yaml, file: "idn.yaml")])
        #expect(router.resolve(url: "https://münchen.example/a", state: nil).route == "A")
        #expect(router.resolve(url: "https://bücher.example/a", state: nil).route == "A")
        #expect(router.app(for: "https://MÜNCHEN.example/a") == "idn")
    }
}
