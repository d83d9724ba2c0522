import Foundation
import LinkdTestSupport
import Testing

/// Per-link analytics and a claim code across a restart of `linkd serve` (both stores): the share URL opened from
/// iPhone, Android, desktop and link-preview user agents, the daemon stopped with SIGTERM, then
/// `GET /v1/links/{id}/stats`, `GET /v1/apps/{app}/stats` (JSON and CSV) and the claim on the next process.
@Suite("Link analytics across a restart of the daemon", .serialized)
struct StatsRestartTests {
    @Test("stats and a claim code survive a restart of the daemon", arguments: StoreKind.allCases)
    func statsSurviveRestart(store: StoreKind) async throws {
        let dir = temporaryDataDir()
        var environment: [String: String] = [:]
        if store == .postgres { environment["LINKD_DATABASE_URL"] = try TestPostgres.shared().freshDatabase() }
        let first = try LinkdDaemon(dataDir: dir, environment: environment)
        let admin = try #require(first.initialAdminKey)
        let created = try await TestHTTP.send("POST", first.baseURL + "/v1/links", bearer: admin, json: [
            "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()],
        ])
        let id = try #require(created.json["id"] as? String)
        let token = try #require(created.json["token"] as? String)
        for (agent, times) in UserAgent.opens {
            for _ in 0..<times {
                #expect(try await TestHTTP.send("GET", first.baseURL + "/s/\(token)", headers: ["User-Agent": agent]).status == 200)
            }
        }
        let page = try await TestHTTP.send("GET", first.baseURL + "/s/\(token)/install/ios", headers: ["User-Agent": UserAgent.iPhone])
        let code = try #require(ClaimCodeText.code(inClaimPage: String(decoding: page.body, as: UTF8.self)))
        #expect(first.stop(), "SIGTERM: the last flush writes what was counted")

        let second = try LinkdDaemon(dataDir: dir, environment: environment)
        defer { second.stop() }
        let stats = try await TestHTTP.send("GET", second.baseURL + "/v1/links/\(id)/stats", bearer: admin)
        #expect(stats.status == 200)
        #expect(stats.json["clicks"] as? Int == 6)
        #expect(stats.json["byPlatform"] as? [String: Int] == ["ios": 2, "android": 3, "desktop": 1])
        #expect(stats.json["previews"] as? Int == 2)
        #expect(stats.json["installs"] as? Int == 1)
        #expect((stats.json["claims"] as? [String: Int])?["made"] == 1)
        // The app view (read from the rollups the flush wrote) gives the same numbers, as JSON and as CSV.
        let app = try await TestHTTP.send("GET", second.baseURL + "/v1/apps/handz/stats", bearer: admin)
        #expect(app.status == 200)
        #expect(app.json["clicks"] as? Int == 6)
        #expect(app.json["byPlatform"] as? [String: Int] == ["ios": 2, "android": 3, "desktop": 1])
        #expect((app.json["top"] as? [[String: Any]])?.first?["linkId"] as? String == id)
        #expect((app.json["top"] as? [[String: Any]])?.first?["clicks"] as? Int == 6)
        let csv = try await TestHTTP.send("GET", second.baseURL + "/v1/apps/handz/stats?format=csv", bearer: admin)
        #expect(csv.status == 200)
        #expect(String(decoding: csv.body, as: UTF8.self).components(separatedBy: "\r\n").dropLast().last?
            .split(separator: ",").dropFirst().prefix(6) == ["6", "2", "3", "1", "2", "1"])
        let claimed = try await TestHTTP.send("POST", second.baseURL + "/v1/claims/\(code)", json: ["state": "free"])
        #expect(claimed.status == 200)
        #expect(claimed.json["route"] as? String == "ShareLink/FlowView")
        #expect(try await TestHTTP.send("POST", second.baseURL + "/v1/claims/\(code)").status == 404)
    }
}
