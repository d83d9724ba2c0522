import Foundation
import LinkdTestSupport
import Testing

/// The admin console in headless chromium, through a real `linkd serve` process: the forms are driven over the
/// DevTools protocol (`ChromiumDriver`), and every page is saved at a phone's and a desktop's size under
/// `artifacts/console/` for a person to look at.
@Suite("admin console in chromium: sign in, rotate a key, revoke a link, disable a user, sign out")
struct ConsoleBrowserTests {
    static let artifacts = LinkdProcess.repositoryRoot.appendingPathComponent("artifacts/console")
    static let phone = (width: 390, height: 844)
    static let desktop = (width: 1440, height: 900)

    /// Saves the current page at both sizes as `<name>-phone.png` and `<name>-desktop.png`.
    static func capture(_ browser: ChromiumDriver, _ name: String) throws {
        try browser.resize(width: phone.width, height: phone.height, mobile: true)
        try browser.screenshot(to: artifacts.appendingPathComponent("\(name)-phone.png"))
        try browser.resize(width: desktop.width, height: desktop.height, mobile: false)
        try browser.screenshot(to: artifacts.appendingPathComponent("\(name)-desktop.png"))
        #expect(Chromium.pngSize(at: artifacts.appendingPathComponent("\(name)-phone.png"))?.width == phone.width)
        #expect(Chromium.pngSize(at: artifacts.appendingPathComponent("\(name)-desktop.png"))?.width == desktop.width)
    }

