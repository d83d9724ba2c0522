import Foundation
import HTTPTypes
import HummingbirdTesting
import LinkRouter
import LinkdTestSupport
import Testing

@testable import LinkdHTTP
@testable import LinkdServer

/// The seeds' journeys as their people take them, through the running daemon on a real port with a real HTTP client:
/// a client key makes the share link through the API, each state resolves it, an admin revokes it, a browser follows
/// it. Each test's name quotes the seed section it checks (the apps' navigation specs the manifests in `examples/`
/// were written from, docs/design.md: 000 Ordentus, 001 Handz, 003 the story app, 004 COIN).
@Suite("Seed journeys through the running daemon", .serialized)
struct SeedJourneyTests {
    /// A resolution as the API answers it, read into the fields the seeds speak of.
    struct Resolved {
        let json: [String: Any]
        var outcome: String? { json["outcome"] as? String }
        var route: String? { json["route"] as? String }
        var params: [String: String] { json["params"] as? [String: String] ?? [:] }
        var tab: String? { json["tab"] as? String }
        var presentation: String? { json["presentation"] as? String }
        var tabBarVisible: Bool? { json["tabBarVisible"] as? Bool }
        var stack: [String] { json["stack"] as? [String] ?? [] }
        var returnTo: [String: String] { json["returnTo"] as? [String: String] ?? [:] }
        var message: String? { json["message"] as? String }
        var cta: String? { json["cta"] as? String }
        var linkStatus: String? { (json["link"] as? [String: Any])?["status"] as? String }
        var intercept: [String: Any]? { json["intercept"] as? [String: Any] }
        var continuation: [String: Any]? { intercept?["continuation"] as? [String: Any] }
        func action(_ name: String) -> (route: String?, params: [String: String])? {
            guard let action = (json["afterActions"] as? [String: Any])?[name] as? [String: Any] else { return nil }
            return (action["route"] as? String, action["params"] as? [String: String] ?? [:])
        }
    }

    static func resolve(_ api: API, _ url: String, state: String) async throws -> Resolved {
        Resolved(json: try await api.resolve(url, state: state))
    }

