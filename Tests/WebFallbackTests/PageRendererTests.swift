import Foundation
import Testing
@testable import WebFallback

@Suite struct PageRendererTests {
    @Test func outsideStringsAreEscaped() throws {
        let page = try Fixtures.renderer().landing(
            Fixtures.landing(title: "<script>alert(1)</script>\"'&"), for: .iOS)
        #expect(!page.body.contains("<script>"))
        #expect(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.status == 200)
    }

    @Test func landingCarriesMetaTagsAndButtons() throws {
        let body = try Fixtures.renderer().landing(Fixtures.landing(image: "https://cdn.example.com/a.jpg"), for: .iOS).body
        #expect(body.contains("<html lang=\"en\">"))
        #expect(body.contains("<meta name=\"apple-itunes-app\" content=\"app-id=1234567890, app-argument=https://links.example.com/s/AQAAAAEx\">"))
        #expect(body.contains("<link rel=\"canonical\" href=\"https://links.example.com/s/AQAAAAEx\">"))
        #expect(body.contains("<meta property=\"og:image\" content=\"https://cdn.example.com/a.jpg\">"))
        #expect(body.contains("<meta property=\"al:ios:url\" content=\"handz://flow/42\">"))
        #expect(body.contains("<meta property=\"al:android:package\" content=\"com.example.handz\">"))
        #expect(body.contains("Open in Handz"))
        #expect(body.contains("https://apps.apple.com/app/id1234567890"))
        #expect(body.contains("https://play.google.com/store/apps/details?id=com.example.handz"))
        #expect(body.contains("By Ana"))
        #expect(body.contains("Updated September"))
        #expect(!body.contains("<svg"))
    }

    @Test func creatorHiddenUnlessAllowedAndHTTPImagesDropped() throws {
        let body = try Fixtures.renderer().landing(
            Fixtures.landing(allowCreator: false, image: "http://insecure.example.com/a.jpg"), for: .iOS).body
        #expect(!body.contains("Ana"))
        #expect(!body.contains("insecure.example.com"))
    }

