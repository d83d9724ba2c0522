import Foundation
import LinkdTestSupport
import Testing

/// The console's webhooks pages in headless chromium, through a real `linkd serve` and a receiver on loopback that
/// checks every signature: add an endpoint (its secret shown once), see a delivery in its log, disable, delete.
@Suite("admin console in chromium: webhooks")
struct ConsoleWebhooksBrowserTests {
    @Test("add an endpoint, its secret once, a delivery in its log, disable it, delete it; every step audited")
    func webhooksPage() async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { port in
            let daemon = try LinkdDaemon(dataDir: temporaryDataDir(), configuration: WebhookTests.quick)
            defer { daemon.stop() }
            let adminKey = try #require(daemon.initialAdminKey)
            let base = daemon.baseURL
            let browser = try ChromiumDriver(width: ConsoleBrowserTests.desktop.width, height: ConsoleBrowserTests.desktop.height)
            defer { browser.close() }
            try ConsoleStatsBrowserTests.signIn(browser, base, adminKey)
            try browser.clickAndWait("nav a[href='/admin/webhooks']")
            #expect(try browser.text().contains("No webhook endpoint yet"))
            try ConsoleBrowserTests.capture(browser, "webhooks-empty")

            // Add one for Handz (the first app is chosen already), every event ticked by default.
            try browser.evaluate("document.querySelector('#webhook-app').value = 'handz'")
            try browser.fill("#webhook-url", "http://127.0.0.1:\(port)/hook")
            try browser.clickAndWait("form[action='/admin/webhooks'] button[type=submit]")
            #expect(try browser.text().contains("This is the only time the secret is shown"))
            let secret = try #require(try browser.evaluate("document.querySelector('#secret').value") as? String)
            #expect(secret.hasPrefix("whsec_"))
            receiver.setSecret(secret)
            try ConsoleBrowserTests.capture(browser, "webhook-created")
            let listed = try await TestHTTP.send("GET", base + "/v1/admin/webhooks?app=handz", bearer: adminKey)
            let endpoint = try #require((listed.json["webhooks"] as? [[String: Any]])?.first)
            let id = try #require(endpoint["id"] as? String)
            #expect(endpoint["enabled"] as? Bool == true)

            // Never again: not on the endpoint's page, not on the list, not after a reload.
            try browser.clickAndWait("a.button.primary[href='/admin/webhooks/\(id)']")
            #expect(!(try browser.html()).contains(secret))
            try browser.open(base + "/admin/webhooks")
            let list = try browser.text(), listHTML = try browser.html()
            #expect(list.contains(id) && list.contains("active") && !listHTML.contains(secret))
            try browser.open(base + "/admin/webhooks")
            #expect(!(try browser.html()).contains(secret))

            // An event: a link made through the API reaches the receiver, signed; the log shows the delivery.
            let link = try await TestHTTP.send("POST", base + "/v1/links", bearer: adminKey, json: [
                "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()],
            ])
            #expect(link.status == 201)
            #expect(await WebhookTests.eventually { receiver.accepted.contains { $0.type == "link.created" && $0.verified } })
            #expect(try await WebhookTests.eventually { try await WebhookTests.log(daemon, admin: adminKey, id).count == 1 })
            try browser.open(base + "/admin/webhooks/\(id)")
            let log = try ConsoleStatsBrowserTests.rows(browser, "main")
            #expect(log.count == 1)
            #expect(log.first.map { [$0[2], $0[3], $0[4]] } == ["1", "delivered", "204"], "\(log)")
            #expect(log.first?[1].hasPrefix("link.created") == true)
            try ConsoleBrowserTests.capture(browser, "webhook")

            // The receiver answers 410 Gone: the endpoint is gone, so the next event fails it at once. The console says
            // so on the list (a badge and since when) and on its page (what failing means), with the attempt in the log.
            receiver.fail(Int.max, status: 410)
            #expect(try await TestHTTP.send("POST", base + "/v1/links", bearer: adminKey, json: [
                "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()],
            ]).status == 201)
            #expect(try await WebhookTests.eventually {
                try await TestHTTP.send("GET", base + "/v1/admin/webhooks/\(id)", bearer: adminKey).json["failing"] as? Bool == true
            })
            try browser.open(base + "/admin/webhooks")
            #expect(try browser.evaluate("document.querySelector('.webhook-failing')?.textContent") as? String == "failing")
            #expect(try browser.text().contains("since "))
            try ConsoleBrowserTests.capture(browser, "webhooks-failing")
            try browser.open(base + "/admin/webhooks/\(id)")
            #expect(try browser.text().contains("failing: an event failed for good at"))
            let failedLog = try ConsoleStatsBrowserTests.rows(browser, "main")
            #expect(failedLog.count == 2 && failedLog.contains { $0[3].hasPrefix("failed") && $0[3].contains("410") && $0[4] == "410" }, "\(failedLog)")
            try ConsoleBrowserTests.capture(browser, "webhook-failing")
            receiver.fail(0)

            // Disable, then enable again, then delete through its confirmation.
            try browser.clickAndWait("form[action='/admin/webhooks/\(id)/state'] button[type=submit]")
            #expect(try browser.text().contains("The endpoint is disabled"))
            let disabled = try await TestHTTP.send("GET", base + "/v1/admin/webhooks/\(id)", bearer: adminKey)
            #expect(disabled.json["enabled"] as? Bool == false)
            try browser.open(base + "/admin/webhooks")
            #expect(try browser.evaluate("document.querySelector('.webhook-disabled')?.textContent") as? String == "disabled")
            try ConsoleBrowserTests.capture(browser, "webhooks-disabled")
            try browser.open(base + "/admin/webhooks/\(id)")
            try browser.clickAndWait("form[action='/admin/webhooks/\(id)/state'] button[type=submit]")
            #expect(try browser.text().contains("The endpoint is enabled"))
            let enabled = try await TestHTTP.send("GET", base + "/v1/admin/webhooks/\(id)", bearer: adminKey)
            #expect(enabled.json["enabled"] as? Bool == true && enabled.json["failing"] as? Bool == false, "enabling clears failing")
            try browser.clickAndWait("a[href='/admin/webhooks/\(id)/delete']")
            #expect(try browser.text().contains("This cannot be undone"))
            try ConsoleBrowserTests.capture(browser, "webhook-delete-confirm")
            try browser.clickAndWait("form[action='/admin/webhooks/\(id)/delete'] button[type=submit]")
            #expect(try browser.text().contains("Webhook endpoint \(id) is deleted"))
            #expect(try await TestHTTP.send("GET", base + "/v1/admin/webhooks/\(id)", bearer: adminKey).status == 404)

            // A form without the session's token is refused, and changes nothing.
            try browser.open(base + "/admin/webhooks")
            try browser.evaluate("document.querySelector(\"form[action='/admin/webhooks'] input[name=csrf]\").value = 'forged'")
            try browser.fill("#webhook-url", "http://127.0.0.1:\(port)/other")
            try browser.clickAndWait("form[action='/admin/webhooks'] button[type=submit]")
            #expect(try browser.text().contains("security token is missing or wrong"))
            let after = try await TestHTTP.send("GET", base + "/v1/admin/webhooks", bearer: adminKey)
            #expect((after.json["webhooks"] as? [[String: Any]])?.isEmpty == true)

            try browser.open(base + "/admin/audit")
            let audit = try browser.text()
            for action in ["webhook.create", "webhook.update", "webhook.delete"] { #expect(audit.contains(action)) }
        }
    }
}
