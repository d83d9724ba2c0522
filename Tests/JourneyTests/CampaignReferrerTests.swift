import Foundation
import LinkdTestSupport
import Testing

/// Campaigns and referrers through `linkd serve` (both stores): a Handz share link created with a campaign of its
/// own (seed "Handz › Share links": the flow shared by a person, here from a newsletter), opened from an iPhone with
/// `utm_*` on its URL and a Referer, from Android through a mail app, from a desktop with neither, with a
/// formula-like campaign, and by a link-preview crawler; the daemon stopped with SIGTERM and started again; then
/// `byCampaign` and `byReferrer` of the link and of its app, each person counted once, and the store read to show
/// that no address, user agent, referrer URL or path is in it.
@Suite("Campaigns and referrers of share-page openings, through the daemon", .serialized)
struct CampaignReferrerTests {
    static let secretPath = "private-thread-4711"

    @Test("campaigns and referring hosts counted once each, after a restart, and nothing personal stored", arguments: StoreKind.allCases)
    func campaignsAndReferrers(store: StoreKind) async throws {
        let dir = temporaryDataDir()
        var environment: [String: String] = [:]
        let database = store == .postgres ? try TestPostgres.shared().freshDatabase() : nil
        if let database { environment["LINKD_DATABASE_URL"] = database }
        let first = try LinkdDaemon(dataDir: dir, environment: environment)
        let admin = try #require(first.initialAdminKey)
        let created = try await TestHTTP.send("POST", first.baseURL + "/v1/links", bearer: admin, json: [
            "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()],
            "campaign": ["source": "Newsletter", "medium": "E-mail ", "name": "Spring Sale!"],
        ])
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let id = try #require(created.json["id"] as? String)
        let token = try #require(created.json["token"] as? String)
        let view = try await TestHTTP.send("GET", first.baseURL + "/v1/links/\(id)", bearer: admin)
        #expect(view.json["campaign"] as? [String: String] == ["source": "newsletter", "medium": "e-mail", "name": "spring-sale"])
        let refused = try await TestHTTP.send("POST", first.baseURL + "/v1/links", bearer: admin, json: [
            "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()], "campaign": ["source": "!!!"],
        ])
        #expect(refused.status == 422, "invalid, as any other field of a new link")
        #expect((refused.json["error"] as? [String: Any])?["message"] as? String == "campaign needs a source, medium or name with a letter or digit")

        let page = first.baseURL + "/s/\(token)"
        let opens: [(url: String, agent: String, referer: String?)] = [
            (page + "?utm_source=Twitter&utm_medium=social&utm_campaign=Launch%20Day", UserAgent.iPhone,
             "https://t.co/\(Self.secretPath)?s=20"),
            (page + "?utm_campaign=launch+day&utm_medium=Social&utm_source=twitter&utm_source=ignored", UserAgent.iPhone, nil),
            (page, UserAgent.android, "android-app://com.google.android.gm/"),
            (page, UserAgent.desktop, nil),
            (page + "?utm_source=%3DHYPERLINK(%22http%3A%2F%2Fevil.example%22)", UserAgent.desktop,
             "https://user:pw@News.Example.com:8443/item?id=\(Self.secretPath)"),
            (page + "?utm_source=crawler-campaign", UserAgent.crawler, "https://facebook.com/\(Self.secretPath)"),
        ]
        for open in opens {
            var headers = ["User-Agent": open.agent]
            if let referer = open.referer { headers["Referer"] = referer }
            #expect(try await TestHTTP.send("GET", open.url, headers: headers).status == 200)
        }
        #expect(first.stop(), "SIGTERM: the last flush writes what was counted")

        let second = try LinkdDaemon(dataDir: dir, environment: environment)
        let stats = try await TestHTTP.send("GET", second.baseURL + "/v1/links/\(id)/stats", bearer: admin)
        #expect(stats.status == 200)
        #expect(stats.json["clicks"] as? Int == 5, "people only; the crawler is a preview: \(String(decoding: stats.body, as: UTF8.self))")
        #expect(stats.json["previews"] as? Int == 1)
        let campaigns = try #require(stats.json["byCampaign"] as? [[String: Any]])
        #expect(Self.counts(campaigns, key: "label") == [
            "twitter|social|launch-day": 2, "newsletter|e-mail|spring-sale": 2, "hyperlink-http-evil.example||": 1,
        ])
        let launch = try #require(campaigns.first { $0["label"] as? String == "twitter|social|launch-day" })
        #expect(launch["source"] as? String == "twitter" && launch["medium"] as? String == "social" && launch["name"] as? String == "launch-day")
        let referrers = try #require(stats.json["byReferrer"] as? [[String: Any]])
        #expect(Self.counts(referrers, key: "host") == ["(none)": 2, "t.co": 1, "com.google.android.gm": 1, "news.example.com": 1])
        #expect(referrers.first?["host"] as? String == "(none)", "most clicks first")

        let app = try await TestHTTP.send("GET", second.baseURL + "/v1/apps/handz/stats", bearer: admin)
        #expect(app.status == 200)
        #expect(Self.counts(try #require(app.json["byCampaign"] as? [[String: Any]]), key: "label") == Self.counts(campaigns, key: "label"))
        #expect(Self.counts(try #require(app.json["byReferrer"] as? [[String: Any]]), key: "host") == Self.counts(referrers, key: "host"))
        #expect(second.stop())

        // What the store holds: labels and counts, never the visitor's address, user agent, referrer URL or path.
        let dump = try Self.dump(store: store, dataDir: dir, database: database)
        #expect(dump.contains("t.co") && dump.contains("launch-day"), "the dump holds the stats")
        for personal in ["127.0.0.1", "iPhone", "Android 14", "X11; Linux", "facebookexternalhit", Self.secretPath, "t.co/", "user:pw",
                         "HYPERLINK", "crawler-campaign"] {
            #expect(!dump.contains(personal), "the store holds \(personal)")
        }
    }

    /// Clicks by value of a list of `byCampaign`/`byReferrer` entries.
    static func counts(_ entries: [[String: Any]], key: String) -> [String: Int] {
        Dictionary(entries.map { ($0[key] as? String ?? "?", $0["clicks"] as? Int ?? -1) }, uniquingKeysWith: +)
    }

    /// Every row of the store as text: SQLite's `.dump` (python3's sqlite3) or `pg_dump --data-only`.
    static func dump(store: StoreKind, dataDir: String, database: String?) throws -> String {
        switch store {
        case .sqlite:
            let python = try ExternalTool.path("python3", install: "apt-get install python3")
            let script = "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print('\\n'.join(c.iterdump()))"
            return String(decoding: try ExternalTool.run(python, ["-c", script, dataDir + "/linkd.sqlite"]), as: UTF8.self)
        case .postgres:
            let pgDump = try ExternalTool.path("pg_dump", install: "apt-get install postgresql-client")
            return String(decoding: try ExternalTool.run(pgDump, ["--data-only", try #require(database)]), as: UTF8.self)
        }
    }
}
