import Foundation
import LinkdClient
import Testing

/// The walkthrough of docs/client.md, step by step against the running daemon: Handz's share flow (seed 001 §7.2,
/// §7.3, §8.3) as an iOS app's `onOpenURL` → `client.resolve` → `NavigationPlan` sees it, signed out and signed in.
@Suite("docs/client.md: the Handz share flow through LinkdClient")
struct HandzShareFlowTests {
    @Test("§7.2/§7.3 signed out: no tabs, the Welcome Gate under the shared flow, closing returns to it; signed in: the Library tab, closing returns to its root, import leads to FlowDetail")
    func shareFlowPlans() async throws {
        let daemon = try await ClientDaemon.start()
        defer { daemon.stop() }
        // The sharer's app makes the link ("share this flow"): no route, Handz's manifest shares ShareLink/FlowView.
        let sharer = daemon.client(apiKey: try await daemon.clientKey(app: "handz"))
        let flowID = UUID().uuidString.lowercased()
        let link = try await sharer.createShareLink(params: ["flowId": flowID], title: "Guard pass flow")
        #expect(link.url.host == "links.handz.example")
        let shortURL = try #require(link.shortURL)
        #expect(shortURL.host == "links.handz.example" && shortURL.lastPathComponent.count == 11)
        #expect(try await sharer.shareLink(id: link.id).shortURL == shortURL, "the inspector's view carries it too")
        #expect(link.pathURL == nil)
        // A printed poster's link: a custom path, answered and resolved like the token's URL.
        let poster = try await sharer.createShareLink(params: ["flowId": flowID], path: "/guard-pass-\(flowID.prefix(8))")
        let pathURL = try #require(poster.pathURL)
        #expect(pathURL.absoluteString == "https://links.handz.example/guard-pass-\(flowID.prefix(8))")
        #expect(try await sharer.shareLink(id: poster.id).pathURL == pathURL)
        do {
            _ = try await sharer.createShareLink(params: ["flowId": flowID], path: pathURL.path)
            Issue.record("a held path was given twice")
        } catch {
            #expect(error.serverError?.code == .pathTaken && error.serverError?.status == 409, "\(error)")
        }

        // The receiver's app: onOpenURL → resolve → plan. Resolving needs no key.
        let receiver = LinkdClient(baseURL: daemon.baseURL)

        let signedOut = try await receiver.resolve(link.url, state: "signedOut").plan(for: "signedOut")
        #expect(try await receiver.resolve(shortURL, state: "signedOut").plan(for: "signedOut") == signedOut,
                "the short URL resolves as the token's")
        #expect(try await receiver.resolve(pathURL, state: "signedOut").plan(for: "signedOut") == signedOut,
                "the custom path resolves as the token's")
        #expect(signedOut.outcome == .route)
        #expect(signedOut.tab == nil && signedOut.tabBarVisible == false, "signed out has no tab shell")
        #expect(signedOut.root == .init(route: "Auth/WelcomeGate", params: ["flowId": flowID]))
        #expect(signedOut.pushed == [.init(route: "ShareLink/FlowView", params: ["flowId": flowID])])
        #expect(signedOut.step == .push && signedOut.presented == nil)
        #expect(signedOut.closeReturnsTo == "Auth/WelcomeGate", "§7.3: closing returns to the Welcome Gate, not a blank screen")
        #expect(signedOut.afterActions["import"] == .init(route: "Library/FlowDetail", params: ["flowId": flowID]))

        let signedIn = try await receiver.resolve(link.url, state: "free").plan(for: "free")
        #expect(signedIn.tab == "library" && signedIn.tabBarVisible == true)
        #expect(signedIn.root?.route == "Tab/Library")
        #expect(signedIn.pushed.map(\.route) == ["ShareLink/FlowView"])
        #expect(signedIn.closeReturnsTo == "Tab/Library", "§7.3: closing returns to the Library tab root")
        #expect(signedIn.afterActions["import"] == .init(route: "Library/FlowDetail", params: ["flowId": flowID]), "§7.3 after import")

        // §8.3: revoked, the same call answers the unavailable screen with the CTA of each state.
        try await sharer.revokeShareLink(id: link.id)
        let gone = try await receiver.resolve(link.url, state: "signedOut").plan(for: "signedOut")
        #expect(gone.outcome == .linkUnavailable && gone.target?.route == "ShareLink/Unavailable")
        #expect(gone.message == "This link is no longer available." && gone.callToAction == "Auth/WelcomeGate")
        let goneSignedIn = try await receiver.resolve(link.url, state: "pro").plan(for: "pro")
        #expect(goneSignedIn.callToAction == "Tab/Library")
    }

    @Test("§4.3 intercepts (docs/design.md): a flow's deep link signed out shows the Welcome Gate and keeps the flow; after sign-in the client resumes it")
    func resumeAfterSignIn() async throws {
        let daemon = try await ClientDaemon.start()
        defer { daemon.stop() }
        let client = LinkdClient(baseURL: daemon.baseURL)
        let flowID = UUID().uuidString.lowercased()
        let url = try #require(URL(string: "https://links.handz.example/flows/\(flowID)"))
        let gate = try await client.resolve(url, state: "signedOut").plan(for: "signedOut")
        #expect(gate.outcome == .intercept && gate.target?.route == "Auth/WelcomeGate")
        let continuation = try #require(gate.resumeAfterSignIn)
        #expect(continuation.route == "Library/FlowDetail" && continuation.params == ["flowId": flowID])
        // Signed in now: the same link, resolved for the new state.
        let resumed = try await client.resume(continuation, state: "free").plan(for: "free")
        #expect(resumed.outcome == .route && resumed.tab == "library")
        #expect([resumed.root?.route].compactMap { $0 } + resumed.pushed.map(\.route) == ["Tab/Library", "Library/Home", "Library/FlowDetail"])
        #expect(resumed.closeReturnsTo == "Library/Home")
    }
}
