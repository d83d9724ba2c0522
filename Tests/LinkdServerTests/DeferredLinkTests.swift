import Foundation
import HTTPTypes
import LinkStore
import LinkdTestSupport
import Testing
import TokenSigning

@testable import LinkdServer

/// Deferred deep links against the live server on a real port: the landing page's store buttons, the store
/// redirects with claim codes (Android's install referrer, iOS's copy page), claims once and only once, revoked
/// links, expiry, and the limits on making and claiming codes — on SQLite and PostgreSQL.
@Suite("Deferred deep links", .serialized)
struct DeferredLinkTests {
    /// An Ordentus link (Android package `com.ordentus.app`, no App Store id) made with the admin key.
    static func ordentusLink(_ api: API, event: String = "standup") async throws -> (id: String, token: String, url: String) {
        let reply = try await api.call(.post, "/v1/links", key: api.adminKey, json: [
            "app": "ordentus", "route": "Calendar/EventDetail", "params": ["eventId": event], "title": "Team standup",
        ])
        guard reply.status == 201, let id = reply.string("id"), let token = reply.string("token"), let url = reply.string("url") else {
            throw HarnessError("cannot create a link: \(reply.status) \(reply.text)")
        }
        return (id, token, url)
    }

    /// The JSON of a body, for comparing documents whatever their key order.
    static func object(_ text: String) -> NSDictionary? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? NSDictionary
    }

    @Test("Android: the store button goes through linkd, Play gets the referrer, the claim answers once as /v1/resolve would", arguments: StoreKind.allCases)
    func androidReferrerFlow(store: StoreKind) async throws {
        try await withAPI(on: store, { $0.store.clickFlushSeconds = 0.1 }) { api in
            let link = try await Self.ordentusLink(api)
            let landing = try await api.call(.get, "/s/\(link.token)", headers: [.userAgent: UserAgent.android])
            #expect(landing.status == 200)
            let install = "https://links.ordentus.example/s/\(link.token)/install/android"
            #expect(landing.text.contains("id=\"google-play\" href=\"\(install)\""))
            // The intent link's fallback (the app is not installed) is the same store redirect.
            #expect(landing.text.contains("S.browser_fallback_url=\(install.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))!);end"))

            let redirect = try await api.call(.get, "/s/\(link.token)/install/android", headers: [.userAgent: UserAgent.android])
            #expect(redirect.status == 302)
            #expect(redirect.headers[.cacheControl] == "no-store")
            let location = try #require(redirect.headers[.location])
            #expect(location.hasPrefix("https://play.google.com/store/apps/details?id=com.ordentus.app&referrer=linkd_claim%3D"))
            let code = try #require(ClaimCodeText.code(inPlayRedirect: location))
            #expect(code.count == 22, "128 random bits as base64url")

            // Two redirects, two different codes.
            let again = try await api.call(.get, "/s/\(link.token)/install/android", headers: [.userAgent: UserAgent.android])
            #expect(ClaimCodeText.code(inPlayRedirect: again.headers[.location]) != code)

            let claimed = try await api.call(.post, "/v1/claims/\(code)", json: ["state": "signedOut"])
            #expect(claimed.status == 200)
            let resolved = try await api.call(.post, "/v1/resolve", json: ["url": link.url, "state": "signedOut"])
            #expect(Self.object(claimed.text) == Self.object(resolved.text), "the claim answers exactly what /v1/resolve answers")
            #expect(claimed.json["outcome"] as? String == "intercept", "signed out, Ordentus's event detail is intercepted")
            let signedIn = try await api.call(.post, "/v1/claims/\(ClaimCodeText.code(inPlayRedirect: again.headers[.location])!)")
            #expect(signedIn.status == 200)
            #expect(signedIn.json["route"] as? String == "Onboarding/Welcome" || signedIn.json["outcome"] as? String == "intercept",
                    "no state: the app's unauthenticated state, as /v1/resolve")

            // Claimed, unknown, malformed and expired codes: one answer.
            let second = try await api.call(.post, "/v1/claims/\(code)", json: ["state": "signedIn"])
            let unknown = try await api.call(.post, "/v1/claims/\(String(repeating: "A", count: 22))", json: ["state": "signedIn"])
            let malformed = try await api.call(.post, "/v1/claims/not-a-code", json: ["state": "signedIn"])
            let expiredCode = ClaimCode.generate()
            let past = Date().addingTimeInterval(-10)
            #expect(try await api.store.insertClaim(ClaimRecord(
                lookupKey: Data(expiredCode.lookupKey), linkID: link.id, app: "ordentus", platform: "android",
                sealedToken: Data(expiredCode.seal(Array(link.token.utf8))), created: past.addingTimeInterval(-60), expires: past),
                maxPerLink: 100))
            let expired = try await api.call(.post, "/v1/claims/\(expiredCode.text)", json: ["state": "signedIn"])
            for refused in [second, unknown, malformed, expired] {
                #expect(refused.status == 404)
                #expect(refused.text == second.text, "no oracle: \(refused.text)")
                #expect(refused.errorCode == "not_found")
            }
            // The sweep counts the expired code on its link.
            var stats: Reply?
            for _ in 0..<100 {
                stats = try await api.call(.get, "/v1/links/\(link.id)/stats", key: api.adminKey)
                if let claims = stats?.json["claims"] as? [String: Any], claims["expired"] as? Int == 1, claims["claimed"] as? Int == 2 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let claims = try #require(stats?.json["claims"] as? [String: Any])
            #expect(claims["made"] as? Int == 2)
            #expect(claims["claimed"] as? Int == 2)
            #expect(claims["expired"] as? Int == 1)
            #expect(stats?.json["installs"] as? Int == 2)
        }
    }

    @Test("iOS: the claim page offers the link to copy and goes on to the App Store; bad requests are 4xx", arguments: StoreKind.allCases)
    func iosClaimPage(store: StoreKind) async throws {
        try await withAPI(on: store) { api in
            let key = try await api.clientKey(app: "handz")
            let link = try await api.createHandzLink(key: key)
            let token = try #require(link["token"] as? String)
            let url = try #require(link["url"] as? String)
            let landing = try await api.call(.get, "/s/\(token)", headers: [.userAgent: UserAgent.iPhone])
            #expect(landing.text.contains("id=\"app-store\" href=\"https://links.handz.example/s/\(token)/install/ios\""))

            let page = try await api.call(.get, "/s/\(token)/install/ios", headers: [.userAgent: UserAgent.iPhone])
            #expect(page.status == 200)
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let policy = try #require(page.headers[HTTPField.Name("Content-Security-Policy")!])
            #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"))
            #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            #expect(page.text.contains("<a id=\"claim-link\" href=\"\(url)#linkd_claim="))
            #expect(page.text.contains("id=\"app-store\" href=\"https://apps.apple.com/app/id6470000001\""))
            #expect(page.text.contains("<script src=\"/static/claim.js\" defer></script>"))
            let code = try #require(ClaimCodeText.code(inClaimPage: page.text))

            let script = try await api.call(.get, "/static/claim.js")
            #expect(script.status == 200)
            #expect(script.headers[.contentType] == "application/javascript; charset=utf-8")
            #expect(script.text.contains("navigator.clipboard"))

            let claimed = try await api.call(.post, "/v1/claims/\(code)", json: ["state": "free"])
            let resolved = try await api.call(.post, "/v1/resolve", json: ["url": url, "state": "free"])
            #expect(claimed.status == 200)
            #expect(Self.object(claimed.text) == Self.object(resolved.text))
            #expect(claimed.json["route"] as? String == "ShareLink/FlowView")

            // Handz has no Android package: no store to send anyone to, so the link's landing page
            // (every example app and platform: ShortLinkTests.storeRedirectsOfEveryApp).
            let noStore = try await api.call(.get, "/s/\(token)/install/android", headers: [.userAgent: UserAgent.android])
            #expect(noStore.status == 302)
            #expect(noStore.headers[.location] == url)
            #expect(try await api.call(.get, "/s/\(token)/install/windows").status == 404)
            #expect(try await api.call(.get, "/s/AQAAAAEforged/install/ios").status == 404)
            // Bad claim bodies: 4xx JSON, and the code is not spent by them.
            let again = try await api.call(.get, "/s/\(token)/install/ios", headers: [.userAgent: UserAgent.iPhone])
            let fresh = try #require(ClaimCodeText.code(inClaimPage: again.text))
            #expect(try await api.call(.post, "/v1/claims/\(fresh)", raw: "{", contentType: "application/json").errorCode == "bad_request")
            #expect(try await api.call(.post, "/v1/claims/\(fresh)", json: ["state": "free", "extra": 1]).errorCode == "bad_request")
            #expect(try await api.call(.post, "/v1/claims/\(fresh)", json: ["state": String(repeating: "s", count: 65)]).status == 400)
            #expect(try await api.call(.post, "/v1/claims/\(fresh)", raw: "state=free", contentType: "text/plain").status == 415)
            #expect(try await api.call(.post, "/v1/claims/\(fresh)", raw: String(repeating: " ", count: 2_000), contentType: "application/json").status == 413)
            #expect(try await api.call(.post, "/v1/claims/\(fresh)").status == 200, "the bad requests spent nothing")
        }
    }

    @Test("a revoked link makes no code, and a code made before the revocation claims as unavailable", arguments: StoreKind.allCases)
    func revokedLinkClaim(store: StoreKind) async throws {
        try await withAPI(on: store) { api in
            let link = try await Self.ordentusLink(api)
            let redirect = try await api.call(.get, "/s/\(link.token)/install/android", headers: [.userAgent: UserAgent.android])
            let code = try #require(ClaimCodeText.code(inPlayRedirect: redirect.headers[.location]))
            #expect(try await api.call(.delete, "/v1/links/\(link.id)", key: api.adminKey).status == 200)

            let after = try await api.call(.get, "/s/\(link.token)/install/android", headers: [.userAgent: UserAgent.android])
            #expect(after.status == 410, "the share path's own unavailable page")
            #expect(after.headers[.location] == nil)

            let claimed = try await api.call(.post, "/v1/claims/\(code)", json: ["state": "signedIn"])
            #expect(claimed.status == 200)
            #expect(claimed.json["outcome"] as? String == "linkUnavailable")
            #expect((claimed.json["link"] as? [String: Any])?["status"] as? String == "revoked")
            #expect(Self.object(claimed.text) == Self.object(try await api.call(.post, "/v1/resolve", json: ["url": link.url, "state": "signedIn"]).text))
            #expect(try await api.call(.post, "/v1/claims/\(code)").status == 404, "still once")
        }
    }

    @Test("limits: codes per address, live codes, crawlers and HEAD make none; claims per address answer 429")
    func rateLimits() async throws {
        try await withAPI(on: .sqlite, { configuration in
            configuration.claims.claimCodesPerMinute = 0.01
            configuration.claims.claimAttemptsPerMinute = 0.01
        }) { api in
            let link = try await Self.ordentusLink(api)
            func redirect(_ agent: String = UserAgent.android) async throws -> String? {
                try await api.call(.get, "/s/\(link.token)/install/android", headers: [.userAgent: agent]).headers[.location]
            }
            let plain = "https://play.google.com/store/apps/details?id=com.ordentus.app"
            #expect(try await redirect(UserAgent.crawler) == plain, "a link-preview crawler goes to the store without a code")
            #expect(try await api.call(.head, "/s/\(link.token)/install/android", headers: [.userAgent: UserAgent.android]).headers[.location] == plain)
            var coded = 0
            for _ in 0..<Int(DeferredLinks.codeBurst) { if ClaimCodeText.code(inPlayRedirect: try await redirect()) != nil { coded += 1 } }
            #expect(coded == Int(DeferredLinks.codeBurst))
            #expect(try await redirect() == plain, "past the address's burst: the store, without a code")

            for attempt in 0..<Int(DeferredLinks.attemptBurst) {
                let reply = try await api.call(.post, "/v1/claims/\(ClaimCode.generate().text)")
                #expect(reply.status == 404, "attempt \(attempt)")
            }
            let limited = try await api.call(.post, "/v1/claims/\(ClaimCode.generate().text)")
            #expect(limited.status == 429)
            #expect(limited.errorCode == "rate_limited")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 >= 1)
        }
        try await withAPI(on: .sqlite, { $0.claims.maxLiveClaimCodes = 2 }) { api in
            let link = try await Self.ordentusLink(api)
            var codes: [String?] = []
            for _ in 0..<3 {
                codes.append(ClaimCodeText.code(inPlayRedirect: try await api.call(
                    .get, "/s/\(link.token)/install/android", headers: [.userAgent: UserAgent.android]).headers[.location]))
            }
            #expect(codes[0] != nil && codes[1] != nil)
            #expect(codes[2] == nil, "maxLiveClaimCodes: 2")
            #expect(try await api.call(.post, "/v1/claims/\(codes[0]!)").status == 200)
            #expect(ClaimCodeText.code(inPlayRedirect: try await api.call(
                .get, "/s/\(link.token)/install/android", headers: [.userAgent: UserAgent.android]).headers[.location]) != nil,
                "a claimed code leaves room for a new one")
            let metrics = try await api.call(.get, "/metrics").text
            #expect(metrics.contains("linkd_claim_codes_withheld_total{reason=\"cap\"} 1"))
            #expect(metrics.contains("linkd_claims_total{app=\"ordentus\",outcome=\"made\"} 3"))
            #expect(metrics.contains("linkd_claims_total{app=\"ordentus\",outcome=\"claimed\"} 1"))
        }
    }

    @Test("a claim with a state its app lacks is 422 unknown_state and does not spend the code (claimed once, counted once)", arguments: StoreKind.allCases)
    func unknownStateKeepsCode(store: StoreKind) async throws {
        try await withAPI(on: store) { api in
            let link = try await Self.ordentusLink(api)
            let location = try await api.call(.get, "/s/\(link.token)/install/android", headers: [.userAgent: UserAgent.android]).headers[.location]
            let code = try #require(ClaimCodeText.code(inPlayRedirect: location))
            let refused = try await api.call(.post, "/v1/claims/\(code)", json: ["state": "pro"])
            #expect(refused.status == 422)
            #expect(refused.errorCode == "unknown_state")
            #expect(refused.text.contains("not a state of ordentus") && refused.text.contains("the code is not spent"), "\(refused.text)")
            // An unknown code with a bad state is still the one 404: nothing about codes is told.
            let unknown = try await api.call(.post, "/v1/claims/\(ClaimCode.generate().text)", json: ["state": "pro"])
            #expect(unknown.status == 404)
            let claimed = try await api.call(.post, "/v1/claims/\(code)", json: ["state": "signedOut"])
            #expect(claimed.status == 200, "the code survived the refused claim")
            #expect(try await api.call(.post, "/v1/claims/\(code)", json: ["state": "signedOut"]).status == 404, "once")
            let metrics = try await api.call(.get, "/metrics").text
            #expect(metrics.contains("linkd_claims_total{app=\"ordentus\",outcome=\"claimed\"} 1"))
        }
    }

    @Test("maxLiveClaimCodesPerLink: one link cannot take every code; another link still gets one")
    func perLinkCap() async throws {
        try await withAPI(on: .sqlite, { $0.claims.maxLiveClaimCodesPerLink = 2; $0.claims.claimCodesPerMinute = 600 }) { api in
            let first = try await Self.ordentusLink(api, event: "standup")
            let second = try await Self.ordentusLink(api, event: "retro")
            func redirect(_ token: String) async throws -> String? {
                ClaimCodeText.code(inPlayRedirect: try await api.call(
                    .get, "/s/\(token)/install/android", headers: [.userAgent: UserAgent.android]).headers[.location])
            }
            #expect(try await redirect(first.token) != nil)
            #expect(try await redirect(first.token) != nil)
            #expect(try await redirect(first.token) == nil, "the link has two live codes")
            #expect(try await redirect(second.token) != nil, "the cap is per link")
            let metrics = try await api.call(.get, "/metrics").text
            #expect(metrics.contains("linkd_claim_codes_withheld_total{reason=\"link_cap\"} 1"), "\(metrics)")
        }
    }
}
