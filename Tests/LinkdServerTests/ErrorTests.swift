import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Prometheus
import LinkdTestSupport
import Testing

@testable import LinkdHTTP
@testable import LinkdServer

@Suite("API: authentication failures, error codes, size caps, rate limits")
struct ErrorTests {
    @Test("every authentication failure answers 401/403 with a code; failures are rate limited", arguments: StoreKind.allCases)
    func authFailures(backend: StoreKind) async throws {
        try await withAPI(on: backend, { $0.limits.authFailuresPerMinute = 6 }) { api in
            let handz = try await api.clientKey(app: "handz")
            let ordentus = try await api.clientKey(app: "ordentus")
            let id = try #require(try await api.createHandzLink(key: handz)["id"] as? String)

            let missing = try await api.call(.post, "/v1/links", json: ["route": "ShareLink/FlowView"])
            #expect(missing.status == 401 && missing.errorCode == "unauthorized")
            #expect(try await api.call(.get, "/v1/admin/keys", key: "lkd_wrong").errorCode == "unauthorized")
            #expect(try await api.call(.get, "/v1/admin/keys", key: String(repeating: "x", count: 400)).status == 401)
            let forbidden = try await api.call(.get, "/v1/admin/keys", key: handz)
            #expect(forbidden.status == 403 && forbidden.errorCode == "forbidden")
            // Another app's client key sees the same 404 as for a link that does not exist.
            let foreign = try await api.call(.get, "/v1/links/\(id)", key: ordentus)
            #expect(foreign.status == 404 && foreign.errorCode == "not_found")
            #expect(try await api.call(.delete, "/v1/links/\(id)", key: ordentus).status == 404)
            #expect(try await api.call(.get, "/v1/links/\(id)", key: api.adminKey).status == 200)

            // Failed attempts from one address: after the burst, 429 for every attempt but one with a valid key, which is
            // still served (one prankster behind a shared address must not lock out everyone behind it).
            var statuses: [Int] = []
            for _ in 0..<12 { statuses.append(try await api.call(.get, "/v1/admin/keys", key: "lkd_wrong").status) }
            #expect(statuses.contains(429))
            #expect(try await api.call(.get, "/v1/admin/keys", key: api.adminKey).status == 200, "a valid admin key is served")
            #expect(try await api.call(.get, "/v1/links/\(id)", key: handz).status == 200, "a valid client key is served")
            #expect(try await api.call(.get, "/v1/admin/keys").status == 429, "no key at all: slowed like a wrong one")
            let limited = try await api.call(.get, "/v1/admin/keys", key: "lkd_" + String(repeating: "A", count: 43))
            #expect(limited.status == 429 && limited.errorCode == "rate_limited")
            // 6 a minute: the emptied bucket has its next token 10 s after the failure that emptied it (less what has
            // passed since; the refused attempts took nothing).
            let retryAfter = try #require(limited.headers[.retryAfter].flatMap { Int($0) })
            #expect((1...10).contains(retryAfter), "Retry-After \(retryAfter)")
        }
    }

