import Foundation
import HTTPTypes
import HummingbirdTesting
import LinkRouter
import LinkdTestSupport
import NIOCore
import NIOHTTP1
import Testing

@testable import LinkdHTTP
@testable import LinkdServer

/// The event-loop fast path (`EdgeHandler`): what it answers must be what Hummingbird answers, in order, with
/// rate limits and metrics counted once. A request with `Connection: close` always goes to Hummingbird, which
/// makes the reference answer for the same request.
@Suite("Event-loop fast path")
struct FastPathTests {
    /// The value of an unlabelled counter (or a labelled series, given in full) in `/metrics`.
    static func metric(_ api: API, _ series: String) async throws -> Double {
        let text = try await api.call(.get, "/metrics").text
        let line = text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    static func get(_ path: String, agent: String? = nil, close: Bool = false) -> String {
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (agent.map { "User-Agent: \($0)\r\n" } ?? "")
            + (close ? "Connection: close\r\n" : "") + "\r\n"
    }

    static func post(_ path: String, json: String, contentType: String = "application/json", close: Bool = false) -> String {
        "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(contentType)\r\nContent-Length: \(json.utf8.count)\r\n"
            + (close ? "Connection: close\r\n" : "") + "\r\n" + json
    }

    static func encoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
    }

    @Test("answers from the event loop are Hummingbird's answers, byte for byte (but the Date)")
    func sameAnswers() async throws {
        let origin = try LoopbackOrigin()
        let manifests = try WebPagesTests.manifests(originBaseURL: "http://127.0.0.1:\(origin.port)")
        try await withAPI({ $0.links.manifests = manifests; $0.pages.previewWaitMilliseconds = 5000 }) { api in
            let port = try #require(api.client.port)
            let ordentus = try await api.clientKey(app: "ordentus")
            let (_, token) = try await WebPagesTests.link(api, key: ordentus, eventId: "ok-1")
            let (goneID, goneToken) = try await WebPagesTests.link(api, key: ordentus, eventId: "ok-2")
            #expect(try await api.call(.delete, "/v1/links/\(goneID)", key: ordentus).status == 200)
            let handz = try await api.createHandzLink(key: try await api.clientKey(app: "handz"))
            let shareURL = try #require(handz["url"] as? String)
            let handzShortURL = try #require(handz["shortURL"] as? String)
            // Short ids: a live link's, a revoked one's, and one no link has (answered from the negative cache).
            var shorts: [String] = []
            for event in ["ok-3", "ok-4"] {
                let reply = try await api.call(.post, "/v1/links", key: ordentus, json: ["route": "Calendar/EventDetail", "params": ["eventId": event]])
                shorts.append(ShortLinkTests.shortID(try #require(reply.string("shortURL"))))
                if event == "ok-4" { #expect(try await api.call(.delete, "/v1/links/\(try #require(reply.string("id")))", key: ordentus).status == 200) }
            }
            let requests = [
                Self.get("/healthz"),
                Self.get("/v1/resolve?url=\(Self.encoded(shareURL))&state=free"),
                Self.get("/v1/resolve?url=handz%3A%2F%2Flibrary&state=pro"),
                Self.get("/v1/resolve?url=https%3A%2F%2Fnowhere.example%2Fx"),
                Self.get("//v1//resolve?url=handz%3A%2F%2Flibrary&state=free&app=handz"),
                Self.post("/v1/resolve", json: #"{"url":"\#(shareURL)","state":"free"}"#),
                Self.post("/v1/resolve", json: #"{"url":"handz://library","state":null}"#, contentType: "application/json; charset=utf-8"),
                Self.get("/s/\(token)", agent: UserAgent.desktop),
                Self.get("/s/\(token)", agent: UserAgent.iPhone),
                Self.get("/s/\(token)", agent: UserAgent.crawler),
                Self.get("/s/\(token)"),
                Self.get("/s/\(goneToken)", agent: UserAgent.android),
                Self.get("/s/AAAA"),
                Self.get("/s/\(shorts[0])", agent: UserAgent.desktop),
                Self.get("/s/\(shorts[0])", agent: UserAgent.iPhone),
                Self.get("/s/\(shorts[0])", agent: UserAgent.android),
                Self.get("/s/\(shorts[1])", agent: UserAgent.android),
                Self.get("/s/ZZZZZZZZZZZ"),
                Self.get("/v1/resolve?url=\(Self.encoded(handzShortURL))&state=free"),
                Self.post("/v1/resolve", json: #"{"url":"\#(handzShortURL)","state":"free"}"#),
            ]
            // Warm the caches (link records, previews, rendered pages) through the reference path.
            for request in requests {
                let warm = try RawConnection(port: port)
                try await warm.send(request.replacingOccurrences(of: "Host: 127.0.0.1\r\n", with: "Host: 127.0.0.1\r\nConnection: close\r\n"))
                _ = try await warm.read()
            }
            let before = try await Self.metric(api, "linkd_fast_path_answers_total")
            let fast = try RawConnection(port: port)
            for request in requests {
                try await fast.send(request)
                let answered = try await fast.read()
                let reference = try RawConnection(port: port)
                try await reference.send(request.replacingOccurrences(of: "Host: 127.0.0.1\r\n", with: "Host: 127.0.0.1\r\nConnection: close\r\n"))
                let expected = try await reference.read()
                #expect(answered.comparable == expected.comparable, "\(request)")
                #expect(answered.header("Date") != nil && answered.header("Server") == "linkd")
            }
            let after = try await Self.metric(api, "linkd_fast_path_answers_total")
            #expect(after - before == Double(requests.count), "every keep-alive request above is answered from memory")
            #expect(after > 0)
        }
    }

    @Test("pipelined requests get their answers in order, whichever path answers each")
    func pipelining() async throws {
        try await withAPI { api in
            let connection = try RawConnection(port: try #require(api.client.port))
            try await connection.send(
                Self.get("/v1/resolve?url=handz%3A%2F%2Flibrary&state=free") + Self.get("/v1/links/00") + Self.get("/healthz")
                    + Self.get("/readyz") + Self.post("/v1/resolve", json: #"{"url":"handz://library"}"#) + Self.get("/healthz"))
            var answers: [RawConnection.Response] = []
            for _ in 0..<6 { answers.append(try await connection.read()) }
            #expect(answers.map(\.status) == [200, 401, 200, 200, 200, 200])
            #expect(answers[0].text.contains(#""outcome":"route""#))
            #expect(answers[1].text.contains("unauthorized"))
            #expect(answers[2].text == #"{"status":"ok"}"#)
            #expect(answers[3].text == #"{"status":"ready"}"#)
            #expect(answers[4].text.contains(#""outcome":"intercept""#))  // no state: the sign-in gate
            #expect(answers[5].text == #"{"status":"ok"}"#)
        }
    }

    @Test("a request is charged once against the rate limit, whichever path answers it; metrics count both paths")
    func rateLimitAndMetrics() async throws {
        try await withAPI({ $0.limits.rateLimitPerSecond = 0.01; $0.limits.rateLimitBurst = 5 }) { api in
            let connection = try RawConnection(port: try #require(api.client.port))
            let series = #"linkd_http_requests_total{method="GET",route="/v1/resolve",status="200"}"#
            let before = try await Self.metric(api, series)
            var statuses: [Int] = []
            for _ in 0..<3 {
                try await connection.send(Self.get("/v1/resolve?url=handz%3A%2F%2Flibrary&state=free"))
                statuses.append(try await connection.read().status)
            }
            for _ in 0..<2 {  // the fast path leaves these to Hummingbird, which answers 415
                try await connection.send(Self.post("/v1/resolve", json: "url=x", contentType: "text/plain"))
                statuses.append(try await connection.read().status)
            }
            try await connection.send(Self.get("/v1/resolve?url=handz%3A%2F%2Flibrary&state=free"))
            let limited = try await connection.read()
            statuses.append(limited.status)
            #expect(statuses == [200, 200, 200, 415, 415, 429])
            // Retry-After: when the bucket has a token again — 100 s at one per 100 s, less what has passed.
            #expect(limited.text.contains("rate_limited") && (90...100).contains(Int(limited.header("Retry-After") ?? "") ?? 0))
            #expect(try await Self.metric(api, series) - before == 3)
            #expect(try await Self.metric(api, "linkd_fast_path_answers_total") == 3)
        }
    }

    @Test("oversized, closing and unusual requests go to Hummingbird")
    func handedOn() async throws {
        try await withAPI { api in
            let port = try #require(api.client.port)
            let big = try RawConnection(port: port)
            let url = "handz://library?pad=" + String(repeating: "a", count: ResolveRoutes.maxResolveBodyBytes)
            try await big.send(Self.post("/v1/resolve", json: #"{"url":"\#(url)"}"#))
            let tooLarge = try await big.read()
            #expect(tooLarge.status == 413 && tooLarge.text.contains("payload_too_large"))

            let closing = try RawConnection(port: port)
            try await closing.send(Self.get("/healthz", close: true))
            #expect(try await closing.read().status == 200)
            #expect(await closing.isClosedByServer())

            let other = try RawConnection(port: port)
            try await other.send("PUT /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n" + Self.get("/v1/resolve?state=free"))
            #expect(try await other.read().status >= 400)
            let missing = try await other.read()
            #expect(missing.status == 400 && missing.text.contains("missing query parameter 'url'"))
            #expect(try await Self.metric(api, "linkd_fast_path_answers_total") == 0)
        }
    }

    @Test("a share page's campaign and referring host are counted the same whichever path answers it")
    func sourcesOnBothPaths() async throws {
        try await withAPI({ $0.store.clickFlushSeconds = 0.1 }) { api in
            let link = try await DeferredLinkTests.ordentusLink(api)
            let port = try #require(api.client.port)
            let connection = try RawConnection(port: port)
            let path = "/s/\(link.token)?utm_source=Fast&utm_campaign=Path"
            let iPhone = "User-Agent: \(UserAgent.iPhone)\r\n"
            // A HEAD (Hummingbird's, counting nothing) fetches the page's preview; then one Referer: the event loop
            // answers. Two: handed on to Hummingbird, which joins them ("a, b").
            #expect(try await api.call(.head, "/s/\(link.token)").status == 200)
            let before = try await Self.metric(api, "linkd_fast_path_answers_total")
            try await connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(iPhone)Referer: https://T.co/x\r\n\r\n")
            #expect(try await connection.read().status == 200)
            #expect(try await Self.metric(api, "linkd_fast_path_answers_total") == before + 1)
            try await connection.send(
                "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(iPhone)Referer: https://t.co/y\r\nReferer: https://b.example/\r\n\r\n")
            #expect(try await connection.read().status == 200)
            #expect(try await Self.metric(api, "linkd_fast_path_answers_total") == before + 1)
            let stats = try await AnalyticsTests.poll(api, "/v1/links/\(link.id)/stats", key: api.adminKey) { ($0["clicks"] as? Int) == 2 }
            let campaigns = try #require(stats["byCampaign"] as? [[String: Any]])
            #expect(campaigns.count == 1 && campaigns.first?["label"] as? String == "fast||path" && campaigns.first?["clicks"] as? Int == 2)
            let referrers = try #require(stats["byReferrer"] as? [[String: Any]])
            #expect(referrers.count == 1 && referrers.first?["host"] as? String == "t.co" && referrers.first?["clicks"] as? Int == 2)
        }
    }

    @Test("fastPath: false answers the same through Hummingbird alone")
    func turnedOff() async throws {
        try await withAPI({ $0.http.fastPath = false; $0.http.eventLoopThreads = 1 }) { api in
            let connection = try RawConnection(port: try #require(api.client.port))
            try await connection.send(Self.get("/healthz") + Self.get("/v1/resolve?url=handz%3A%2F%2Flibrary&state=free"))
            #expect(try await connection.read().text == #"{"status":"ok"}"#)
            #expect(try await connection.read().text.contains(#""outcome":"route""#))
            #expect(try await Self.metric(api, "linkd_fast_path_answers_total") == 0)
        }
    }

    @Test("paths and hosts are read as Hummingbird's router reads them")
    func paths() async throws {
        try await withAPI { api in
            func route(_ method: HTTPMethod, _ target: String) -> String? {
                let scanned: ScannedHead.Method = method == .GET ? .get : method == .POST ? .post : .other
                return api.hotRoutes.match(scanned, target: target).map { found in
                    found.parameter.map { "\(found.pattern) \($0)" } ?? found.pattern
                }
            }
            #expect(route(.GET, "/healthz") == "/healthz" && route(.GET, "/healthz?probe=1") == "/healthz")
            #expect(route(.POST, "/healthz") == nil && route(.GET, "/healthz/x") == nil)
            #expect(route(.GET, "/v1/resolve?url=x") == "/v1/resolve" && route(.POST, "//v1//resolve/") == "/v1/resolve")
            #expect(route(.POST, "/v1/resolve/ics") == nil && route(.GET, "/v1/resolvex") == nil)
            #expect(route(.GET, "//s//AbC-_9?utm=1") == "/s/{token} AbC-_9" && route(.GET, "/s/t/qr.svg") == nil)
            #expect(route(.POST, "/s/t") == nil && route(.GET, "http://a.example/s/t") == nil && route(.DELETE, "/v1/resolve") == nil)
        }
        #expect(Authority.hostname("Links.Handz.Example:8443") == "links.handz.example")
        #expect(Authority.hostname("links.handz.example") == "links.handz.example")
        #expect(Authority.hostname("[::1]:8080") == "[::1]:8080" && Authority.hostname("ÉX.example") == "éx.example")
    }

    @Test("the Date header is an IMF-fixdate (RFC 9110's example)")
    func dateFormat() {
        #expect(HTTPDateText.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        var date = HTTPDateText()
        #expect(date.current().hasSuffix(" GMT") && date.current().count == 29)
    }
}

@Suite("FlatJSON")
struct FlatJSONTests {
    /// What JSONSerialization reads from `bytes` as a flat object of strings and nulls; nil when it reads something else.
    static func foundation(_ bytes: [UInt8]) -> [String: String?]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return nil }
        var members: [String: String?] = [:]
        for (key, value) in object {
            if value is NSNull { members[key] = .some(nil) } else if let text = value as? String { members[key] = text } else { return nil }
        }
        return members
    }

    static func flat(_ bytes: [UInt8]) -> [String: String?]? { FlatJSON.members(ByteBuffer(bytes: bytes)) }

    @Test("what it accepts, JSONSerialization reads the same; what it refuses is left to JSONSerialization")
    func agreesWithFoundation() {
        let accepted = [
            #"{"url":"handz://library","state":"free"}"#, #" { "url" : "a\"b\\c\/d" , "app" : null } "#, "{}",
            #"{"url":"\u00e9\ud83d\ude00 \b\f\n\r\t","x":"é😀"}"#, "{\"url\":\"x\"}\n",
        ]
        for text in accepted {
            let bytes = Array(text.utf8)
            #expect(Self.flat(bytes) != nil, "\(text)")
            #expect(Self.flat(bytes) == Self.foundation(bytes), "\(text)")
        }
        let refused = [
            #"{"url":1}"#, #"{"url":{"a":"b"}}"#, #"{"url":"a","url":"b"}"#, #"{"url":"a",}"#, #"{"url":"\ud800"}"#,
            #"{"url":"\udc00x"}"#, #"{"url":"\x"}"#, "{\"url\":\"a\u{01}\"}", #"["url"]"#, #"{"url":"a"} x"#, #"{"url":nul}"#,
            #"{"url":"\u12"}"#, "", "{", #"{"url" "a"}"#,
        ]
        for text in refused { #expect(Self.flat(Array(text.utf8)) == nil, "\(text)") }
        #expect(Self.flat([0x7B, 0x22, 0x75, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D]) == nil)  // {"u":"\xFF"}
    }

    @Test("random edits of a body never make it read something JSONSerialization reads otherwise")
    func fuzz() {
        var generator = SystemRandomNumberGenerator()
        let base = Array(#"{"url":"https://links.handz.example/s/AQ\u00e9","state":"free","app":null}"#.utf8)
        let alphabet = Array(#"{}[]":,\/ u0aAdD8fnull"#.utf8) + [0x00, 0x0A, 0xC3, 0xA9, 0xFF]
        for _ in 0..<3000 {
            let bytes = randomlyEdited(base, alphabet: alphabet, using: &generator)
            if let read = Self.flat(bytes) { #expect(read == Self.foundation(bytes), "\(String(decoding: bytes, as: UTF8.self))") }
        }
    }
}