    @Test("the admin journey, every page at 390×844 and 1440×900")
    func journey() async throws {
        let daemon = try LinkdDaemon(dataDir: temporaryDataDir())
        defer { daemon.stop() }
        let adminKey = try #require(daemon.initialAdminKey)
        let base = daemon.baseURL
        // Links of two owners, made through the API with a client key.
        let made = try await TestHTTP.send("POST", base + "/v1/admin/api-keys", bearer: adminKey,
                                           json: ["kind": "client", "app": "handz", "label": "handz app"])
        let client = try #require(made.json["key"] as? String)
        var links: [String] = [], shareURLs: [String] = []
        for owner in ["ada", "ada", "ada", "bob"] {
            let link = try await TestHTTP.send("POST", base + "/v1/links", bearer: client, json: [
                "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()], "owner": owner,
                "title": "Morning flow of \(owner)",
            ])
            links.append(try #require(link.json["id"] as? String))
            shareURLs.append(try #require(link.json["token"] as? String))
        }
        // Open bob's share link once, so the inspector has a click to show.
        #expect(try await TestHTTP.send("GET", base + "/s/\(shareURLs[3])").status == 200)

        let browser = try ChromiumDriver(width: Self.desktop.width, height: Self.desktop.height)
        defer { browser.close() }

        // Sign in: /admin sends to the form; a wrong key is refused on the page; the right one opens the overview.
        try browser.open(base + "/admin")
        #expect(try browser.url().hasSuffix("/admin/sign-in"))
        try Self.capture(browser, "sign-in")
        // Focus order: the skip link, the console's home, the key field, the button.
        #expect(try browser.tab() == "A Skip to content")
        #expect(try browser.tab().hasPrefix("A linkd"))
        #expect(try browser.tab().hasPrefix("INPUT"))
        #expect(try browser.tab() == "BUTTON Sign in")
        try browser.fill("#key", "lkd_not-a-key")
        try browser.clickAndWait("form[action='/admin/sign-in'] button")
        #expect(try browser.text().contains("That key is unknown or revoked."))
        try Self.capture(browser, "sign-in-refused")
        try browser.fill("#key", adminKey)
        try browser.clickAndWait("form[action='/admin/sign-in'] button")
        #expect(try browser.url() == base + "/admin")
        #expect(try browser.text().contains("Instances on this store (1)"))
        #expect(try browser.evaluate("document.cookie") as? String == "", "the session cookie is HttpOnly: no script sees it")
        #expect(!(try browser.html()).contains(adminKey), "the key is nowhere in the page")
        try Self.capture(browser, "overview")

        // Rotate the Handz key through its confirmation page.
        try browser.clickAndWait("nav a[href='/admin/keys']")
        try Self.capture(browser, "keys")
        try browser.clickAndWait("a[href='/admin/keys/handz/rotate?suite=hmac-sha256']")
        #expect(try browser.text().contains("Nothing stops working now"))
        try Self.capture(browser, "rotate-confirm")
        try browser.clickAndWait("form[action='/admin/keys/handz/rotate'] button[type=submit]")
        let rotated = try browser.text()
        #expect(rotated.contains("is now the active key of handz"))
        #expect(rotated.contains("verifies until"))
        try Self.capture(browser, "keys-rotated")

        // The inspector, then revoke one link.
        try browser.open(base + "/admin/links/\(links[3])")
        let inspector = try browser.text()
        #expect(inspector.contains("Morning flow of bob") && inspector.contains("active"))
        try Self.capture(browser, "link")
        try browser.clickAndWait("a[href='/admin/links/\(links[3])/revoke']")
        try Self.capture(browser, "link-revoke-confirm")
        try browser.clickAndWait("form[action='/admin/links/\(links[3])/revoke'] button[type=submit]")
        #expect(try browser.text().contains("The link is revoked"))
        let share = try await TestHTTP.send("GET", base + "/v1/links/\(links[3])", bearer: client)
        #expect(share.json["status"] as? String == "revoked")

        // Disable a user: find ada's links, see the count, confirm, see them revoked.
        try browser.clickAndWait("nav a[href='/admin/links']")
        try browser.evaluate("document.querySelector('#app').value = 'handz'")
        try browser.fill("#owner", "ada")
        try browser.clickAndWait("form[action='/admin/links'] button[type=submit]")
        #expect(try browser.text().contains("3 active links"))
        try Self.capture(browser, "links-owner")
        try browser.clickAndWait("a[href^='/admin/owners/revoke']")
        let confirm = try browser.text()
        #expect(confirm.contains("This revokes 3 active links of ada in handz"))
        try Self.capture(browser, "disable-user-confirm")
        try browser.clickAndWait("form[action='/admin/owners/revoke'] button[type=submit]")
        #expect(try browser.text().contains("Revoked 3 links of this owner."))
        for id in links.prefix(3) {
            let view = try await TestHTTP.send("GET", base + "/v1/links/\(id)", bearer: client)
            #expect(view.json["status"] as? String == "revoked")
        }

        // API keys and the audit log: the actions above, audited as the signed-in key.
        try browser.clickAndWait("nav a[href='/admin/api-keys']")
        try Self.capture(browser, "api-keys")
        try browser.clickAndWait("nav a[href='/admin/audit']")
        let audit = try browser.text()
        for action in ["key.rotate", "link.revoke", "owner.revoke"] { #expect(audit.contains(action)) }
        try Self.capture(browser, "audit")

        // Sign out: back at sign-in, and the console is closed to this browser.
        try browser.clickAndWait("form[action='/admin/sign-out'] button")
        #expect(try browser.url().hasSuffix("/admin/sign-in"))
        try browser.open(base + "/admin/keys")
        #expect(try browser.url().hasSuffix("/admin/sign-in"))
    }

    @Test("the apps page: who published each version, and the impact of going back to one that strands a link")
    func appsPage() async throws {
        let daemon = try LinkdDaemon(dataDir: temporaryDataDir())
        defer { daemon.stop() }
        let adminKey = try #require(daemon.initialAdminKey)
        let base = daemon.baseURL
        // A live Handz share link, then version 2, which renames its screen and moves the link along.
        let made = try await TestHTTP.send("POST", base + "/v1/admin/api-keys", bearer: adminKey,
                                           json: ["kind": "client", "app": "handz", "label": "handz app"])
        let client = try #require(made.json["key"] as? String)
        let link = try await TestHTTP.send("POST", base + "/v1/links", bearer: client, json: ["params": ["flowId": UUID().uuidString.lowercased()]])
        let linkID = try #require(link.json["id"] as? String)
        let published = try await TestHTTP.send("PUT", base + "/v1/admin/apps/handz/manifest", bearer: adminKey, json: [
            "manifest": try ManifestEdits.renamedHandz(), "moves": ["ShareLink/FlowView": "ShareLink/SharedFlow"],
        ])
        #expect(published.status == 200 && published.json["version"] as? Int == 2)

        let browser = try ChromiumDriver(width: Self.desktop.width, height: Self.desktop.height)
        defer { browser.close() }
        try browser.open(base + "/admin")
        try browser.fill("#key", adminKey)
        try browser.clickAndWait("form[action='/admin/sign-in'] button")
        try browser.clickAndWait("nav a[href='/admin/apps']")
        let apps = try browser.text()
        #expect(apps.contains("version 2 in force") && apps.contains("file examples/handz.yaml"), "\(apps)")
        try Self.capture(browser, "apps")
        try browser.clickAndWait("form[action='/admin/apps/handz/check'] button[type=submit]")
        let impact = try browser.text()
        #expect(impact.contains("Refused as it is: it would strand 1 live link(s)"), "\(impact)")
        #expect(impact.contains("ShareLink/SharedFlow") && impact.contains(linkID))
        #expect(impact.contains("linkd admin apps rollback handz 1"))
        try Self.capture(browser, "apps-impact")
        let apiView = try await TestHTTP.send("GET", base + "/v1/admin/apps", bearer: adminKey)
        let handz = (apiView.json["apps"] as? [[String: Any]])?.first { $0["app"] as? String == "handz" }
        #expect(handz?["version"] as? Int == 2, "the check changed nothing")
    }
}
