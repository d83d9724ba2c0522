import Foundation
import Testing
import LinkRouter

@Suite("Intercepts")
struct InterceptTests {
    @Test("Free on a Pro route → Paywall/Upgrade, continuation kept, return to where they were")
    func freeOnProRoute() throws {
        let yaml = """
        app: plans
        name: Plans
        states: [signedOut, free, pro]
        unauthenticatedState: signedOut
        tabStates: [free, pro]
        tabBar: { hiddenFor: [fullScreen] }
        tabs:
          - { id: practice, root: Tab/Practice }
        routes:
          - { id: Tab/Practice, tab: practice, presentation: root, states: [free, pro] }
          - { id: Practice/Home, tab: practice, presentation: push, states: [free, pro], patterns: [/practice] }
          - { id: Practice/Uploads, tab: practice, presentation: push, states: [pro], parent: Practice/Home, patterns: ["/uploads/:id(int)"] }
          - { id: Paywall/Upgrade, presentation: fullScreen, states: [free] }
          - { id: Auth/WelcomeGate, presentation: push, states: [signedOut] }
        intercepts:
          - { states: [signedOut], route: Auth/WelcomeGate }
          - { states: [free], route: Paywall/Upgrade }
        """
        let router = try Router(manifests: [ManifestLoader.parse(yaml: yaml, file: "plans.yaml")])
        let free = router.resolve(url: "plans://x", state: "free", app: "plans")
        #expect(free.outcome == .notFound)   // the app has no schemes: a custom-scheme URL is not its own
        let manifest = try #require(router.manifest(app: "plans"))
        #expect(manifest.intercepts.count == 2)

        let yamlWithScheme = yaml.replacingOccurrences(of: "name: Plans", with: "name: Plans\nschemes: [plans]")
        let r2 = try Router(manifests: [ManifestLoader.parse(yaml: yamlWithScheme, file: "plans.yaml")])
        let gated = r2.resolve(url: "plans://uploads/7", state: "free")
        #expect(gated.outcome == .intercept)
        #expect(gated.route == "Paywall/Upgrade")
        #expect(gated.presentation == .fullScreen)
        #expect(gated.tabBarVisible == false)
        #expect(gated.intercept?.continuation == .init(route: "Practice/Uploads", params: ["id": "7"], url: "plans://uploads/7"))
        #expect(gated.intercept?.returnTo == "Practice/Home")
        let pro = r2.resolve(url: "plans://uploads/7", state: "pro")
        #expect(pro.outcome == .route)
        #expect(pro.stack == ["Tab/Practice", "Practice/Home"])
        let out = r2.resolve(url: "plans://uploads/7", state: nil)
        #expect(out.route == "Auth/WelcomeGate")
        #expect(out.intercept?.continuation?.route == "Practice/Uploads")
    }
}