    /// One request as a browser sends it, on the API's server's port (`WebPagesTests.rawRequest`, through
    /// Hummingbird's router).
    static func send(_ api: API, _ path: String, host: String, agent: String = UserAgent.desktop, method: String = "GET") async throws -> RawConnection.Response {
        try await WebPagesTests.rawRequest(method, port: try #require(api.client.port), path, host: host, agent: agent, close: true)
    }

    static let handzStates = ["signedOut", "guest", "free", "pro", "trial"]

    // MARK: Handz (seed 001)

    @Test("001 §7.2/§7.3: a client shares 'this flow' through the API; every state opens ShareLink/FlowView of that flow, closes as §7.3 says, and import leads to Library/FlowDetail")
    func handzShareFlow() async throws {
        try await withAPI { api in
            let key = try await api.clientKey(app: "handz")
            let flowID = UUID().uuidString.lowercased()
            // What the app sends: the flow, no route (the manifest's share.route is ShareLink/FlowView).
            let created = try await api.call(.post, "/v1/links", key: key, json: ["params": ["flowId": flowID], "owner": "u1", "title": "Guard pass flow"])
            #expect(created.status == 201, "\(created.text)")
            let url = try #require(created.string("url"))
            #expect(url.hasPrefix("https://links.handz.example/s/"))

            // §7.3: "closing returns to Welcome Gate (signed out) / Library tab root (signed in)"; guests go to their sandbox.
            let closes = ["signedOut": "Auth/WelcomeGate", "guest": "Library/FlowBuilderSandbox", "free": "Tab/Library", "pro": "Tab/Library", "trial": "Tab/Library"]
            for state in Self.handzStates {
                let r = try await Self.resolve(api, url, state: state)
                let signedIn = ["free", "pro", "trial"].contains(state)
                #expect(r.outcome == "route", "\(state)")
                #expect(r.route == "ShareLink/FlowView", "§7.2 view-only flow for \(state)")
                #expect(r.params == ["flowId": flowID], "the flow that was shared, for \(state)")
                #expect(r.presentation == "push")
                #expect(r.tab == (signedIn ? "library" : nil), "\(state)")
                #expect(r.tabBarVisible == signedIn, "\(state)")
                #expect(r.stack == [signedIn ? "Tab/Library" : closes[state]!], "\(state)")
                #expect(r.returnTo == closes, "§7.3 for \(state)")
                #expect(r.linkStatus == "active")
                // §7.3 "after import success navigate to the imported flow's FlowDetail in Library".
                #expect(r.action("import")?.route == "Library/FlowDetail")
                #expect(r.action("import")?.params == ["flowId": flowID])
            }

            // The old trap: sharing FlowDetail is refused, saying what Handz shares instead.
            let detail = try await api.call(.post, "/v1/links", key: key, json: ["route": "Library/FlowDetail", "params": ["flowId": flowID]])
            #expect(detail.status == 422 && detail.errorCode == "not_shareable")
            #expect(detail.text.contains("handz shares through ShareLink/FlowView"))
            // A flow link without its flow is refused.
            let noFlow = try await api.call(.post, "/v1/links", key: key, json: ["route": "ShareLink/FlowView"])
            #expect(noFlow.status == 422 && noFlow.errorCode == "bad_params")
            #expect(noFlow.text.contains("needs param 'flowId'"))
        }
    }

    @Test("001 §8.3: a revoked flow link shows \"This link is no longer available.\" with Go to Library (signed in) or Welcome Gate (signed out), in the app and in the browser")
    func handzRevokedLink() async throws {
        try await withAPI { api in
            let key = try await api.clientKey(app: "handz")
            let link = try await api.createHandzLink(key: key)
            let id = try #require(link["id"] as? String)
            let url = try #require(link["url"] as? String)
            let token = try #require(link["token"] as? String)
            #expect(try await api.call(.delete, "/v1/links/\(id)", key: key).status == 200)
            let ctas = ["signedOut": "Auth/WelcomeGate", "guest": "Library/FlowBuilderSandbox", "free": "Tab/Library", "pro": "Tab/Library", "trial": "Tab/Library"]
            for state in Self.handzStates {
                let r = try await Self.resolve(api, url, state: state)
                #expect(r.outcome == "linkUnavailable", "\(state)")
                #expect(r.route == "ShareLink/Unavailable")
                #expect(r.message == "This link is no longer available.")
                #expect(r.cta == ctas[state], "§8.3 CTA for \(state)")
                #expect(r.linkStatus == "revoked")
            }
            let page = try await Self.send(api, "/s/\(token)", host: "links.handz.example", agent: UserAgent.iPhone)
            #expect(page.status == 410)
            #expect(page.text.contains("This link is no longer available."))
            #expect(page.text.contains("id=\"cta\" href=\"https://links.handz.example/welcome\">Open Handz</a>"))
        }
    }

    @Test("001 §7.2: the landing page of a flow link shows that flow's preview from the origin")
    func handzPreviewKnowsTheFlow() async throws {
        let origin = try LoopbackOrigin()
        defer { origin.stop() }
        let manifests = try WebPagesTests.manifests(moving: "handz", originTo: "http://127.0.0.1:\(origin.port)", previewPath: "/items/echo/:flowId")
        try await withAPI({ $0.links.manifests = manifests }) { api in
            let key = try await api.clientKey(app: "handz")
            let flowID = UUID().uuidString.lowercased()
            let created = try await api.call(.post, "/v1/links", key: key, json: ["params": ["flowId": flowID]])
            let token = try #require(created.string("token"))
            let page = try await Self.send(api, "/s/\(token)", host: "links.handz.example", agent: UserAgent.desktop)
            #expect(page.status == 200)
            #expect(page.text.contains("<h1>Flow \(flowID)</h1>"), "the origin was asked for the shared flow")
        }
    }

    @Test("001 §4.3/§8.2/§7.1: deep links per state — FlowDetail in Library, the Welcome Gate with a continuation, the paywall and its return")
    func handzDeepLinks() async throws {
        try await withAPI { api in
            let flowID = UUID().uuidString.lowercased()
            let flow = "https://links.handz.example/flows/\(flowID)"
            let free = try await Self.resolve(api, flow, state: "free")
            #expect(free.route == "Library/FlowDetail" && free.tab == "library" && free.tabBarVisible == true)
            #expect(free.stack == ["Tab/Library", "Library/Home"])
            #expect(free.returnTo["free"] == "Library/Home")
            for state in ["signedOut", "guest"] {
                let r = try await Self.resolve(api, flow, state: state)
                #expect(r.outcome == "intercept" && r.route == "Auth/WelcomeGate", "\(state)")
                #expect(r.continuation?["route"] as? String == "Library/FlowDetail")
                #expect(r.continuation?["params"] as? [String: String] == ["flowId": flowID])
            }
            // §7.1 "links that open Paywall/Upgrade directly"; §8.2 "Returning from paywall returns to Practice/Home".
            let paywall = try await Self.resolve(api, "handz://upgrade", state: "free")
            #expect(paywall.route == "Paywall/Upgrade" && paywall.presentation == "fullScreen" && paywall.tabBarVisible == false)
            #expect(paywall.returnTo["free"] == "Practice/Home")
            let pro = try await Self.resolve(api, "handz://upgrade", state: "pro")
            #expect(pro.outcome == "intercept" && pro.route == "Settings/Subscription" && pro.continuation == nil)
            // §7.1 "Internal App Links: routes opened from notifications (maintenance reminders)".
            let maintenance = try await Self.resolve(api, "handz://practice/maintenance", state: "trial")
            #expect(maintenance.route == "Practice/Maintenance" && maintenance.tab == "practice")
            #expect(maintenance.stack == ["Tab/Practice", "Practice/Home"])
        }
    }

    // MARK: COIN (seed 004)

    @Test("004 §5.3/§10.2: a COIN's share link and coinapp://coin/{coinId} open Canvas full-screen over Recents; closing returns to Recents; revoked shows NotFound")
    func coinCanvas() async throws {
        try await withAPI { api in
            let key = try await api.clientKey(app: "coin")
            let created = try await api.call(.post, "/v1/links", key: key, json: ["route": "Canvas", "params": ["coinId": "c-42"], "title": "Quarterly COIN"])
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(created.string("id"))
            let url = try #require(created.string("url"))
            #expect(url.hasPrefix("https://links.coin.example/s/"))
            for link in [url, "coinapp://coin/c-42", "https://links.coin.example/coin/c-42"] {
                for state in ["signedOut", "signedIn"] {
                    let r = try await Self.resolve(api, link, state: state)
                    #expect(r.route == "Canvas", "\(link) \(state)")
                    #expect(r.params == ["coinId": "c-42"])
                    #expect(r.presentation == "fullScreen")
                    #expect(r.tabBarVisible == false, "§2.3 hidden when Canvas is presented")
                    #expect(r.tab == "recents", "§5.3 cold start: Recents underneath")
                    #expect(r.stack == ["Recents"])
                    #expect(r.returnTo[state] == "Recents", "§5.3 User can close modal → Returns to previous screen")
                }
            }
            // §10.2 coinapp://project/{projectId}: Projects tab, ProjectDetail pushed.
            let project = try await Self.resolve(api, "coinapp://project/proj-123", state: "signedIn")
            #expect(project.route == "ProjectDetail" && project.tab == "projects" && project.stack == ["Projects"] && project.tabBarVisible == true)
            #expect(try await api.call(.delete, "/v1/links/\(id)", key: key).status == 200)
            let revoked = try await Self.resolve(api, url, state: "signedIn")
            #expect(revoked.outcome == "linkUnavailable" && revoked.route == "NotFound" && revoked.presentation == "alert")
            #expect(revoked.message == "This COIN is no longer available.")
            #expect(revoked.cta == "Recents")
        }
    }

    // MARK: Ordentus (seed 000)

    @Test("000 DEEP LINK \"A share URL or .ics file opens the matching tab\"; SESSION GONE → Credentials, the target kept")
    func ordentusShare() async throws {
        try await withAPI { api in
            let key = try await api.clientKey(app: "ordentus")
            let event = try await api.call(.post, "/v1/links", key: key, json: ["route": "Calendar/EventDetail", "params": ["eventId": "standup"]])
            let todo = try await api.call(.post, "/v1/links", key: key, json: ["route": "Tasks/TodoDetail", "params": ["todoId": "t-1"]])
            let eventURL = try #require(event.string("url")), todoURL = try #require(todo.string("url"))
            // Ordentus shares several kinds of screen: a link must name its route.
            let unnamed = try await api.call(.post, "/v1/links", key: key, json: ["params": ["eventId": "standup"]])
            #expect(unnamed.status == 422 && unnamed.errorCode == "unprocessable")
            #expect(unnamed.text.contains("route is required: ordentus's share.route Share/Home is not shareable"))
            let e = try await Self.resolve(api, eventURL, state: "signedIn")
            #expect(e.route == "Calendar/EventDetail" && e.tab == "calendar" && e.stack == ["Calendar/Home"] && e.tabBarVisible == true)
            let t = try await Self.resolve(api, todoURL, state: "signedIn")
            #expect(t.route == "Tasks/TodoDetail" && t.tab == "tasks" && t.stack == ["Tasks/Home"])
            let out = try await Self.resolve(api, eventURL, state: "signedOut")
            #expect(out.outcome == "intercept" && out.route == "Onboarding/Credentials")
            #expect(out.continuation?["route"] as? String == "Calendar/EventDetail")
            #expect(out.continuation?["params"] as? [String: String] == ["eventId": "standup"])
            // ".large = … share-link inspector … Tab bar hides only here"; ".medium = … share-link create".
            let inspector = try await Self.resolve(api, "https://links.ordentus.example/share/links/abc", state: "signedIn")
            #expect(inspector.route == "Share/LinkInspector" && inspector.presentation == "sheet.large" && inspector.tabBarVisible == false)
            let create = try await Self.resolve(api, "https://links.ordentus.example/share/new", state: "signedIn")
            #expect(create.route == "Share/CreateLink" && create.presentation == "sheet.medium" && create.tabBarVisible == true)
        }
    }

    // MARK: The story app (seed 003)

    @Test("003 \"the app SHALL use a TabView as the root container\": Home is the default tab, a hero link pushes over it; the story app shares nothing")
    func storyLinks() async throws {
        try await withAPI { api in
            let hero = try await Self.resolve(api, "storyapp://heroes/3f2504e0-4f89-11d3-9a0c-0305e82c3301", state: "reader")
            #expect(hero.route == "Home/HeroDetail" && hero.tab == "home" && hero.stack == ["Home/Root"] && hero.tabBarVisible == true)
            let generate = try await Self.resolve(api, "https://links.story.example/stories/new", state: "reader")
            #expect(generate.route == "Home/StoryGeneration" && generate.presentation == "sheet.large" && generate.tabBarVisible == false)
            let key = try await api.clientKey(app: "story")
            let share = try await api.call(.post, "/v1/links", key: key, json: ["route": "Library/StoryDetail", "params": ["storyId": "3f2504e0-4f89-11d3-9a0c-0305e82c3301"]])
            #expect(share.status == 422 && share.errorCode == "not_shareable")
        }
    }

    // MARK: Pages on app links

    @Test("Every app-link URL has a page: a browser on an app link gets the app's landing page; a path the app does not resolve its HTML 404; the API keeps JSON")
    func appLinkPages() async throws {
        try await withAPI { api in
            let flowID = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
            for (agent, open) in [(UserAgent.iPhone, "handz://flows/\(flowID)"), (UserAgent.desktop, "https://handz.example/get-the-app")] {
                let page = try await Self.send(api, "/flows/\(flowID)", host: "links.handz.example", agent: agent)
                #expect(page.status == 200)
                #expect(page.header("content-type") == "text/html; charset=utf-8")
                #expect(page.header("content-security-policy")?.contains("default-src 'none'") == true)
                #expect(page.header("cache-control") == "no-store")
                #expect(page.text.contains("<h1>This link opens in Handz</h1>"))
                #expect(page.text.contains("id=\"open-in-app\" href=\"\(open)\">Open in Handz</a>"))
                #expect(page.text.contains("id=\"app-store\" href=\"https://apps.apple.com/app/id6470000001\""))
                #expect(page.text.contains("<meta name=\"apple-itunes-app\" content=\"app-id=6470000001, app-argument=https://links.handz.example/flows/\(flowID)\">"))
                #expect(page.text.contains("<meta property=\"og:url\" content=\"https://links.handz.example/flows/\(flowID)\">"))
                #expect(!page.text.contains("<script"))
            }
            // Signed-in-only paths resolve too (the app intercepts them): a page, not a 404.
            #expect(try await Self.send(api, "/settings/privacy", host: "links.handz.example").status == 200)
            // Every pattern of every app with hosts gets its landing page.
            for manifest in try ManifestLoader.load(paths: exampleManifests) where !manifest.hosts.isEmpty {
                for path in samplePaths(manifest) where !path.hasPrefix("/s/") {
                    let page = try await Self.send(api, path, host: manifest.hosts[0])
                    #expect(page.status == 200, "\(manifest.app) \(path): \(page.status)")
                    #expect(page.text.contains("Open in \(manifest.displayName)</a>"), "\(manifest.app) \(path)")
                }
            }
            let counted = try await ServerMetricsTests.samples(api)
            #expect((counted[#"linkd_http_requests_total{method="GET",route="/{app link}",status="200"}"#] ?? 0) >= 3, "app-link pages are counted under their own label")
            // A path no route matches: the app's HTML 404, escaped.
            let missing = try await Self.send(api, "/nothing/<b>here", host: "links.handz.example")
            #expect(missing.status == 404)
            #expect(missing.header("content-type") == "text/html; charset=utf-8")
            #expect(missing.text.contains("There is no Handz page at this address."))
            #expect(missing.text.contains("<title>Page not found · Handz</title>"))
            #expect(!missing.text.contains("<b>"))
            let curl = try ExternalTool.path("curl", install: "apt-get install curl")
            let head = String(decoding: try ExternalTool.run(curl, ["-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "-I",
                "-H", "Host: links.handz.example", "http://127.0.0.1:\(try #require(api.client.port))/flows/\(flowID)"]), as: UTF8.self)
            #expect(head == "200 0", "HEAD answers as GET does, without the body")
            // The API keeps its JSON answers, on every host; another host keeps the JSON 404.
            let api404 = try await Self.send(api, "/v1/nothing", host: "links.handz.example")
            #expect(api404.status == 404 && api404.errorCode == "not_found")
            let foreign = try await Self.send(api, "/flows/\(flowID)", host: "evil.example")
            #expect(foreign.status == 404 && foreign.errorCode == "not_found")
            #expect(try await Self.send(api, "/flows/\(flowID)", host: "links.handz.example", method: "POST").errorCode == "not_found")
        }
    }

    @Test("App-link pages are charged to the client's rate-limit bucket: a client that repeats itself gets 429 with Retry-After")
    func appLinkPagesAreRateLimited() async throws {
        try await withAPI({ $0.limits.rateLimitPerSecond = 0.001; $0.limits.rateLimitBurst = 3 }) { api in
            var statuses: [Int] = []
            for index in 0..<5 {
                statuses.append(try await Self.send(api, "/flows/3f2504e0-4f89-11d3-9a0c-03\(10 + index)e82c3301", host: "links.handz.example").status)
            }
            #expect(statuses == [200, 200, 200, 429, 429])
            let refused = try await Self.send(api, "/no/such/page", host: "links.handz.example")
            #expect(refused.status == 429 && refused.errorCode == "rate_limited")
            #expect(refused.header("retry-after") != nil)
        }
    }
}

extension RawConnection.Response {
    /// `error.code` of a JSON error body.
    var errorCode: String? {
        let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        return (json?["error"] as? [String: Any])?["code"] as? String
    }
}
