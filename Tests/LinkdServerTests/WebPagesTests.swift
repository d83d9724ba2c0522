import Foundation
import HTTPTypes
import HummingbirdTesting
import LinkRouter
import LinkdTestSupport
import Testing

@testable import LinkdHTTP
@testable import LinkdServer

/// What browsers get from the share path, against the live server, with the Ordentus preview origin served by a
/// real HTTP server on loopback (`LoopbackOrigin`: `/items/ok…` a preview, `slow`, `missing`, `big`, `away`…).
@Suite("Web fallback served by linkd", .serialized)
struct WebPagesTests {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
    static let crawler = "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"

    /// The example manifests with Ordentus's origin moved to `baseURL` and `/items/:eventId`.
    static func manifests(originBaseURL: String) throws -> [String] {
        try manifests(moving: "ordentus", originTo: originBaseURL, previewPath: "/items/:eventId")
    }

    /// The example manifests with Handz's origin moved to `baseURL` and `/items/badges/:flowId` (a preview listing
    /// badges, `LoopbackOrigin`).
    static func handzBadgeManifests(originBaseURL: String) throws -> [String] {
        try manifests(moving: "handz", originTo: originBaseURL, previewPath: "/items/badges/:flowId")
    }

    /// The example manifests with `app`'s origin (`examples/APP.yaml`) moved to `baseURL` and `previewPath`.
    static func manifests(moving app: String, originTo baseURL: String, previewPath: String) throws -> [String] {
        let file = "\(app).yaml"
        let text = try String(contentsOfFile: exampleManifests.first { $0.hasSuffix(file) }!, encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        for index in lines.indices {
            if lines[index].hasPrefix("  baseURL:") { lines[index] = "  baseURL: \(baseURL)" }
            if lines[index].hasPrefix("  previewPath:") { lines[index] = "  previewPath: \(previewPath)" }
        }
        let path = temporaryDataDir() + "-" + file
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return exampleManifests.filter { !$0.hasSuffix(file) } + [path]
    }

    /// `method path` (no body) with `Host: host` and `User-Agent: agent` over a raw connection, as a browser sends
    /// it: through the event-loop fast path, or with `Connection: close` through Hummingbird's router.
    static func rawRequest(
        _ method: String = "GET", port: Int, _ path: String, host: String, agent: String = desktop, close: Bool = false
    ) async throws -> RawConnection.Response {
        let connection = try RawConnection(port: port)
        try await connection.send("\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nUser-Agent: \(agent)\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n")
        return try await connection.read()
    }

    /// `token` with its key id (bytes 1–4) replaced by `kid`: a token signed by a key this server never had.
    static func withKeyID(_ token: String, _ kid: UInt32) throws -> String {
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard var bytes = Data(base64Encoded: base64).map(Array.init), bytes.count > 5 else { throw HarnessError("not a token: \(token)") }
        for index in 0..<4 { bytes[1 + index] = UInt8(truncatingIfNeeded: kid >> (24 - 8 * UInt32(index))) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// An Ordentus share link of `Calendar/EventDetail` whose origin item is `eventId`; returns (id, token).
    static func link(_ api: API, key: String, eventId: String) async throws -> (String, String) {
        let reply = try await api.call(.post, "/v1/links", key: key, json: ["route": "Calendar/EventDetail", "params": ["eventId": eventId], "title": "Standup"])
        guard reply.status == 201, let id = reply.string("id"), let token = reply.string("token") else {
            throw HarnessError("cannot create a link: \(reply.text)")
        }
        return (id, token)
    }

    static func open(_ api: API, _ path: String, agent: String = desktop) async throws -> Reply {
        try await api.call(.get, path, headers: [.userAgent: agent])
    }

    @Test("a valid link gets the landing page shaped for iOS, Android, desktop and crawlers; crawlers count no click")
    func landingPages() async throws {
        let origin = try LoopbackOrigin()
        let manifests = try Self.manifests(originBaseURL: "http://127.0.0.1:\(origin.port)")
        // A generous preview wait: the origin answers at once, but a machine busy with the rest of the suite may not.
        try await withAPI({ $0.links.manifests = manifests; $0.pages.previewWaitMilliseconds = 5000 }) { api in
            let key = try await api.clientKey(app: "ordentus")
            let (id, token) = try await Self.link(api, key: key, eventId: "ok-1")

            let iOS = try await Self.open(api, "/s/\(token)", agent: Self.iPhone)
            #expect(iOS.status == 200)
            #expect(iOS.headers[.contentType] == "text/html; charset=utf-8")
            #expect(iOS.headers[.cacheControl] == "no-store")
            #expect(iOS.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("script-src") == false)
            #expect(iOS.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("frame-ancestors 'none'") == true)
            #expect(iOS.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(iOS.text.contains("id=\"open-in-app\" href=\"ordentus://s/\(token)\""))
            #expect(iOS.text.contains("<link rel=\"canonical\" href=\"https://links.ordentus.example/s/\(token)\">"))
            // The origin's title holds <script>: it is text, never markup.
            #expect(iOS.text.contains("Morning &lt;script&gt;x&lt;/script&gt;"))
            #expect(!iOS.text.contains("<script"))

            let android = try await Self.open(api, "/s/\(token)", agent: Self.android)
            #expect(android.text.contains("intent://s/\(token)#Intent;scheme=ordentus;package=com.ordentus.app;S.browser_fallback_url="))
            #expect(android.text.contains("id=\"google-play\""))

            let desktop = try await Self.open(api, "/s/\(token)", agent: Self.desktop)
            #expect(desktop.text.contains("<svg"))
            #expect(desktop.text.contains("id=\"web-link\""))

            let crawler = try await Self.open(api, "/s/\(token)", agent: Self.crawler)
            #expect(crawler.status == 200)
            #expect(crawler.text.contains("<meta property=\"og:title\" content=\"Morning &lt;script&gt;x&lt;/script&gt;\">"))
            #expect(crawler.text.contains("<meta property=\"al:android:package\" content=\"com.ordentus.app\">"))

            let inspected = try await api.call(.get, "/v1/links/\(id)", key: key)
            #expect(inspected.json["clicks"] as? Int == 3, "iOS, Android and desktop count; the crawler does not")

            let qr = try await Self.open(api, "/s/\(token)/qr.svg")
            #expect(qr.status == 200 && qr.headers[.contentType] == "image/svg+xml" && qr.text.hasPrefix("<svg"))
            let css = try await api.call(.get, "/static/linkd.css")
            #expect(css.status == 200 && css.headers[.contentType] == "text/css; charset=utf-8" && !css.text.isEmpty)
        }
        origin.stop()
    }

    @Test("revoked links get 410, unknown tokens one identical 404 page, whatever is wrong with them")
    func unavailablePages() async throws {
        try await withAPI { api in
            let key = try await api.clientKey(app: "ordentus")
            let (id, token) = try await Self.link(api, key: key, eventId: "standup")
            #expect(try await api.call(.delete, "/v1/links/\(id)", key: key).status == 200)
            let gone = try await Self.open(api, "/s/\(token)")
            #expect(gone.status == 410)
            #expect(gone.text.contains("This link is no longer available."))
            #expect(gone.headers[.cacheControl] == "no-store")
            #expect(gone.text.contains("<html lang=\"en\">"))
            #expect(try await Self.open(api, "/s/\(token)/qr.svg").status == 410)

            var forged = Array(token)
            forged[forged.count - 3] = forged[forged.count - 3] == "A" ? "B" : "A"
            let otherServerToken = "AQAAAAGgoaKjpKWmp6ipqqusra6va1MMgAAAAAEAq5IZDZVVoWrxSYEmmGHjvK4_huJ3Sqw8bFS7FNgvMQs"
            var bodies = Set<String>()
            for candidate in ["abc", String(forged), otherServerToken, String(repeating: "A", count: 300)] {
                let reply = try await Self.open(api, "/s/\(candidate)")
                #expect(reply.status == 404, "\(candidate)")
                #expect(reply.headers[HTTPField.Name("Content-Security-Policy")!] != nil)
                bodies.insert(reply.text)
                #expect(try await Self.open(api, "/s/\(candidate)/qr.svg").status == 404)
            }
            #expect(bodies.count == 1, "malformed, forged and unknown-key tokens must be indistinguishable")
            #expect(bodies.first?.contains("This link is no longer available.") == true)
        }
    }

    @Test("on an app's share host, malformed, forged and unknown-key tokens get one 404 page: the body of the app's 410 page")
    func unknownTokensOnAShareHost() async throws {
        try await withAPI { api in
            let port = try #require(api.client.port)
            let key = try await api.clientKey(app: "handz")
            let link = try await api.createHandzLink(key: key)
            let token = try #require(link["token"] as? String)
            let id = try #require(link["id"] as? String)
            let live = try await Self.rawRequest(port: port, "/s/\(token)", host: "links.handz.example")
            #expect(live.status == 200)
            #expect(try await api.call(.delete, "/v1/links/\(id)", key: key).status == 200)
            let gone = try await Self.rawRequest(port: port, "/s/\(token)", host: "links.handz.example")
            #expect(gone.status == 410)
            #expect(gone.text.contains("<title>Link unavailable · Handz</title>"))
            #expect(gone.text.contains("id=\"cta\" href=\"https://links.handz.example/welcome\">Open Handz</a>"))
            #expect(gone.text.contains("id=\"app-store\" href=\"https://apps.apple.com/app/id6470000001\""))

            var forged = Array(token)
            forged[forged.count - 3] = forged[forged.count - 3] == "A" ? "B" : "A"
            let unknownKey = try Self.withKeyID(token, 0x7FFF_FFF0)
            #expect(keyID(ofToken: unknownKey) == 0x7FFF_FFF0)
            let ordentus = try await Self.link(api, key: try await api.clientKey(app: "ordentus"), eventId: "e1").1
            let tokens = ["abc", String(forged), unknownKey, String(repeating: "A", count: 300), ordentus]
            for candidate in tokens {
                for (host, close) in [("links.handz.example", false), ("links.handz.example", true), ("LINKS.handz.example:443", false)] {
                    let reply = try await Self.rawRequest(port: port, "/s/\(candidate)", host: host, close: close)
                    #expect(reply.status == 404, "\(candidate) on \(host)")
                    #expect(reply.body == gone.body, "\(candidate) on \(host), close \(close): not the 410 page's body")
                    let headers = { (r: RawConnection.Response) in
                        r.headers.filter { !["date", "connection"].contains($0.name.lowercased()) }.map { "\($0.name): \($0.value)" }
                    }
                    #expect(headers(reply) == headers(gone), "\(candidate) on \(host): headers differ")
                }
            }
            // A host no app claims gets the page naming no app, the same for every token.
            let elsewhere = try await Self.rawRequest(port: port, "/s/abc", host: "127.0.0.1")
            #expect(elsewhere.status == 404 && !elsewhere.text.contains("id=\"cta\"") && !elsewhere.text.contains("Handz"))
            #expect(try await Self.rawRequest(port: port, "/s/\(unknownKey)", host: "127.0.0.1").body == elsewhere.body)
            // Ordentus's host gets Ordentus's page.
            let other = try await Self.rawRequest(port: port, "/s/abc", host: "links.ordentus.example")
            #expect(other.status == 404 && other.text.contains("id=\"cta\" href=\"https://links.ordentus.example/signin\""))
        }
    }

    @Test("badges the origin lists show with the manifest's text; unknown ids are ignored")
    func badgesFromTheOrigin() async throws {
        let origin = try LoopbackOrigin()
        let manifests = try Self.handzBadgeManifests(originBaseURL: "http://127.0.0.1:\(origin.port)")
        try await withAPI({ $0.links.manifests = manifests; $0.pages.previewWaitMilliseconds = 5000 }) { api in
            let link = try await api.createHandzLink(key: try await api.clientKey(app: "handz"))
            let token = try #require(link["token"] as? String)
            for agent in [Self.iPhone, Self.desktop] {
                let page = try await Self.open(api, "/s/\(token)", agent: agent)
                #expect(page.status == 200)
                #expect(page.text.contains("<h1>Guard pass flow</h1>"))
                #expect(page.text.contains(
                    "<ul class=\"badges\"><li class=\"badge\" data-badge=\"privateUpload\">Private upload - not shared via link.</li></ul>"))
                #expect(!page.text.contains("unknownBadge"))
            }
        }
        origin.stop()
    }

    @Test("the origin decides deleted (410); slow, down, oversized or redirecting origins give the page without a preview")
    func originOutcomes() async throws {
        let origin = try LoopbackOrigin()
        let manifests = try Self.manifests(originBaseURL: "http://127.0.0.1:\(origin.port)")
        try await withAPI({ $0.links.manifests = manifests; $0.pages.previewWaitMilliseconds = 1500 }) { api in
            let key = try await api.clientKey(app: "ordentus")
            let (deletedID, deleted) = try await Self.link(api, key: key, eventId: "missing-1")
            let page = try await Self.open(api, "/s/\(deleted)")
            #expect(page.status == 410 && page.text.contains("This link is no longer available."))
            #expect(try await api.call(.get, "/v1/links/\(deletedID)", key: key).json["clicks"] as? Int == 0)

            for item in ["slow-1", "big-1", "away-1", "badjson-1", "error-1"] {
                let (_, token) = try await Self.link(api, key: key, eventId: item)
                let started = Date()
                let reply = try await Self.open(api, "/s/\(token)")
                #expect(reply.status == 200, "\(item)")
                // No origin title; the link's own title stands in.
                #expect(reply.text.contains("<h1>Standup</h1>"), "\(item)")
                #expect(Date().timeIntervalSince(started) < 2.5, "\(item): the page waited for the origin")
            }
        }
        origin.stop()
        // An origin that is down.
        let closed = try Self.manifests(originBaseURL: "http://127.0.0.1:9")
        try await withAPI({ $0.links.manifests = closed }) { api in
            let key = try await api.clientKey(app: "ordentus")
            let (_, token) = try await Self.link(api, key: key, eventId: "ok-2")
            let reply = try await Self.open(api, "/s/\(token)")
            #expect(reply.status == 200 && reply.text.contains("<h1>Standup</h1>"))
        }
    }

    @Test("apple-app-site-association and assetlinks.json per host cover exactly the paths linkd resolves there")
    func wellKnownFiles() async throws {
        let router = try ServerBootstrap.loadRouter(exampleManifests, environment: [:])
        // The Host header decides the file: the daemon as a process, asked through libcurl with each host.
        let daemon = try LinkdDaemon(dataDir: temporaryDataDir())
        defer { daemon.stop() }
        func get(_ path: String, host: String) async throws -> (status: Int, type: String?, body: Data) {
            let reply = try await TestHTTP.send("GET", daemon.baseURL + path, headers: ["Host": host])
            return (reply.status, reply.headers["content-type"], reply.body)
        }
        for manifest in router.manifests {
            for host in Set(manifest.hosts + manifest.shareHosts) {
                let aasa = try await get("/.well-known/apple-app-site-association", host: host)
                #expect(aasa.status == 200 && aasa.type == "application/json", "\(host)")
                #expect(aasa.body.count < 128 * 1024)
                let document = try JSONSerialization.jsonObject(with: aasa.body) as? [String: Any]
                let details = (document?["applinks"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
                #expect(details.first?["appIDs"] as? [String] == manifest.iosAppIDs, "\(host)")
                #expect((document?["webcredentials"] != nil) == manifest.iosWebCredentials)
                // iOS's reading of the served file (components in order, first match wins, excludes).
                let matcher = try AppleLinkMatcher(json: aasa.body)

                for path in Self.samplePaths(manifest) {
                    let resolution = router.resolve(url: "https://\(host)\(path)", state: manifest.unauthenticatedState, app: nil) { _ in .unknown }
                    let resolves = resolution.problem?.code != .noMatch
                    #expect(resolves, "\(host)\(path) should resolve")
                    #expect(matcher.opensInApp(path: path) == resolves, "\(host)\(path): AASA \(matcher.details)")
                    #expect(!matcher.opensInApp(path: path + "/extra/segments"), "\(host)\(path)/extra/segments is covered")
                }
                let stray = "/zz-not-a-route/\(UUID().uuidString)"
                #expect(router.resolve(url: "https://\(host)\(stray)", state: manifest.unauthenticatedState, app: nil) { _ in .unknown }.problem?.code == .noMatch)
                #expect(!matcher.opensInApp(path: stray), "\(host): AASA covers a path linkd does not resolve")

                let links = try await get("/.well-known/assetlinks.json", host: host)
                #expect(links.status == 200 && links.type == "application/json")
                let statements = try JSONSerialization.jsonObject(with: links.body) as? [[String: Any]] ?? []
                if let package = manifest.androidPackage {
                    let target = statements.first?["target"] as? [String: Any]
                    #expect(target?["package_name"] as? String == package)
                    #expect(target?["sha256_cert_fingerprints"] as? [String] == manifest.androidFingerprints)
                    #expect(statements.first?["relation"] as? [String] == ["delegate_permission/common.handle_all_urls"])
                    // Android 15+'s reading of the served rules (decoded path, first match wins, no match: the browser).
                    let android = try AndroidLinkMatcher(json: links.body)
                    for path in Self.samplePaths(manifest) {
                        #expect(android.opensInApp(package: package, path: path) == true, "\(host)\(path)")
                        #expect(android.opensInApp(package: package, path: path + "/extra/segments") == false, "\(host)\(path)/extra/segments")
                    }
                    #expect(android.opensInApp(package: package, path: stray) == false)
                } else {
                    #expect(statements.isEmpty)
                }
            }
        }
        #expect(try await get("/.well-known/apple-app-site-association", host: "evil.example").status == 404)
        #expect(try await get("/.well-known/assetlinks.json", host: "links.handz.example:443").status == 200)
    }

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
            let agent = label == "phone" ? Self.android : Self.desktop
            let dom = try Chromium.load(daemon.baseURL + "/s/\(token)", size: size, screenshot: artifacts.appendingPathComponent("landing-\(label).png"), userAgent: agent)
            expectScreenshot("landing-\(label).png", size: size)
            #expect(dom.contains("<svg") == (label == "desktop"), "the QR code is for desktop browsers")
            #expect(dom.contains("<h1>Team standup</h1>"))
            #expect(dom.contains("id=\"open-in-app\""))
            #expect(dom.contains(">Open in Ordentus</a>"))
            #expect(dom.contains("id=\"google-play\""))
            #expect(dom.contains("<meta property=\"og:title\" content=\"Team standup\">"))
        }
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

    /// One path per route pattern (and the share path), with sample values of each param's type.
    static func samplePaths(_ manifest: AppManifest) -> [String] {
        var patterns = manifest.routeOrder.flatMap { manifest.routes[$0]?.patterns ?? [] }
        if let share = manifest.share { patterns.append(share.path) }
        return patterns.map { pattern in
            "/" + pattern.split(separator: "/").map { segment -> String in
                var text = String(segment)
                if text.hasSuffix("?") { text.removeLast() }
                if text.hasPrefix("*") { return "a/b" }
                guard text.hasPrefix(":") else { return text }
                if text.hasSuffix("(uuid)") { return "3f2504e0-4f89-11d3-9a0c-0305e82c3301" }
                if text.hasSuffix("(int)") { return "42" }
                if text.hasSuffix("(slug)") { return "a-slug" }
                return "abc"
            }.joined(separator: "/")
        }
    }

}