    @Test func androidGetsAnIntentLink() throws {
        let body = try Fixtures.renderer().landing(Fixtures.landing(), for: .android).body
        #expect(body.contains(
            "href=\"intent://flow/42#Intent;scheme=handz;package=com.example.handz;"
                + "S.browser_fallback_url=https%3A%2F%2Fplay.google.com%2Fstore%2Fapps%2Fdetails%3Fid%3Dcom.example.handz;end\""))
    }

    @Test func desktopGetsQRCodeAndWebLink() throws {
        let body = try Fixtures.renderer().landing(Fixtures.landing(), for: .desktop).body
        #expect(body.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(body.contains("id=\"web-link\" href=\"https://links.example.com/s/AQAAAAEx\""))
    }

    /// An app-link URL is the client's to vary: its page carries the same QR code, but the code is not kept in the
    /// cache the share links' codes live in (a flood of made-up paths would fill it and push theirs out).
    @Test func madeUpURLsDoNotFillTheQRCache() throws {
        let renderer = try Fixtures.renderer()
        let cached = renderer.landing(Fixtures.landing(), for: .desktop).body
        #expect(renderer.qrCodes.count == 1)
        let uncached = renderer.landing(Fixtures.landing(), for: .desktop, cachingQRCode: false).body
        #expect(renderer.qrCodes.count == 1)
        #expect(uncached == cached, "the same page either way")
    }

    /// What the server sends: on a host an app claims, an unknown token (404) gets that app's page — the body of its
    /// 410 page, with the app's name, call to action and store buttons; on any other host, the page naming no app.
    @Test func unavailableLooksTheSameForGoneAndUnknown() throws {
        let renderer = try Fixtures.renderer()
        let cta = CallToAction(label: "Open Handz", url: "https://links.handz.example/welcome")
        let gone = renderer.unavailable(UnavailablePage(app: Fixtures.handz, reason: .gone, callToAction: cta))
        let unknown = renderer.unavailable(UnavailablePage(app: Fixtures.handz, reason: .unknown, callToAction: cta))
        #expect(gone.status == 410)
        #expect(unknown.status == 404)
        #expect(gone.body == unknown.body)
        #expect(gone.body.contains("This link is no longer available."))
        #expect(gone.body.contains("<title>Link unavailable · Handz</title>"))
        #expect(gone.body.contains("id=\"cta\" href=\"https://links.handz.example/welcome\">Open Handz</a>"))
        #expect(gone.body.contains("id=\"app-store\" href=\"https://apps.apple.com/app/id1234567890\""))
        #expect(gone.body.contains("id=\"google-play\""))

        let withoutApp = renderer.unavailable(UnavailablePage(app: nil, reason: .unknown))
        #expect(withoutApp.status == 404)
        #expect(withoutApp.body.contains("This link is no longer available."))
        #expect(!withoutApp.body.contains("id=\"cta\"") && !withoutApp.body.contains("id=\"app-store\""))
        #expect(withoutApp.body == renderer.unavailable(UnavailablePage(app: nil, reason: .gone)).body)
    }

    /// The manifest's `share.message` is the headline, escaped, on the 410 and the 404 page alike; without one (nil
    /// or empty) the fixed text stands.
    @Test func unavailableShowsTheManifestsMessageEscaped() throws {
        let renderer = try Fixtures.renderer()
        let message = "Dieser Link ist <b>nicht</b> mehr verfügbar & weg."
        let gone = renderer.unavailable(UnavailablePage(app: Fixtures.handz, reason: .gone, message: message))
        let unknown = renderer.unavailable(UnavailablePage(app: Fixtures.handz, reason: .unknown, message: message))
        #expect(gone.body.contains("<h1 id=\"message\">Dieser Link ist &lt;b&gt;nicht&lt;/b&gt; mehr verfügbar &amp; weg.</h1>"))
        #expect(!gone.body.contains("<b>nicht</b>"))
        #expect(!gone.body.contains("This link is no longer available."))
        #expect(gone.body == unknown.body, "the 404 page is still the 410 page's body")
        for fallback in [nil, ""] as [String?] {
            let page = renderer.unavailable(UnavailablePage(app: Fixtures.handz, reason: .gone, message: fallback))
            #expect(page.body.contains("<h1 id=\"message\">This link is no longer available.</h1>"), "\(String(describing: fallback))")
        }
    }

    @Test func badgesShowTheManifestsTextsEscaped() throws {
        var app = Fixtures.handz
        app.badges = ["privateUpload": "Private upload - not shared via link.", "odd": "<i>odd</i>"]
        var page = Fixtures.landing()
        page.app = app
        page.preview?.badges = ["unknownBadge", "privateUpload", "odd", "privateUpload"]
        let body = try Fixtures.renderer().landing(page, for: .iOS).body
        #expect(body.contains(
            "<ul class=\"badges\"><li class=\"badge\" data-badge=\"privateUpload\">Private upload - not shared via link.</li>"
                + "<li class=\"badge\" data-badge=\"odd\">&lt;i&gt;odd&lt;/i&gt;</li></ul>"),
            "known ids once each, in the origin's order, texts escaped")
        #expect(!body.contains("unknownBadge"))

        page.preview?.badges = ["unknownBadge"]
        #expect(!(try Fixtures.renderer().landing(page, for: .iOS).body.contains("class=\"badges\"")), "nothing known, no list")
        page.preview?.badges = Array(repeating: "x", count: 8) + ["privateUpload"]
        #expect(!(try Fixtures.renderer().landing(page, for: .iOS).body.contains("Private upload")), "past the cap, ids are ignored")
    }

    @Test func appTemplateOverridesOneAppOnly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("linkd-templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("<p id=\"custom\">{{appName}}: {{title}}</p>".utf8).write(to: directory.appendingPathComponent("landing.mustache"))
        let renderer = try PageRenderer(configuration: PageConfiguration(
            directory: Fixtures.templatesDirectory, appDirectories: ["handz": directory.path]))

        let handz = renderer.landing(Fixtures.landing(title: "<b>Flow</b>"), for: .iOS)
        #expect(handz.body == "<p id=\"custom\">Handz: &lt;b&gt;Flow&lt;/b&gt;</p>", "the override, still escaping")
        var other = Fixtures.landing()
        other.app = AppPageInfo(appID: "coin", displayName: "COIN")
        let coin = renderer.landing(other, for: .iOS).body
        #expect(coin.hasPrefix("<!DOCTYPE html>") && coin.contains(">Open in COIN</a>"), "another app keeps the default")
        // The override directory has no unavailable.mustache: Handz falls back to the default for it.
        let gone = renderer.unavailable(UnavailablePage(app: Fixtures.handz, reason: .gone))
        #expect(gone.body.contains("This link is no longer available.") && !gone.body.contains("id=\"custom\""))

        try Data("{{#broken}}unclosed".utf8).write(to: directory.appendingPathComponent("unavailable.mustache"))
        #expect(throws: PageError.self) {
            try PageRenderer(configuration: PageConfiguration(directory: Fixtures.templatesDirectory, appDirectories: ["handz": directory.path]))
        }
    }

    @Test func securityHeaders() throws {
        let page = try Fixtures.renderer().landing(Fixtures.landing(), for: .desktop)
        let headers = Dictionary(page.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        let csp = try #require(headers["Content-Security-Policy"])
        #expect(csp.contains("default-src 'none'"))
        #expect(csp.contains("frame-ancestors 'none'"))
        #expect(!csp.contains("script-src"))
        #expect(headers["X-Content-Type-Options"] == "nosniff")
        #expect(headers["Referrer-Policy"] == "no-referrer")
        #expect(headers["Cache-Control"] == "no-store")
    }

    @Test func missingTemplatesDirectoryIsAClearError() {
        #expect(throws: PageError.self) { try PageRenderer(configuration: PageConfiguration(directory: "/nonexistent")) }
    }

    @Test(arguments: [
        ("Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", UserAgentKind.crawler),
        ("Twitterbot/1.0", .crawler),
        ("facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", .crawler),
        ("WhatsApp/2.23.20.0", .crawler),
        ("Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", .crawler),
        ("LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)", .crawler),
        ("TelegramBot (like TwitterBot)", .crawler),
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", .crawler),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148", .iOS),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36", .android),
        ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36", .desktop),
    ])
    func userAgents(agent: String, kind: UserAgentKind) {
        #expect(UserAgentKind(userAgent: agent) == kind)
        #expect(UserAgentKind(userAgent: agent).isCrawler == (kind == .crawler))
    }
}
