import Foundation
import Testing
import LinkRouter

@Suite("Handz acceptance (CH04 §7, §8, §10)")
struct HandzAcceptanceTests {
    let router: Router
    init() throws { router = try Examples.router() }

    func activeLink(_ query: ShareLinkQuery) -> LinkStatus {
        guard query.app == "handz", query.token == "AQgood" else { return .unknown }
        return .active(ShareLinkTarget(linkID: "00112233445566778899aabbccddeeff", route: "",
                                       params: ["flowId": flowID], expiresAt: Date(timeIntervalSince1970: 1_900_000_000)))
    }

    @Test("7.2/7.3 signed in: the share link opens ShareLink/FlowView, closing returns to Tab/Library")
    func shareSignedIn() {
        for state in ["free", "pro", "trial"] {
            let r = router.resolve(url: "https://links.handz.example/s/AQgood", state: state, links: activeLink)
            #expect(r.outcome == .route)
            #expect(r.route == "ShareLink/FlowView")
            #expect(r.params == ["flowId": flowID])
            #expect(r.tab == "library")
            #expect(r.stack == ["Tab/Library"])
            #expect(r.returnTo[state] == "Tab/Library")
            #expect(r.link == .init(id: "00112233445566778899aabbccddeeff", status: "active", expiresAt: 1_900_000_000))
        }
    }

    @Test("7.3 signed out: closing the share view returns to Auth/WelcomeGate")
    func shareSignedOut() {
        let r = router.resolve(url: "https://links.handz.example/s/AQgood", state: nil, links: activeLink)
        #expect(r.outcome == .route)
        #expect(r.route == "ShareLink/FlowView")
        #expect(r.tab == nil)
        #expect(r.tabBarVisible == false)
        #expect(r.stack == ["Auth/WelcomeGate"])
        #expect(r.returnTo["signedOut"] == "Auth/WelcomeGate")
    }

    @Test("7.3/10 import from the share view goes to Library/FlowDetail of the imported flow")
    func afterImport() {
        let r = router.resolve(url: "https://links.handz.example/s/AQgood", state: "free", links: activeLink)
        #expect(r.afterActions?["import"] == RouteTarget(route: "Library/FlowDetail", params: ["flowId": flowID]))
    }

    @Test("8.2 signed out on a signed-in route: Welcome Gate with the target as continuation")
    func signedOutIntercept() {
        let url = "https://links.handz.example/flows/\(flowID)"
        for state in ["signedOut", "guest"] {
            let r = router.resolve(url: url, state: state)
            #expect(r.outcome == .intercept)
            #expect(r.route == "Auth/WelcomeGate")
            #expect(r.intercept?.continuation == .init(route: "Library/FlowDetail", params: ["flowId": flowID], url: url))
        }
    }

    @Test("8.2/10 the paywall returns to Practice/Home for Free; Pro following an upgrade link sees the plan")
    func paywall() {
        let free = router.resolve(url: "handz://upgrade", state: "free")
        #expect(free.route == "Paywall/Upgrade")
        #expect(free.presentation == .fullScreen)
        #expect(free.tabBarVisible == false)
        #expect(free.returnTo["free"] == "Practice/Home")
        let gate = router.resolve(url: "handz://practice/gate", state: "free")
        #expect(gate.route == "Practice/Gate")
        #expect(gate.returnTo["free"] == "Practice/Home")
        let pro = router.resolve(url: "handz://upgrade", state: "pro")
        #expect(pro.outcome == .intercept)
        #expect(pro.route == "Settings/Subscription")
        #expect(pro.intercept?.continuation == nil)
    }

    @Test("8.3 revoked, expired, deleted or invalid token: 'This link is no longer available.' with the CTA per state")
    func unavailable() {
        let statuses: [(LinkStatus, String)] = [
            (.unavailable(linkID: "aa", reason: .revoked), "revoked"), (.unavailable(linkID: "aa", reason: .expired), "expired"),
            (.unavailable(linkID: "aa", reason: .deleted), "deleted"), (.unknown, "unknown"),
        ]
        for (status, name) in statuses {
            for (state, cta) in [("free", "Tab/Library"), ("pro", "Tab/Library"), ("signedOut", "Auth/WelcomeGate")] {
                let r = router.resolve(url: "https://links.handz.example/s/AQx", state: state, links: { _ in status })
                #expect(r.outcome == .linkUnavailable)
                #expect(r.route == "ShareLink/Unavailable")
                #expect(r.message == "This link is no longer available.")
                #expect(r.cta == cta)
                #expect(r.link?.status == name)
            }
        }
    }

    @Test("10: signed in sees 4 tabs; a Library deep link builds the stack root first")
    func stacks() throws {
        #expect(router.manifest(app: "handz")?.tabs.map(\.root) == ["Tab/Library", "Tab/Practice", "Tab/Moves", "Tab/Settings"])
        let r = router.resolve(url: "https://links.handz.example/flows/\(flowID)/edit", state: "pro")
        #expect(r.route == "Library/FlowBuilder")
        #expect(r.stack == ["Tab/Library", "Library/Home", "Library/FlowDetail"])
        #expect(r.tabBarVisible)
        #expect(r.returnTo["pro"] == "Library/FlowDetail")
    }

    @Test("10: guest can open the sandbox")
    func guestSandbox() {
        let r = router.resolve(url: "handz://sandbox", state: "guest")
        #expect(r.outcome == .route)
        #expect(r.route == "Library/FlowBuilderSandbox")
    }

