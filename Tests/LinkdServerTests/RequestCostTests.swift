import HTTPTypes
import HummingbirdTesting
import LinkdTestSupport
import Testing

@testable import LinkdServer

/// What a request costs the client's rate-limit bucket, in-process (the hostile clients themselves are played
/// against a `linkd serve` process in JourneyTests' `HostileClientTests`).
@Suite("Request costs")
struct RequestCostTests {
    @Test("expensive requests cost more: an Ed25519 share page 5 tokens, a short id 5, a calendar file 1 per 16 KiB")
    func costs() async throws {
        try await withAPI({ $0.limits.rateLimitPerSecond = 0.001; $0.limits.rateLimitBurst = 10 }) { api in
            let key = try await api.clientKey(app: "handz")
            let hmac = try #require(try await api.createHandzLink(key: key)["token"] as? String)
            let ed25519 = try #require(try await api.createHandzLink(key: key, suite: "ed25519")["token"] as? String)
            #expect(ed25519.count == 126 && hmac.count == 83)
            let port = try #require(api.client.port)
            var statuses: [Int] = []
            for token in [hmac, ed25519, ed25519, hmac] {  // 10 → 9 → 4 → -1: refused
                statuses.append(try await RawConnection.get(port, "/s/\(token)", from: "127.0.0.1"))
            }
            #expect(statuses == [200, 200, 200, 429], "\(statuses)")
        }
        // A short id costs 5, known or not (charged by its shape, as an Ed25519 token is): 10 → 5 → 0 → refused.
        try await withAPI({ $0.limits.rateLimitPerSecond = 0.001; $0.limits.rateLimitBurst = 10 }) { api in
            let key = try await api.clientKey(app: "handz")
            let shortURL = try #require(try await api.createHandzLink(key: key)["shortURL"] as? String)
            let port = try #require(api.client.port)
            var statuses: [Int] = []
            for path in ["/s/\(ShortLinkTests.shortID(shortURL))", "/s/ZZZZZZZZZZZ", "/s/AQAAAAEforged"] {
                statuses.append(try await RawConnection.get(port, path, from: "127.0.0.1"))
            }
            #expect(statuses == [200, 404, 429], "\(statuses)")
        }
        try await withAPI({ $0.limits.rateLimitPerSecond = 0.001; $0.limits.rateLimitBurst = 10 }) { api in
            let big = String(repeating: "X", count: 100 * 1024)  // not a calendar: refused, and charged 1 + 6
            var statuses: [Int] = []
            for body in [big, big, "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"] {
                statuses.append(try await api.call(.post, "/v1/resolve/ics", raw: body, contentType: "text/calendar").status)
            }
            #expect(statuses[0] != 429 && statuses[1] != 429 && statuses[2] == 429, "100 KiB costs 7: 10 → 3 → -4, \(statuses)")
        }
    }
}