    @Test("bad requests: 400, 404, 409, 413, 415, 422 with machine codes", arguments: StoreKind.allCases)
    func errorCodes(backend: StoreKind) async throws {
        try await withAPI(on: backend, { $0.http.maxBodyBytes = 2048 }) { api in
            let key = try await api.clientKey(app: "handz")
            func create(_ body: [String: Any]) async throws -> Reply { try await api.call(.post, "/v1/links", key: key, json: body) }
            let flow = ["flowId": UUID().uuidString.lowercased()]

            // The body is parsed once (JSONBody.decode): what is not an object, an unknown field (the first in sorted
            // order, with the known ones), a wrong type, each with its own message.
            for raw in ["{not json", "[1]", "\"text\"", "", "{\"route\": \"ShareLink/FlowView\""] {
                let reply = try await api.call(.post, "/v1/links", key: key, raw: raw, contentType: "application/json")
                #expect(reply.status == 400 && reply.errorCode == "bad_request", "\(raw)")
                #expect(reply.text.contains("the body must be a JSON object"), "\(raw): \(reply.text)")
            }
            let unknownField = try await create(["route": "ShareLink/FlowView", "params": flow, "zebra": 1, "colour": "red"])
            #expect(unknownField.status == 400 && unknownField.text.contains("unknown field 'colour' (known: "), "\(unknownField.text)")
            #expect(unknownField.text.contains("campaign, owner, params, path, route, suite, title, ttlSeconds"), "the known fields, sorted: \(unknownField.text)")
            let wrongType = try await create(["route": "ShareLink/FlowView", "params": ["flowId": 7]])
            #expect(wrongType.status == 400 && wrongType.text.contains("field 'params.flowId' has the wrong type"), "\(wrongType.text)")
            // Without a route the link opens the manifest's share.route (Handz shares ShareLink/FlowView).
            #expect(try await create(["params": flow]).status == 201)
            #expect(try await create(["route": 42]).status == 400)
            let media = try await api.call(.post, "/v1/links", key: key, raw: "route=x", contentType: "application/x-www-form-urlencoded")
            #expect(media.status == 415 && media.errorCode == "unsupported_media_type")
            let big = try await create(["route": "ShareLink/FlowView", "title": String(repeating: "t", count: 4000)])
            #expect(big.status == 413 && big.errorCode == "payload_too_large")

            #expect(try await create(["route": "Nope/Nothing"]).errorCode == "unknown_route")
            #expect(try await create(["route": "Library/Home"]).errorCode == "not_shareable")
            #expect(try await create(["route": "ShareLink/FlowView", "params": ["flowId": "not-a-uuid"]]).errorCode == "bad_params")
            #expect(try await create(["route": "ShareLink/FlowView", "params": ["colour": "x"]]).errorCode == "bad_params")
            let ttl = try await create(["route": "ShareLink/FlowView", "params": flow, "ttlSeconds": 400 * 86_400])
            #expect(ttl.status == 422 && ttl.errorCode == "unprocessable")
            #expect(try await create(["route": "ShareLink/FlowView", "params": flow, "ttlSeconds": 1]).status == 422)
            #expect(try await create(["route": "ShareLink/FlowView", "params": flow, "suite": "rsa"]).status == 422)
            #expect(try await create(["route": "ShareLink/FlowView", "params": flow, "owner": ""]).status == 422)

            #expect(try await api.call(.get, "/v1/links/00000000000000000000000000000000", key: key).errorCode == "not_found")
            #expect(try await api.call(.get, "/v1/links/not-hex", key: key).status == 404)
            #expect(try await api.call(.get, "/v1/resolve").errorCode == "bad_request")
            #expect(try await api.call(.get, "/v1/resolve?url=handz://x&state=" + String(repeating: "s", count: 100)).status == 400)
            let hugeResolve = try await api.call(.post, "/v1/resolve", json: ["url": "https://links.handz.example/" + String(repeating: "a", count: 9000)])
            #expect(hugeResolve.status == 413)
            let longURL = try await api.resolve("https://links.handz.example/" + String(repeating: "a", count: 5000), state: "free")
            #expect((longURL["problem"] as? [String: Any])?["code"] as? String == "urlTooLong")
            #expect(try await api.call(.get, "/v1/admin/audit?limit=0", key: api.adminKey).status == 400)
            #expect(try await api.call(.get, "/v1/admin/audit?limit=5000", key: api.adminKey).status == 400)
            #expect(try await api.call(.post, "/v1/admin/revocations", key: api.adminKey, json: ["app": "nope", "owner": "u"]).status == 404)

            // 409: retiring the active key; a link id the store already has (a 2^-128 collision, injected).
            let keys = try await api.call(.get, "/v1/admin/keys?app=handz", key: api.adminKey).json["keys"] as? [[String: Any]] ?? []
            let active = try #require(keys.first { $0["state"] as? String == "active" }?["kid"] as? Int)
            let retire = try await api.call(.post, "/v1/admin/keys/handz/\(active)/retire", key: api.adminKey)
            #expect(retire.status == 409 && retire.errorCode == "conflict")
            api.faults.fault = .linkIDCollision
            let collision = try await create(["route": "ShareLink/FlowView", "params": flow])
            api.faults.fault = .none
            #expect(collision.status == 409 && collision.errorCode == "conflict")
            #expect(try await create(["route": "ShareLink/FlowView", "params": flow]).status == 201)
        }
    }

