import Foundation
import LinkdClient
import LinkdTestSupport
import Testing

/// Every seed app's links resolved through `LinkdClient` against the real daemon on a real port, each answer checked
/// against the server's own bytes for the same request, and its `NavigationPlan` against the resolution.
@Suite("LinkdClient resolves the seed apps' links through the running daemon")
struct ResolveJourneyTests {
    /// The plan keeps the resolution's stack and target, in order, and places them as the presentation says.
    static func expectPlanFollows(_ resolution: Resolution, state: String, _ context: String) {
        let plan = resolution.plan(for: state)
        let stack = resolution.stack.map { NavigationPlan.Screen(route: $0, params: resolution.params) }
        let target = resolution.route.map { NavigationPlan.Screen(route: $0, params: resolution.params) }
        #expect(plan.tab == resolution.tab && plan.tabBarVisible == resolution.tabBarVisible, "\(context)")
        #expect(plan.closeReturnsTo == resolution.returnTo[state], "\(context)")
        #expect(plan.target == target, "\(context)")
        let laidOut = [plan.root].compactMap { $0 } + plan.pushed
        switch plan.step {
        case .push:
            #expect(laidOut == (stack + [target!]), "push: root + pushed is the stack then the target, \(context)")
            #expect(plan.presented == nil)
        case .root:
            #expect(plan.root == target && plan.pushed.isEmpty, "\(context)")
        case .present(let presentation):
            #expect(presentation.isModal && presentation == resolution.presentation, "\(context)")
            #expect(laidOut == stack && plan.presented == target, "a modal goes over the whole stack, \(context)")
        case .overlay:
            #expect(laidOut == stack && plan.presented == target, "\(context)")
        case .none:
            #expect(resolution.route == nil && plan.target == nil && laidOut == stack, "\(context)")
        }
        if resolution.outcome == .intercept {
            #expect(plan.resumeAfterSignIn == resolution.intercept?.continuation && plan.interceptReturnsTo == resolution.intercept?.returnTo)
        }
    }

