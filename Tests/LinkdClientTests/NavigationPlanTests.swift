import LinkdClient
import Testing

/// `NavigationPlan` from resolutions of each shape (the daemon journeys check every seed link's plan too).
@Suite("NavigationPlan")
struct NavigationPlanTests {
    @Test("a pushed route: the stack's first screen is the root, the rest and the target are pushed")
    func pushed() {
        let resolution = Resolution(outcome: .route, app: "handz", route: "Library/FlowBuilder", params: ["flowId": "f"], tab: "library",
                                    presentation: .push, tabBarVisible: true, stack: ["Tab/Library", "Library/Home", "Library/FlowDetail"],
                                    returnTo: ["free": "Library/FlowDetail"])
        let plan = resolution.plan(for: "free")
        #expect(plan.tab == "library" && plan.step == .push && plan.tabBarVisible)
        #expect(plan.root == .init(route: "Tab/Library", params: ["flowId": "f"]))
        #expect(plan.pushed.map(\.route) == ["Library/Home", "Library/FlowDetail", "Library/FlowBuilder"])
        #expect(plan.pushed.allSatisfy { $0.params == ["flowId": "f"] }, "a parent takes the link's params it needs")
        #expect(plan.closeReturnsTo == "Library/FlowDetail" && plan.presented == nil)
        #expect(plan.pushed[1].id == "Library/FlowDetail?flowId=f")
    }

    @Test("a modal: presented over the whole stack, with its presentation; the tab bar as the server says")
    func modal() {
        let resolution = Resolution(outcome: .route, app: "coin", route: "Canvas", params: ["coinId": "c"], tab: "recents",
                                    presentation: .fullScreen, tabBarVisible: false, stack: ["Recents"], returnTo: ["signedIn": "Recents"])
        let plan = resolution.plan(for: "signedIn")
        #expect(plan.step == .present(.fullScreen) && plan.presented?.route == "Canvas")
        #expect(plan.root?.route == "Recents" && plan.pushed.isEmpty && !plan.tabBarVisible)
        #expect(plan.closeReturnsTo == "Recents")
    }

    @Test("a root route, a route with no stack, an overlay, nothing to show")
    func edges() {
        let root = Resolution(outcome: .route, route: "Tab/Moves", tab: "moves", presentation: .root, tabBarVisible: true).plan(for: "pro")
        #expect(root.step == .root && root.root?.route == "Tab/Moves" && root.pushed.isEmpty)
        let alone = Resolution(outcome: .route, route: "Home", presentation: .push).plan(for: "any")
        #expect(alone.root?.route == "Home" && alone.pushed.isEmpty && alone.step == .push)
        let overlay = Resolution(outcome: .route, route: "Tutorial", presentation: .overlay, stack: ["Tab/Library"]).plan(for: "free")
        #expect(overlay.step == .overlay && overlay.presented?.route == "Tutorial" && overlay.root?.route == "Tab/Library")
        let nothing = Resolution(outcome: .notFound, problem: .init(code: "unknownApp", message: "no app")).plan(for: "free")
        #expect(nothing.step == .none && nothing.target == nil && nothing.root == nil && nothing.problem?.code == "unknownApp")
    }

    @Test("an intercept keeps the continuation to resume and where dismissing goes; an unavailable link its message and CTA")
    func interceptAndUnavailable() {
        let continuation = Resolution.Continuation(route: "Library/FlowDetail", params: ["flowId": "f"], url: "handz://flows/f")
        let gate = Resolution(outcome: .intercept, route: "Auth/WelcomeGate", presentation: .push, stack: [],
                              returnTo: ["signedOut": "Auth/WelcomeGate"],
                              intercept: .init(route: "Auth/WelcomeGate", continuation: continuation, returnTo: "Library/Home")).plan(for: "signedOut")
        #expect(gate.outcome == .intercept && gate.target?.route == "Auth/WelcomeGate")
        #expect(gate.resumeAfterSignIn == continuation && gate.interceptReturnsTo == "Library/Home")
        let gone = Resolution(outcome: .linkUnavailable, route: "ShareLink/Unavailable", presentation: .push, stack: ["Tab/Library"],
                              link: .init(id: "a", status: "revoked"), message: "This link is no longer available.", cta: "Tab/Library").plan(for: "free")
        #expect(gone.message == "This link is no longer available." && gone.callToAction == "Tab/Library")
        #expect(gone.pushed.map(\.route) == ["ShareLink/Unavailable"])
    }
}
