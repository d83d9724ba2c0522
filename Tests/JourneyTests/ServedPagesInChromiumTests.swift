import Foundation
import LinkdTestSupport
import Testing

/// The pages `linkd serve` sends to browsers, rendered by headless chromium at a phone's and a desktop's size, the
/// screenshots saved under `artifacts/web/` for a person to look at: a share link's landing and unavailable pages, an
/// app link's landing and 404 pages, the iOS claim page of a deferred link. (chromium needs a real server: the daemon
/// as a process on a real port.)
@Suite("Pages served by linkd, in chromium", .serialized)
struct ServedPagesInChromiumTests {
    @Test("chromium renders the served landing and unavailable pages at a phone's and a desktop's size")
    func browser() async throws {
        let artifacts = LinkdProcess.repositoryRoot.appendingPathComponent("artifacts/web/served")
        // chromium needs a real server: the daemon as a process on a real port.
        let dir = temporaryDataDir()
        let daemon = try LinkdDaemon(dataDir: dir)
        defer { daemon.stop() }
        let admin = try #require(daemon.initialAdminKey)
        let created = try await TestHTTP.send("POST", daemon.baseURL + "/v1/links", bearer: admin, json: [
            "app": "ordentus", "route": "Calendar/EventDetail", "params": ["eventId": "standup"], "title": "Team standup",
        ])
        let token = try #require(created.json["token"] as? String)
        let id = try #require(created.json["id"] as? String)
        /// The screenshot is a PNG as wide as the window.
        func expectScreenshot(_ name: String, size: String) {
            let image = Chromium.pngSize(at: artifacts.appendingPathComponent(name))
            #expect(image?.width == Int(size.split(separator: ",")[0]), "\(name): \(String(describing: image)) for a window of \(size)")
        }
        for (label, size) in [("phone", "390,844"), ("desktop", "1280,800")] {
            let agent = label == "phone" ? UserAgent.android : UserAgent.desktop
            let dom = try Chromium.load(daemon.baseURL + "/s/\(token)", size: size, screenshot: artifacts.appendingPathComponent("landing-\(label).png"), userAgent: agent)
            expectScreenshot("landing-\(label).png", size: size)
            // The QR code is an image the desktop page links to (its encoding costs a page nothing), for desktops only.
            #expect(dom.contains("<img src=\"/s/\(token)/qr.svg\"") == (label == "desktop"), "the QR code is for desktop browsers")
            #expect(dom.contains("<h1>Team standup</h1>"))
            #expect(dom.contains("id=\"open-in-app\""))
            #expect(dom.contains(">Open in Ordentus</a>"))
            #expect(dom.contains("id=\"google-play\""))
            #expect(dom.contains("<meta property=\"og:title\" content=\"Team standup\">"))
        }
        // chromium fetched the desktop page's QR image from the daemon, which answered it (200, its route counted).
        let metrics = String(decoding: try await TestHTTP.send("GET", daemon.baseURL + "/metrics").body, as: UTF8.self)
        let qrFetches = metrics.split(separator: "\n").filter {
            $0.hasPrefix("linkd_http_requests_total{") && $0.contains("route=\"/s/{token}/qr.svg\"") && $0.contains("status=\"200\"")
        }
        #expect(!qrFetches.isEmpty, "no QR image fetched: \(metrics.split(separator: "\n").filter { $0.contains("qr.svg") })")
        _ = try await TestHTTP.send("DELETE", daemon.baseURL + "/v1/links/\(id)", bearer: admin)
        // The Handz share host, reached through chromium's resolver: an unknown token's page (404) is Handz's.
        let port = try #require(daemon.baseURL.split(separator: ":").last.map(String.init))
        let handzHost = ["--host-resolver-rules=MAP links.handz.example 127.0.0.1:\(port)"]
        for (label, size) in [("phone", "390,844"), ("desktop", "1280,800")] {
            let dom = try Chromium.load(daemon.baseURL + "/s/\(token)", size: size, screenshot: artifacts.appendingPathComponent("unavailable-\(label).png"))
            expectScreenshot("unavailable-\(label).png", size: size)
            #expect(dom.contains("This link is no longer available."))
            #expect(dom.contains("<html lang=\"en\">"))
            #expect(dom.contains("id=\"cta\" href=\"https://links.ordentus.example/signin\">Open Ordentus</a>"))
            #expect(dom.contains("id=\"google-play\" href=\"https://play.google.com/store/apps/details?id=com.ordentus.app\""))

            let unknown = try Chromium.load(
                "http://links.handz.example/s/AQAAAAEforged", size: size,
                screenshot: artifacts.appendingPathComponent("unknown-handz-\(label).png"), arguments: handzHost)
            expectScreenshot("unknown-handz-\(label).png", size: size)
            #expect(unknown.contains("This link is no longer available."))
            #expect(unknown.contains("<title>Link unavailable · Handz</title>"))
            #expect(unknown.contains("id=\"cta\" href=\"https://links.handz.example/welcome\">Open Handz</a>"))
            #expect(unknown.contains("id=\"app-store\" href=\"https://apps.apple.com/app/id6470000001\""))
        }
    }