    @Test("7.2 what Handz shares is the flow: ShareLink/FlowView with its flowId; FlowDetail, a missing or bad flowId are refused")
    func shareTargets() throws {
        try router.checkShareTarget(app: "handz", route: "ShareLink/FlowView", params: ["flowId": flowID])
        #expect(router.manifest(app: "handz")?.share?.route == "ShareLink/FlowView")
        #expect(throws: RouteError.self) { try router.checkShareTarget(app: "handz", route: "Settings/Home", params: [:]) }
        do {
            try router.checkShareTarget(app: "handz", route: "Library/FlowDetail", params: ["flowId": flowID])
            Issue.record("Library/FlowDetail must not be shareable (a signed-out follower would get the Welcome Gate)")
        } catch {
            #expect(error.code == .notShareable)
            #expect(error.message == "route Library/FlowDetail is not shareable (handz shares through ShareLink/FlowView)")
        }
        do {
            try router.checkShareTarget(app: "handz", route: "ShareLink/FlowView", params: [:])
            Issue.record("a flow link without its flowId must be refused")
        } catch {
            #expect(error.code == .badParams)
            #expect(error.message == "route ShareLink/FlowView needs param 'flowId' (uuid)")
        }
        #expect(throws: RouteError.self) { try router.checkShareTarget(app: "handz", route: "ShareLink/FlowView", params: ["flowId": "nope"]) }
        #expect(throws: RouteError.self) { try router.checkShareTarget(app: "handz", route: "ShareLink/FlowView", params: ["flowId": flowID, "x": "1"]) }
        #expect(router.shareURL(app: "handz", token: "AQAB-_x") == "https://links.handz.example/s/AQAB-_x")
    }
}

@Suite("COIN acceptance (§5.3, §10.2)")
struct CoinAcceptanceTests {
    let router: Router
    init() throws { router = try Examples.router() }

    @Test("coinapp://coin/{id} opens Canvas full-screen over Recents on a cold start")
    func coin() {
        let r = router.resolve(url: "coinapp://coin/123", state: "signedIn")
        #expect(r.route == "Canvas")
        #expect(r.params == ["coinId": "123"])
        #expect(r.presentation == .fullScreen)
        #expect(r.tab == "recents")
        #expect(r.stack == ["Recents"])
        #expect(r.tabBarVisible == false)
    }

    @Test("coinapp://project/{id} switches to Projects and pushes ProjectDetail")
    func project() {
        let r = router.resolve(url: "coinapp://project/proj-123", state: "signedIn")
        #expect(r.route == "ProjectDetail")
        #expect(r.tab == "projects")
        #expect(r.stack == ["Projects"])
        #expect(r.presentation == .push)
        #expect(r.tabBarVisible)
    }

    @Test("coinapp://tab/{name} switches tab; an unknown tab or id-less link is notFound")
    func tabs() {
        for (name, route) in [("recents", "Recents"), ("projects", "Projects"), ("favorites", "Favorites")] {
            let r = router.resolve(url: "coinapp://tab/\(name)", state: "signedOut")
            #expect(r.route == route)
            #expect(r.tab == name)
            #expect(r.stack.isEmpty)
        }
        for url in ["coinapp://tab/archive", "coinapp://coin", "coinapp://coin/1/2", "coinapp://nothing/1"] {
            let r = router.resolve(url: url, state: "signedIn")
            #expect(r.outcome == .notFound, "\(url)")
            #expect(r.route == "NotFound")
            #expect(r.problem?.code == .noMatch)
        }
    }
}

@Suite("Ordentus and story app acceptance")
struct OtherAppsAcceptanceTests {
    let router: Router
    init() throws { router = try Examples.router() }

    @Test("Ordentus: a share URL opens the matching tab")
    func ordentusShare() {
        let links: (ShareLinkQuery) -> LinkStatus = { query in
            .active(ShareLinkTarget(linkID: "ab", route: query.token == "todo" ? "Tasks/TodoDetail" : "Calendar/EventDetail",
                                    params: query.token == "todo" ? ["todoId": "t1"] : ["eventId": "e1"], expiresAt: Date(timeIntervalSince1970: 0)))
        }
        let event = router.resolve(url: "https://links.ordentus.example/s/event", state: "signedIn", links: links)
        #expect(event.route == "Calendar/EventDetail")
        #expect(event.tab == "calendar")
        #expect(event.stack == ["Calendar/Home"])
        let todo = router.resolve(url: "https://links.ordentus.example/s/todo", state: "signedIn", links: links)
        #expect(todo.tab == "tasks")
        let signedOut = router.resolve(url: "https://links.ordentus.example/s/todo", state: "signedOut", links: links)
        #expect(signedOut.outcome == .intercept)
        #expect(signedOut.route == "Onboarding/Credentials")
        #expect(signedOut.intercept?.continuation?.route == "Tasks/TodoDetail")
    }

    @Test("Ordentus hides the tab bar only for .large sheets and full-screen covers")
    func ordentusTabBar() {
        #expect(router.resolve(url: "ordentus://todos/new", state: "signedIn").tabBarVisible == true)        // .medium
        #expect(router.resolve(url: "ordentus://events/e1/edit", state: "signedIn").tabBarVisible == false)  // .large
        #expect(router.resolve(url: "ordentus://events/e1", state: "signedIn").tabBarVisible == true)        // push
    }

    @Test("COIN hides the tab bar for every modal")
    func coinTabBar() throws {
        let coin = try #require(router.manifest(app: "coin"))
        for presentation in Presentation.allCases where presentation.isModal {
            #expect(coin.tabBarHiddenFor.contains(presentation), "\(presentation)")
        }
    }

    @Test("story app: Home is the default tab; a modal from a link sits over Home")
    func storyDefault() throws {
        #expect(router.manifest(app: "story")?.defaultTab?.id == "home")
        let r = router.resolve(url: "storyapp://stories/new", state: nil)
        #expect(r.tab == "home")
        #expect(r.stack == ["Home/Root"])
    }
}
