import Foundation
import LinkdTestSupport
import Testing

/// The console as a new admin first meets it, in headless chromium through a real `linkd serve`: where the first
/// key is, the links page without a filter, the API-key forms as they come, a link's share URLs and stats, and
/// rotating every active signing key of an app after a leak (as `docs/operating.md` walks through it).
@Suite("admin console in chromium: first use")
struct ConsoleFirstUseBrowserTests {
    @Test("sign-in says where the first key is; every link listed without a filter; the API-key forms work as they come")
    func firstSteps() async throws {
        let daemon = try LinkdDaemon(dataDir: temporaryDataDir())
        defer { daemon.stop() }
        let adminKey = try #require(daemon.initialAdminKey)
        let base = daemon.baseURL
        var ids: [String] = []
        for owner in ["ada", "bob"] {
            let link = try await TestHTTP.send("POST", base + "/v1/links", bearer: adminKey, json: [
                "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()], "owner": owner,
            ])
            ids.append(try #require(link.json["id"] as? String))
        }
        let browser = try ChromiumDriver(width: ConsoleBrowserTests.desktop.width, height: ConsoleBrowserTests.desktop.height)
        defer { browser.close() }

        // The sign-in page names the file and how to make another key, as docs/operating.md does.
        try browser.open(base + "/admin/sign-in")
        let signIn = try browser.text()
        #expect(signIn.contains("initial-admin-key") && signIn.contains("./data"))
        #expect(signIn.contains("linkd admin api-keys create --kind admin"))
        let operating = try String(contentsOf: LinkdProcess.repositoryRoot.appendingPathComponent("docs/operating.md"), encoding: .utf8)
        #expect(operating.contains("linkd admin api-keys create --kind admin"), "the docs say the same before the file is deleted")
        try ConsoleBrowserTests.capture(browser, "sign-in-hint")
        try ConsoleStatsBrowserTests.signIn(browser, base, adminKey)

        // The links page lists every link at once, and again with every filter left at "any".
        try browser.clickAndWait("nav a[href='/admin/links']")
        var listed = try browser.text()
        #expect(ids.allSatisfy { listed.contains($0) } && listed.contains("Links, newest first"), "\(listed)")
        try ConsoleBrowserTests.capture(browser, "links-all")
        try browser.clickAndWait("form[action='/admin/links'] button[type=submit]")
        listed = try browser.text()
        #expect(ids.allSatisfy { listed.contains($0) })
        try browser.fill("#owner", "nobody")
        try browser.clickAndWait("form[action='/admin/links'] button[type=submit]")
        #expect(try browser.text().contains("No links match."))

        // Each API-key form works as it comes: a client key of the first app, an admin key.
        try browser.clickAndWait("nav a[href='/admin/api-keys']")
        try ConsoleBrowserTests.capture(browser, "api-keys-forms")
        let firstApp = try #require(try browser.evaluate("document.querySelector('#client-app').value") as? String)
        #expect(!firstApp.isEmpty, "an app is chosen already")
        try browser.fill("#client-label", "backend")
        try browser.clickAndWait("#create-client button[type=submit]")
        let client = try browser.text()
        #expect(client.contains("Copy the key now") && client.contains("client for \(firstApp)"), "\(client)")
        try browser.open(base + "/admin/api-keys")
        try browser.fill("#admin-label", "alice")
        try browser.clickAndWait("#create-admin button[type=submit]")
        #expect(try browser.text().contains("Copy the key now"))
        let keys = try await TestHTTP.send("GET", base + "/v1/admin/api-keys", bearer: adminKey)
        let made = (keys.json["apiKeys"] as? [[String: Any]] ?? []).compactMap { key in
            (key["label"] as? String).map { "\($0) \(key["kind"] as? String ?? "") \(key["app"] as? String ?? "-")" }
        }
        #expect(made.contains("backend client \(firstApp)") && made.contains("alice admin -"), "\(made)")
    }

    @Test("a link's page shows its share URLs (they open) and its stats; every active key of an app rotates after a leak")
    func linkAndKeys() async throws {
        let daemon = try LinkdDaemon(dataDir: temporaryDataDir())
        defer { daemon.stop() }
        let adminKey = try #require(daemon.initialAdminKey)
        let base = daemon.baseURL
        let link = try await TestHTTP.send("POST", base + "/v1/links", bearer: adminKey, json: [
            "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()], "title": "Stretch",
        ])
        let id = try #require(link.json["id"] as? String)
        let token = try #require(link.json["token"] as? String)
        for _ in 0..<2 { #expect(try await TestHTTP.send("GET", base + "/s/\(token)", headers: ["User-Agent": UserAgent.iPhone]).status == 200) }
        try await Task.sleep(for: .milliseconds(2500))  // the daily rows are written every second

        let browser = try ChromiumDriver(width: ConsoleBrowserTests.desktop.width, height: ConsoleBrowserTests.desktop.height)
        defer { browser.close() }
        try ConsoleStatsBrowserTests.signIn(browser, base, adminKey)
        try browser.open(base + "/admin/links/\(id)")
        let urls = try browser.evaluate("[...document.querySelectorAll('.share-urls input')].map(i => i.value)") as? [String] ?? []
        // Its token URL and its short URL (an 11-character id in the token's place).
        #expect(urls.count == 2 && urls.allSatisfy { $0.hasPrefix("https://links.handz.example/s/") }, "\(urls)")
        #expect(urls.compactMap { URL(string: $0)?.lastPathComponent.count }.sorted().first == 11, "\(urls)")
        // Each URL shown opens this link's share page (counted as further opens).
        for url in urls {
            let path = try #require(URL(string: url)?.path)
            let opened = try await TestHTTP.send("GET", base + path, headers: ["User-Agent": UserAgent.android])
            #expect(opened.status == 200 && String(decoding: opened.body, as: UTF8.self).contains("Stretch"), "\(url)")
        }
        #expect(try ConsoleStatsBrowserTests.tiles(browser)["Opens"] == "2")
        try ConsoleBrowserTests.capture(browser, "link-share-stats")
        try browser.clickAndWait("a[href='/admin/links/\(id)/stats']")
        #expect(try browser.url().hasSuffix("/admin/links/\(id)/stats"))
        // A revoked link has no share URL to show.
        try browser.open(base + "/admin/links/\(id)/revoke")
        try browser.clickAndWait("form[action='/admin/links/\(id)/revoke'] button[type=submit]")
        #expect(try browser.evaluate("document.querySelectorAll('.share-urls input').length") as? Int == 0)
        #expect(try browser.text().contains("None: the link no longer opens"))

        // A leak: the keys page rotates each active suite; afterwards both active keys are new.
        let before = try await Self.activeKeys(base, adminKey)
        #expect(Set(before.keys) == ["hmac-sha256", "ed25519"], "an app starts with two active keys")
        for suite in ["hmac-sha256", "ed25519"] {
            try browser.open(base + "/admin/keys")
            try browser.clickAndWait("a[href='/admin/keys/handz/rotate?suite=\(suite)']")
            try browser.clickAndWait("form[action='/admin/keys/handz/rotate'] button[type=submit]")
            #expect(try browser.text().contains("is now the active key of handz"))
        }
        let after = try await Self.activeKeys(base, adminKey)
        #expect(Set(after.keys) == Set(before.keys) && after.allSatisfy { before[$0.key] != $0.value }, "\(before) → \(after)")
        // The walkthrough in docs/operating.md rotates both suites too.
        let operating = try String(contentsOf: LinkdProcess.repositoryRoot.appendingPathComponent("docs/operating.md"), encoding: .utf8)
        let leak = try #require(operating.components(separatedBy: "**A leaked signing key.**").dropFirst().first?.prefix(1200))
        #expect(leak.contains("keys rotate --app handz --suite hmac-sha256") && leak.contains("keys rotate --app handz --suite ed25519"))
    }

    /// The active signing keys of Handz: suite → kid.
    static func activeKeys(_ base: String, _ adminKey: String) async throws -> [String: Int] {
        let reply = try await TestHTTP.send("GET", base + "/v1/admin/keys?app=handz", bearer: adminKey)
        let keys = reply.json["keys"] as? [[String: Any]] ?? []
        return Dictionary(keys.filter { $0["state"] as? String == "active" }.compactMap { key in
            (key["suite"] as? String).flatMap { suite in (key["kid"] as? Int).map { (suite, $0) } }
        }, uniquingKeysWith: max)
    }
}