    @Test("Chromium renders an app link's landing page and 404 page, served by the daemon, at a phone's and a desktop's size")
    func appLinkPagesInChromium() async throws {
        let artifacts = LinkdProcess.repositoryRoot.appendingPathComponent("artifacts/web/app-links")
        let daemon = try LinkdDaemon(dataDir: temporaryDataDir())
        defer { daemon.stop() }
        let port = try #require(daemon.baseURL.split(separator: ":").last.map(String.init))
        let handzHost = ["--host-resolver-rules=MAP links.handz.example 127.0.0.1:\(port)"]
        let flow = "http://links.handz.example/flows/3f2504e0-4f89-11d3-9a0c-0305e82c3301"
        for (label, size, agent) in [("phone", "390,844", UserAgent.iPhone), ("desktop", "1280,800", UserAgent.desktop)] {
            let landing = artifacts.appendingPathComponent("landing-\(label).png")
            let dom = try Chromium.load(flow, size: size, screenshot: landing, userAgent: agent, arguments: handzHost)
            #expect(Chromium.pngSize(at: landing)?.width == Int(size.split(separator: ",")[0]))
            #expect(dom.contains("<h1>This link opens in Handz</h1>"))
            #expect(dom.contains(">Open in Handz</a>"))
            #expect(dom.contains("id=\"app-store\""))
            #expect(dom.contains("<svg") == (label == "desktop"), "the QR code is for desktop browsers")
            let notFound = artifacts.appendingPathComponent("not-found-\(label).png")
            let missing = try Chromium.load("http://links.handz.example/no/such/page", size: size, screenshot: notFound, userAgent: agent, arguments: handzHost)
            #expect(Chromium.pngSize(at: notFound)?.width == Int(size.split(separator: ",")[0]))
            #expect(missing.contains("There is no Handz page at this address."))
            #expect(missing.contains("id=\"cta\" href=\"https://links.handz.example/welcome\">Open Handz</a>"))
        }
    }

    @Test("chromium renders the iOS claim page at a phone's size, with its copy button")
    func claimPageInChromium() async throws {
        let artifacts = LinkdProcess.repositoryRoot.appendingPathComponent("artifacts/web/deferred")
        let daemon = try LinkdDaemon(dataDir: temporaryDataDir())
        defer { daemon.stop() }
        let admin = try #require(daemon.initialAdminKey)
        let created = try await TestHTTP.send("POST", daemon.baseURL + "/v1/links", bearer: admin, json: [
            "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()], "title": "Guard pass flow",
        ])
        let token = try #require(created.json["token"] as? String)
        let screenshot = artifacts.appendingPathComponent("claim-ios-phone.png")
        let dom = try Chromium.load(daemon.baseURL + "/s/\(token)/install/ios", size: "390,844", screenshot: screenshot, userAgent: UserAgent.iPhone)
        #expect(Chromium.pngSize(at: screenshot)?.width == 390)
        #expect(dom.contains("<h1>Get Handz</h1>"))
        #expect(dom.contains("<strong>Guard pass flow</strong>"))
        #expect(dom.contains("id=\"claim-link\" href=\"https://links.handz.example/s/\(token)#linkd_claim="))
        // The script ran (the policy let /static/claim.js run): the copy button is shown.
        #expect(dom.contains("id=\"copy-and-go\" type=\"button\" data-claim="), "the button lost its hidden attribute")
        #expect(!dom.contains("id=\"copy-and-go\" type=\"button\" hidden"))
    }
}
