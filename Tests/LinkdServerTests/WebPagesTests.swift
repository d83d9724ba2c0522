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
/// The well-known files per host and the pages in chromium, against `linkd serve`: JourneyTests' `WellKnownFilesTests`
/// and `ServedPagesInChromiumTests`.
@Suite("Web fallback served by linkd", .serialized)
struct WebPagesTests {
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
        _ method: String = "GET", port: Int, _ path: String, host: String, agent: String = UserAgent.desktop, close: Bool = false
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

    static func open(_ api: API, _ path: String, agent: String = UserAgent.desktop) async throws -> Reply {
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

            let iOS = try await Self.open(api, "/s/\(token)", agent: UserAgent.iPhone)
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

            let android = try await Self.open(api, "/s/\(token)", agent: UserAgent.android)
            #expect(android.text.contains("intent://s/\(token)#Intent;scheme=ordentus;package=com.ordentus.app;S.browser_fallback_url="))
            #expect(android.text.contains("id=\"google-play\""))

            let desktop = try await Self.open(api, "/s/\(token)", agent: UserAgent.desktop)
            // The desktop page links to its QR code rather than carrying it: the page costs no QR encoding.
            #expect(desktop.text.contains("<img src=\"/s/\(token)/qr.svg\" width=\"192\" height=\"192\" alt=\"QR code of this link\">"))
            #expect(!desktop.text.contains("<svg"))
            #expect(desktop.text.contains("id=\"web-link\""))

            let crawler = try await Self.open(api, "/s/\(token)", agent: UserAgent.crawler)
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
            for agent in [UserAgent.iPhone, UserAgent.desktop] {
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
}
