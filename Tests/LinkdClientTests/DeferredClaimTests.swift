import Foundation
import LinkdClient
import LinkdTestSupport
import Testing

/// Deferred deep links through the client against the running daemon: the store button makes a claim code, the app
/// reads it as it would on first launch (Android: the Play install referrer of the store redirect; iOS: the claim
/// link the page offers to copy), and `claim(code:state:)` answers the link's resolution, once.
@Suite("LinkdClient claims deferred links from the running daemon")
struct DeferredClaimTests {
    /// One request as a browser sends it (the store redirect must not be followed to the store).
    static func browse(_ daemon: ClientDaemon, _ path: String, host: String, agent: String) async throws -> RawConnection.Response {
        let connection = try RawConnection(port: daemon.port)
        try await connection.send("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUser-Agent: \(agent)\r\nConnection: close\r\n\r\n")
        return try await connection.read()
    }

    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36"
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"

    /// Expects `claim` to fail as the server's uniform 404.
    static func expectRefused(_ client: LinkdClient, _ code: ClaimCode, _ context: String) async {
        do throws(LinkdClientError) {
            _ = try await client.claim(code: code, state: "signedOut")
            Issue.record("\(context): claimed")
        } catch {
            #expect(error.serverError?.status == 404 && error.serverError?.code == .notFound, "\(context): \(error)")
        }
    }

    @Test("Android: the store redirect's referrer → ClaimCode.fromInstallReferrer → claim answers the link's resolution once")
    func androidReferrer() async throws {
        let daemon = try await ClientDaemon.start()
        defer { daemon.stop() }
        let sharer = daemon.client(apiKey: try await daemon.clientKey(app: "ordentus"))
        let shareable = try #require(try SeedApp.all().first { $0.app == "ordentus" }?.shareables.first)
        let link = try await sharer.createShareLink(route: shareable.route, params: shareable.params)
        let host = try #require(link.url.host)
        let redirect = try await Self.browse(daemon, "/s/\(link.token)/install/android", host: host, agent: Self.android)
        #expect(redirect.status == 302)
        let location = try #require(redirect.header("Location").flatMap(URLComponents.init(string:)))
        #expect(location.host == "play.google.com")
        // What the Play Install Referrer API hands the app: the `referrer` parameter, decoded once.
        let referrer = try #require(location.queryItems?.first { $0.name == "referrer" }?.value)
        let code = try #require(ClaimCode.fromInstallReferrer("utm_source=google-play&" + referrer), "\(referrer)")

        let app = LinkdClient(baseURL: daemon.baseURL)
        let claimed = try await app.claim(code: code, state: "signedOut")
        let resolved = try await app.resolve(link.url, state: "signedOut")
        #expect(claimed == resolved, "the claim answers what resolving the share link answers")
        #expect(claimed.link?.id == link.id && claimed.outcome != .notFound)
        await Self.expectRefused(app, code, "a second claim")
        // Another code, claimed raw: the claim's JSON is whole in the client's type.
        let another = try await Self.browse(daemon, "/s/\(link.token)/install/android", host: host, agent: Self.android)
        let anotherReferrer = try #require(another.header("Location").flatMap(URLComponents.init(string:))?.queryItems?.first { $0.name == "referrer" }?.value)
        let anotherCode = try #require(ClaimCode.fromInstallReferrer(anotherReferrer))
        #expect(anotherCode != code)
        let raw = try await TestHTTP.send("POST", daemon.daemon.baseURL + "/v1/claims/\(anotherCode.value)", json: ["state": "signedOut"])
        #expect(raw.status == 200)
        #expect(try WireComparison.expectWhole(Resolution.self, raw.body, "POST /v1/claims/{code}") == resolved)
        await Self.expectRefused(app, try #require(ClaimCode("AAAAAAAAAAAAAAAAAAAAAA")), "an unknown code")
    }

    @Test("iOS: the claim page's link, pasted → ClaimCode.fromPasted → claim; a revoked link's claim is linkUnavailable")
    func iOSPaste() async throws {
        let daemon = try await ClientDaemon.start()
        defer { daemon.stop() }
        let sharer = daemon.client(apiKey: try await daemon.clientKey(app: "handz"))
        let flowID = UUID().uuidString.lowercased()
        let link = try await sharer.createShareLink(params: ["flowId": flowID], title: "Guard pass flow")
        let page = try await Self.browse(daemon, "/s/\(link.token)/install/ios", host: "links.handz.example", agent: Self.iPhone)
        #expect(page.status == 200, "\(page.statusLine)")
        let copied = try #require(page.text.firstMatch(of: /id="claim-link" href="([^"]+)"/).map { String($0.output.1) }, "\(page.text)")
        let code = try #require(ClaimCode.fromPasted(copied.replacingOccurrences(of: "&amp;", with: "&")), "\(copied)")

        let app = LinkdClient(baseURL: daemon.baseURL)
        let plan = try await app.claim(code: code, state: "signedOut").plan(for: "signedOut")
        #expect(plan.outcome == .route && plan.root?.route == "Auth/WelcomeGate")
        #expect(plan.pushed == [.init(route: "ShareLink/FlowView", params: ["flowId": flowID])])
        #expect(plan.closeReturnsTo == "Auth/WelcomeGate")
        await Self.expectRefused(app, code, "a second claim")

        // A code for a link revoked before the claim: the claim answers linkUnavailable.
        let second = try await Self.browse(daemon, "/s/\(link.token)/install/ios", host: "links.handz.example", agent: Self.iPhone)
        let secondLink = try #require(second.text.firstMatch(of: /id="claim-link" href="([^"]+)"/).map { String($0.output.1) })
        let secondCode = try #require(ClaimCode.fromPasted(secondLink))
        try await sharer.revokeShareLink(id: link.id)
        let gone = try await app.claim(code: secondCode, state: "free")
        #expect(gone.outcome == .linkUnavailable && gone.message == "This link is no longer available." && gone.cta == "Tab/Library")
    }
}
