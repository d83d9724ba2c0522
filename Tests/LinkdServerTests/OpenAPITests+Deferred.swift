import Foundation
import HTTPTypes
import LinkdTestSupport
import Testing

@testable import LinkdServer

// The operations of deferred deep links and analytics in the document check: their every documented
// status, answered by the live server.
extension OpenAPITests {
    /// The deferred-link and stats operations, on the first server (its budgets fresh). `token`/`id`: an active
    /// Handz link (Handz has an App Store id and no Android package).
    static func exerciseDeferred(_ check: Checker, api: API, client: String, admin: String, id: String, token: String) async throws {
        func expect(_ reply: Reply, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(reply.status == status, "\(reply.text.prefix(300))", sourceLocation: sourceLocation)
        }
        let install = "/s/{token}/install/{platform}"
        let page = try await check.call(.get, "/s/\(token)/install/ios", template: install)
        expect(page, 200)
        let code = try #require(ClaimCodeText.code(inClaimPage: page.text))
        let ordentus = try await api.call(.post, "/v1/links", key: admin, json: [
            "app": "ordentus", "route": "Calendar/EventDetail", "params": ["eventId": "openapi"],
        ])
        let ordentusToken = try #require(ordentus.string("token"))
        expect(try await check.call(.get, "/s/\(ordentusToken)/install/android", template: install), 302)
        expect(try await check.call(.get, "/s/\(token)/install/android", template: install), 302)  // no Play: the landing page
        expect(try await check.call(.get, "/s/AQAAAAEforged/install/ios", template: install), 404)
        expect(try await check.call(.get, "/static/claim.js"), 200)

        let claims = "/v1/claims/{code}"
        expect(try await check.call(.post, "/v1/claims/\(code)", template: claims, raw: "{", contentType: "application/json"), 400)
        expect(try await check.call(.post, "/v1/claims/\(code)", template: claims, raw: "state=free", contentType: "text/plain"), 415)
        let oversized = "{\"state\":\"" + String(repeating: "s", count: DeferredLinks.maxClaimBodyBytes) + "\"}"
        expect(try await check.call(.post, "/v1/claims/\(code)", template: claims, raw: oversized, contentType: "application/json"), 413)
        expect(try await check.call(.post, "/v1/claims/\(code)", template: claims, json: ["state": "nonexistent"]), 422)
        expect(try await check.call(.post, "/v1/claims/\(code)", template: claims, json: ["state": "free"]), 200)
        expect(try await check.call(.post, "/v1/claims/\(code)", template: claims, json: ["state": "free"]), 404)

        let linkStats = "/v1/links/{id}/stats", appStats = "/v1/apps/{app}/stats"
        expect(try await check.call(.get, "/v1/links/\(id)/stats", template: linkStats, key: client), 200)
        expect(try await check.call(.get, "/v1/links/\(id)/stats?from=2026-02-30", template: linkStats, key: client), 400)
        expect(try await check.call(.get, "/v1/links/\(String(repeating: "0", count: 32))/stats", template: linkStats, key: client), 404)
        expect(try await check.call(.get, "/v1/apps/handz/stats?top=3", template: appStats, key: client), 200)
        expect(try await check.call(.get, "/v1/apps/handz/stats?top=0", template: appStats, key: admin), 400)
        expect(try await check.call(.get, "/v1/apps/ordentus/stats", template: appStats, key: client), 404)
    }

    /// A claim while the store does not answer: 503 (and the code is not spent).
    static func exerciseDeferredWithoutStore(_ check: Checker) async throws {
        let reply = try await check.call(.post, "/v1/claims/\(String(repeating: "A", count: 22))", template: "/v1/claims/{code}")
        #expect(reply.status == 503)
        #expect(reply.errorCode == "store_unavailable")
    }

    /// The claim limit per address: 429 with Retry-After once the burst is spent; and the install redirect's 410.
    static func exerciseDeferredLimits(_ check: Checker, api: API) async throws {
        var statuses: [Int] = []
        for _ in 0..<20 where statuses.last != 429 {
            statuses.append(try await check.call(.post, "/v1/claims/\(String(repeating: "B", count: 22))", template: "/v1/claims/{code}").status)
        }
        #expect(statuses.last == 429, "\(statuses)")
        let created = try await api.call(.post, "/v1/links", key: api.adminKey, json: [
            "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()],
        ])
        let id = try #require(created.string("id")), token = try #require(created.string("token"))
        #expect(try await api.call(.delete, "/v1/links/\(id)", key: api.adminKey).status == 200)
        #expect(try await check.call(.get, "/s/\(token)/install/ios", template: "/s/{token}/install/{platform}").status == 410)
    }
}
