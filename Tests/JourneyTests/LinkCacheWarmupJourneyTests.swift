import Foundation
import LinkdTestSupport
import Testing

/// The link cache filled at start (`linkCacheWarmup`): after a restart of `linkd serve`, the links made before it
/// are answered from memory — the event-loop fast path — from the first request on, on both stores. COIN's
/// Canvas: its pages need no origin preview, so memory alone makes them.
@Suite("The link cache warmed at start", .serialized)
struct LinkCacheWarmupJourneyTests {
    /// The value of an unlabelled series on `/metrics`.
    static func metric(_ name: String, at baseURL: String) async throws -> Double {
        let text = String(decoding: try await TestHTTP.send("GET", baseURL + "/metrics").body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line?.split(separator: " ").last.flatMap { Double($0) } ?? -1
    }

    @Test("a restarted daemon answers every active link's share page and short URL from memory", arguments: StoreKind.allCases)
    func restartedDaemonAnswersFromMemory(store: StoreKind) async throws {
        let dir = temporaryDataDir()
        var environment: [String: String] = [:]
        if store == .postgres { environment["LINKD_DATABASE_URL"] = try TestPostgres.shared().freshDatabase() }
        let first = try LinkdDaemon(dataDir: dir, environment: environment)
        let admin = try #require(first.initialAdminKey)
        var links: [(id: String, token: String, shortURL: String)] = []
        for n in 0..<40 {
            let created = try await TestHTTP.send("POST", first.baseURL + "/v1/links", bearer: admin, json: [
                "app": "coin", "route": "Canvas", "params": ["coinId": "coin-\(n)"],
            ])
            #expect(created.status == 201 || created.status == 200, "\(created.status)")
            links.append((
                try #require(created.json["id"] as? String), try #require(created.json["token"] as? String),
                try #require(created.json["shortURL"] as? String)))
        }
        let revoked = links.removeLast()
        #expect(try await TestHTTP.send("DELETE", first.baseURL + "/v1/links/\(revoked.id)", bearer: admin).status == 200)
        #expect(first.stop())

        let second = try LinkdDaemon(dataDir: dir, configuration: "rateLimitPerSecond: 0\n", environment: environment)
        defer { second.stop() }
        let deadline = ContinuousClock.now + .seconds(30)
        while try await Self.metric("linkd_link_cache_records", at: second.baseURL) < 39, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try await Self.metric("linkd_link_cache_records", at: second.baseURL) == 39, "the active links, not the revoked one")
        #expect(try await Self.metric("linkd_link_cache_bytes", at: second.baseURL) > 0)

        let before = try await Self.metric("linkd_fast_path_answers_total", at: second.baseURL)
        for link in links {
            let page = try await TestHTTP.send("GET", second.baseURL + "/s/\(link.token)", headers: ["User-Agent": UserAgent.iPhone])
            #expect(page.status == 200)
            let path = try #require(URL(string: link.shortURL)?.path)
            let short = try await TestHTTP.send("GET", second.baseURL + path, headers: ["User-Agent": UserAgent.iPhone])
            #expect(short.status == 200, "\(path)")
        }
        #expect(try await TestHTTP.send("GET", second.baseURL + "/s/\(revoked.token)").status == 410)
        // Each of the 78 pages (and the revoked link's 410, decided by the revocation set) came from memory.
        let fast = try await Self.metric("linkd_fast_path_answers_total", at: second.baseURL) - before
        #expect(fast >= 79, "fast-path answers: \(fast)")
    }
}