    @Test("an unknown path is a JSON 404, a known path with a method it does not take a JSON 405 with Allow, on both paths")
    func unknownEndpoints() async throws {
        try await withAPI { api in
            for (method, path, allow) in [(HTTPRequest.Method.get, "/nope", nil), (.get, "/v1", nil), (.put, "/v1/links", "GET, HEAD, POST"),
                                          (.delete, "/healthz", "GET, HEAD"), (.post, "/s/AAAA", "GET, HEAD"), (.get, "/v1/resolve/ics", "POST"),
                                          (.patch, "/v1/admin/keys", "GET, HEAD")] {
                let reply = try await api.call(method, path)
                if let allow {
                    #expect(reply.status == 405 && reply.errorCode == "method_not_allowed", "\(method) \(path): \(reply.text)")
                    #expect(reply.headers[.allow] == allow)
                } else {
                    #expect(reply.status == 404 && reply.errorCode == "not_found", "\(method) \(path): \(reply.text)")
                }
                #expect(reply.headers[.contentType] == "application/json")
                #expect((reply.json["error"] as? [String: Any])?["message"] as? String != nil)
            }
            // On a keep-alive connection, where the event-loop fast path looks at each request first.
            let connection = try RawConnection(port: try #require(api.client.port))
            try await connection.send(
                "GET /nope HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + "PUT /v1/resolve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"
                    + "GET /s/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            for (status, code) in [(404, "not_found"), (405, "method_not_allowed"), (404, "not_found")] {
                let reply = try await connection.read()
                #expect(reply.status == status && reply.text.contains(#""code":"\#(code)""#), "\(reply.text)")
                #expect(reply.header("Content-Type") == "application/json")
            }
            #expect(try await connection.read().text == #"{"status":"ok"}"#)
            let metrics = try await api.call(.get, "/metrics").text
            #expect(metrics.contains(#"linkd_http_requests_total{method="GET",route="NotFound",status="404"}"#), "unmatched requests are counted")
        }
    }

    @Test("an unexpected error is a JSON 500 internal_error, logged at error level, its details kept out of the answer")
    func unexpectedErrors() async throws {
        struct Broken: Error, CustomStringConvertible { var description: String { "secret internals at /var/lib/x" } }
        let capture = LogCapture()
        let router = Hummingbird.Router(context: BasicRequestContext.self)
        let metrics = ServerMetrics()
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics.http))
        router.get("/broken") { _, _ -> Response in throw Broken() }
        router.get("/refused") { _, _ -> Response in throw HTTPError(.badRequest, message: "hummingbird's own words") }
        let app = Application(router: router, logger: capture.logger())
        try await app.test(.router) { client in
            try await client.execute(uri: "/broken", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(response.status == .internalServerError && response.headers[.contentType] == "application/json")
                #expect(text.contains(#""code":"internal_error""#) && !text.contains("secret"), "\(text)")
            }
            try await client.execute(uri: "/refused", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(response.status == .badRequest && text.contains(#""code":"bad_request""#) && !text.contains("hummingbird"), "\(text)")
            }
        }
        let errors = capture.lines.filter { $0.level == .error }
        #expect(errors.count == 1)
        #expect(errors.first?.metadata["error"]?.contains("secret internals") == true, "the log keeps the error")
        #expect(errors.first?.metadata["route"] == "/broken" && errors.first?.metadata["method"] == "GET")
        let exposition = String(decoding: metrics.registry.emitToBuffer(), as: UTF8.self)
        #expect(exposition.contains(#"linkd_http_requests_total{method="GET",route="/broken",status="500"} 1"#), "\(exposition)")
    }

    @Test(".ics attachments resolve over HTTP; wrong type, oversized and non-calendar bodies are refused")
    func calendar() async throws {
        try await withAPI { api in
            let key = try await api.clientKey(app: "ordentus")
            let link = try await api.call(.post, "/v1/links", key: key, json: ["route": "Calendar/EventDetail", "params": ["eventId": "standup"]])
            let url = try #require(link.string("url"))
            let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:1@test\r\nDTSTART:20261201T090000Z\r\nSUMMARY:Standup\r\nURL:\(url)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            let reply = try await api.call(.post, "/v1/resolve/ics?state=signedIn", raw: ics, contentType: "text/calendar")
            #expect(reply.status == 200)
            let items = reply.json["items"] as? [[String: Any]] ?? []
            #expect(items.count == 1)
            let resolution = items.first?["resolution"] as? [String: Any]
            #expect((resolution?["link"] as? [String: Any])?["status"] as? String == "active")

            #expect(try await api.call(.post, "/v1/resolve/ics", raw: ics, contentType: "application/json").status == 415)
            // Lines the parser can step over become diagnostics; a cap it hits refuses the file.
            let lenient = try await api.call(.post, "/v1/resolve/ics", raw: "hello", contentType: "text/calendar")
            #expect(lenient.status == 200 && (lenient.json["diagnostics"] as? [Any])?.isEmpty == false)
            let longLine = "BEGIN:VCALENDAR\r\nX-LONG:" + String(repeating: "l", count: 300_000) + "\r\nEND:VCALENDAR\r\n"
            let refused = try await api.call(.post, "/v1/resolve/ics", raw: longLine, contentType: "text/calendar")
            #expect(refused.status == 422 && refused.errorCode == "unprocessable")
            let huge = String(repeating: "X-PAD:" + String(repeating: "p", count: 70) + "\r\n", count: 40_000)
            #expect(try await api.call(.post, "/v1/resolve/ics", raw: huge, contentType: "text/calendar").status == 413)
        }
    }

    @Test("resolve and share paths are rate limited per client address")
    func rateLimit() async throws {
        // A slow refill (one request per 100 s), so that a busy machine cannot refill the bucket mid-test.
        try await withAPI({ $0.limits.rateLimitPerSecond = 0.01; $0.limits.rateLimitBurst = 5 }) { api in
            var statuses: [Int] = []
            for _ in 0..<8 { statuses.append(try await api.call(.get, "/v1/resolve?url=handz://library&state=free").status) }
            #expect(statuses.prefix(5).allSatisfy { $0 == 200 })
            #expect(statuses.last == 429)
            let share = try await api.call(.get, "/s/AAAA")
            #expect(share.status == 429 && share.errorCode == "rate_limited")
            // One token per 100 s: the next one is 100 s after the bucket emptied, less what has passed since.
            let retryAfter = try #require(share.headers[.retryAfter].flatMap { Int($0) })
            #expect((90...100).contains(retryAfter), "Retry-After \(retryAfter)")
            #expect(try await api.call(.get, "/healthz").status == 200)
        }
    }
}