    /// Resolves `url` in `state` through the client and through a raw request; the two must agree and the client's
    /// value must re-encode to the server's document.
    static func resolveBothWays(_ daemon: ClientDaemon, _ client: LinkdClient, _ url: String, state: String) async throws -> Resolution {
        let context = "\(url) as \(state)"
        let typed = try await client.resolve(try #require(URL(string: url), "\(url)"), state: state)
        let raw = try await daemon.rawResolve(url, state: state)
        #expect(raw.status == 200, "\(context)")
        let fromRaw = try WireComparison.expectWhole(Resolution.self, raw.body, context)
        #expect(typed == fromRaw, "the client's answer is the server's, \(context)")
        if case .other(let value) = typed.outcome { Issue.record("unknown outcome \(value) for \(context)") }
        if case .other(let value) = typed.presentation { Issue.record("unknown presentation \(value) for \(context)") }
        expectPlanFollows(typed, state: state, context)
        return typed
    }

    @Test("every URL pattern of every seed app, in each URL form and every state, and links that lead nowhere")
    func everySeedLink() async throws {
        let daemon = try await ClientDaemon.start()
        defer { daemon.stop() }
        let client = daemon.client()
        var outcomes: [String: Int] = [:]
        for app in try SeedApp.all() {
            for url in app.urls {
                for state in app.states {
                    let resolution = try await Self.resolveBothWays(daemon, client, url, state: state)
                    outcomes[resolution.outcome.rawValue, default: 0] += 1
                    if !url.contains("zz") && !url.contains("/s/") {
                        #expect(resolution.app == app.app, "\(url) belongs to \(app.app)")
                    }
                }
            }
        }
        // Every kind of answer came through the client.
        #expect(Set(outcomes.keys) == ["route", "intercept", "notFound", "linkUnavailable"], "\(outcomes)")
        #expect(outcomes.values.reduce(0, +) > 400, "\(outcomes)")
    }

    @Test("a share link of every shareable route of every seed app, made through the client, opens it in every state; revoked, it is linkUnavailable")
    func everyShareableRoute() async throws {
        let daemon = try await ClientDaemon.start()
        defer { daemon.stop() }
        for app in try SeedApp.all() {
            let client = daemon.client(apiKey: try await daemon.clientKey(app: app.app))
            if app.shareables.isEmpty {
                // The story app shares nothing (seed 003): a link is refused, typed.
                do throws(LinkdClientError) {
                    _ = try await client.createShareLink(route: "Home", params: [:])
                    Issue.record("\(app.app) made a share link")
                } catch {
                    #expect(error.serverError.map { (400..<500).contains($0.status) } == true, "\(error)")
                }
                #expect(app.app == "story", "only the story app shares nothing")
            }
            for shareable in app.shareables {
                let created = try await client.createShareLink(route: shareable.route, params: shareable.params, ttl: .seconds(3600), title: "t")
                #expect(created.app == app.app && created.url.absoluteString.contains("/s/\(created.token)"))
                #expect(abs(created.expiresAt.timeIntervalSinceNow - 3600) < 120)
                for state in app.states {
                    let resolution = try await Self.resolveBothWays(daemon, client, created.url.absoluteString, state: state)
                    #expect(resolution.link?.id == created.id && resolution.link?.isActive == true, "\(shareable.route) as \(state)")
                    #expect(resolution.link?.expiresAt == Int(created.expiresAt.timeIntervalSince1970))
                    if resolution.outcome == .route {
                        #expect(resolution.route == shareable.route && resolution.params == shareable.params)
                    }
                }
                let revoked = try await client.revokeShareLink(id: created.id)
                #expect(revoked.status == "revoked" && revoked.id == created.id && revoked.route == shareable.route)
                for state in app.states {
                    let resolution = try await Self.resolveBothWays(daemon, client, created.url.absoluteString, state: state)
                    #expect(resolution.outcome == .linkUnavailable, "\(shareable.route) revoked, as \(state)")
                    #expect(resolution.link?.status == "revoked" && resolution.message != nil)
                    let plan = resolution.plan(for: state)
                    #expect(plan.message == resolution.message && plan.callToAction == resolution.cta)
                }
            }
        }
    }

    @Test("the share-link inspector and a revocation through the client: the server's JSON whole in the typed value")
    func inspectorWireTypes() async throws {
        let daemon = try await ClientDaemon.start()
        defer { daemon.stop() }
        let key = try await daemon.clientKey(app: "handz")
        let client = daemon.client(apiKey: key)
        let flowID = UUID().uuidString.lowercased()
        // The created link's answer, raw, through the client's type.
        let rawCreated = try await TestHTTP.send("POST", daemon.daemon.baseURL + "/v1/links", bearer: key,
                                                 json: ["params": ["flowId": flowID], "owner": "u1", "title": "Guard pass flow"])
        #expect(rawCreated.status == 201)
        let created = try WireComparison.expectWhole(CreatedShareLink.self, rawCreated.body, "POST /v1/links")
        // The inspector, before and after a click, typed and raw.
        let page = try await TestHTTP.send("GET", daemon.daemon.baseURL + "/s/\(created.token)",
                                           headers: ["Host": "links.handz.example", "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"])
        #expect(page.status == 200)
        let viewed = try await client.shareLink(id: created.id)
        #expect(viewed.status == "active" && viewed.params == ["flowId": flowID] && viewed.owner == "u1" && viewed.title == "Guard pass flow")
        #expect(viewed.clicks == 1 && viewed.lastOpenedAt != nil && viewed.route == "ShareLink/FlowView")
        let rawViewed = try await TestHTTP.send("GET", daemon.daemon.baseURL + "/v1/links/\(created.id)", bearer: key)
        _ = try WireComparison.expectWhole(ShareLink.self, rawViewed.body, "GET /v1/links/{id}")
        #expect(try await client.revokeShareLink(id: created.id).status == "revoked")
        #expect(try await client.revokeShareLink(id: created.id).status == "revoked", "revoking again answers the link again")
        let rawRevoked = try await TestHTTP.send("GET", daemon.daemon.baseURL + "/v1/links/\(created.id)", bearer: key)
        _ = try WireComparison.expectWhole(ShareLink.self, rawRevoked.body, "a revoked link")
    }
}
