import Foundation
import HTTPTypes
import LinkStore
import LinkdTestSupport
import Testing

@testable import LinkdServer

/// Per-link and per-app analytics against the live server: real HTTP requests to the share URL from iPhone,
/// Android, desktop and link-preview user agents, then `GET /v1/links/{id}/stats` and `GET /v1/apps/{app}/stats`
/// after a flush (both stores). After a restart of the daemon: JourneyTests' `StatsRestartTests`.
@Suite("Link and app analytics", .serialized)
struct AnalyticsTests {
    /// Polls `GET path` with `key` until `done` holds for its JSON (10 s at most); the last answer.
    static func poll(_ api: API, _ path: String, key: String, until done: ([String: Any]) -> Bool) async throws -> [String: Any] {
        var last: [String: Any] = [:]
        for _ in 0..<100 {
            last = try await api.call(.get, path, key: key).json
            if done(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        return last
    }

    static var today: String { StatsRange.text(StatsDay(Date())) }

    @Test("clicks by platform, previews, installs and claims of a link and its app, after a flush", arguments: StoreKind.allCases)
    func statsAfterClicks(store: StoreKind) async throws {
        try await withAPI(on: store, { $0.store.clickFlushSeconds = 0.1 }) { api in
            let link = try await DeferredLinkTests.ordentusLink(api)
            let other = try await DeferredLinkTests.ordentusLink(api, event: "retro")
            for (agent, times) in UserAgent.opens {
                for _ in 0..<times {
                    #expect(try await api.call(.get, "/s/\(link.token)", headers: [.userAgent: agent]).status == 200)
                }
            }
            #expect(try await api.call(.head, "/s/\(link.token)", headers: [.userAgent: UserAgent.iPhone]).status == 200)
            #expect(try await api.call(.get, "/s/\(other.token)", headers: [.userAgent: UserAgent.desktop]).status == 200)
            let redirect = try await api.call(.get, "/s/\(link.token)/install/android", headers: [.userAgent: UserAgent.android])
            #expect(redirect.status == 302)

            let stats = try await Self.poll(api, "/v1/links/\(link.id)/stats", key: api.adminKey) { ($0["clicks"] as? Int) == 6 && ($0["installs"] as? Int) == 1 }
            #expect(stats["linkId"] as? String == link.id)
            #expect(stats["app"] as? String == "ordentus")
            #expect(stats["clicks"] as? Int == 6, "people only: \(stats)")
            #expect(stats["byPlatform"] as? [String: Int] == ["ios": 2, "android": 3, "desktop": 1])
            #expect(stats["previews"] as? Int == 2)
            #expect(stats["installs"] as? Int == 1)
            #expect(stats["installsByPlatform"] as? [String: Int] == ["ios": 0, "android": 1])
            #expect((stats["claims"] as? [String: Int])?["made"] == 1)
            #expect(stats["lastOpenedAt"] is String)
            #expect(stats["from"] as? String == Self.today && stats["to"] as? String == Self.today)
            let days = try #require(stats["byDay"] as? [[String: Any]])
            #expect(days.count == 1)
            #expect(days.first?["date"] as? String == Self.today)
            #expect(days.first?["clicks"] as? Int == 6)

            // The app's client key sees it; another app's key gets the 404 a missing link gets.
            let ordentusKey = try await api.clientKey(app: "ordentus")
            let handzKey = try await api.clientKey(app: "handz")
            #expect(try await api.call(.get, "/v1/links/\(link.id)/stats", key: ordentusKey).status == 200)
            let foreign = try await api.call(.get, "/v1/links/\(link.id)/stats", key: handzKey)
            #expect(foreign.status == 404)
            #expect(foreign.text == (try await api.call(.get, "/v1/links/\(String(repeating: "0", count: 32))/stats", key: ordentusKey)).text
                .replacingOccurrences(of: String(repeating: "0", count: 32), with: link.id))
            #expect(try await api.call(.get, "/v1/links/\(link.id)/stats").status == 401)

            let app = try await Self.poll(api, "/v1/apps/ordentus/stats", key: ordentusKey) { ($0["clicks"] as? Int) == 7 }
            #expect(app["clicks"] as? Int == 7)
            #expect(app["previews"] as? Int == 2)
            #expect(app["byPlatform"] as? [String: Int] == ["ios": 2, "android": 3, "desktop": 2])
            let top = try #require(app["top"] as? [[String: Any]])
            #expect(top.map { $0["linkId"] as? String } == [link.id, other.id], "most clicked first")
            #expect(top.first?["title"] as? String == "Team standup")
            #expect((try await api.call(.get, "/v1/apps/ordentus/stats?top=1", key: ordentusKey).json["top"] as? [Any])?.count == 1)
            #expect(try await api.call(.get, "/v1/apps/ordentus/stats", key: handzKey).status == 404)
            #expect(try await api.call(.get, "/v1/apps/nope/stats", key: api.adminKey).status == 404)

            // Ranges are dates, in order, bounded; top is bounded.
            for query in ["from=2026-13-01", "to=yesterday", "from=2026-11-20&to=2026-11-01", "from=2025-01-01&to=2026-01-01", "top=0", "top=101", "top=x"] {
                let reply = try await api.call(.get, "/v1/apps/ordentus/stats?\(query)", key: ordentusKey)
                #expect(reply.status == 400, "\(query): \(reply.text)")
                #expect(reply.errorCode == "bad_request")
            }
            #expect(try await api.call(.get, "/v1/links/\(link.id)/stats?from=2020-01-01&to=2026-01-01", key: ordentusKey).status == 400)
            let past = try await api.call(.get, "/v1/links/\(link.id)/stats?from=2020-01-01&to=2020-01-31", key: ordentusKey)
            #expect(past.status == 200)
            #expect(past.json["clicks"] as? Int == 0)
            #expect((past.json["byDay"] as? [Any])?.isEmpty == true)

            let metrics = try await api.call(.get, "/metrics").text
            #expect(metrics.contains("linkd_link_opens_total{app=\"ordentus\",platform=\"ios\"} 2"))
            #expect(metrics.contains("linkd_link_opens_total{app=\"ordentus\",platform=\"android\"} 3"))
            #expect(metrics.contains("linkd_link_opens_total{app=\"ordentus\",platform=\"desktop\"} 2"))
            #expect(metrics.contains("linkd_link_opens_total{app=\"ordentus\",platform=\"preview\"} 2"))
            #expect(metrics.contains("linkd_store_redirects_total{app=\"ordentus\",platform=\"android\"} 1"))
        }
    }
}
