import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LinkdClient
import LinkdTestSupport
import Testing

/// Every error code the server can send, decoded by the client into `LinkdClientError.server` with its status,
/// code, message and `Retry-After`: those a client's own calls meet, from the running daemon; the others as the
/// daemon sends them (recorded from it where a test can make it, in its exact format where only a failing store or
/// a bug makes it), replayed to the client by a scripted server.
@Suite("LinkdClient decodes every error code")
struct ErrorTests {
    /// The server error `body` throws, or a recorded issue.
    static func serverError(_ context: String, _ body: () async throws(LinkdClientError) -> some Any) async -> ServerError? {
        do throws(LinkdClientError) {
            _ = try await body()
            Issue.record("\(context): no error")
        } catch {
            if let server = error.serverError { return server }
            Issue.record("\(context): \(error)")
        }
        return nil
    }

    @Test("the codes a client's own calls meet, from the running daemon")
    func fromTheDaemon() async throws {
        let daemon = try await ClientDaemon.start()
        defer { daemon.stop() }
        let key = try await daemon.clientKey(app: "handz")
        let client = daemon.client(apiKey: key, configuration: .init(retry: .never))
        let flow = ["flowId": UUID().uuidString.lowercased()]
        let url = try #require(URL(string: "https://links.handz.example/flows/\(flow["flowId"]!)"))

        let badRequest = await Self.serverError("a state of 65 characters") { () async throws(LinkdClientError) in
            try await client.resolve(url, state: String(repeating: "s", count: 65))
        }
        #expect(badRequest?.status == 400 && badRequest?.code == .badRequest && badRequest?.message.contains("state") == true)

        let tooLarge = await Self.serverError("a URL over the resolve body's 8 KB") { () async throws(LinkdClientError) in
            try await client.resolve(URL(string: "https://links.handz.example/" + String(repeating: "a", count: 9000))!, state: "free")
        }
        #expect(tooLarge?.status == 413 && tooLarge?.code == .payloadTooLarge)

        let wrongKey = daemon.client(apiKey: "lkd_not-a-key", configuration: .init(retry: .never))
        let unauthorized = await Self.serverError("an unknown key") { () async throws(LinkdClientError) in
            try await wrongKey.createShareLink(params: flow)
        }
        #expect(unauthorized?.status == 401 && unauthorized?.code == .unauthorized)

        let notFound = await Self.serverError("an unknown link id") { () async throws(LinkdClientError) in
            try await client.shareLink(id: String(repeating: "0", count: 32))
        }
        #expect(notFound?.status == 404 && notFound?.code == .notFound)

        let short = await Self.serverError("a TTL under 60 s") { () async throws(LinkdClientError) in
            try await client.createShareLink(params: flow, ttl: .seconds(10))
        }
        #expect(short?.status == 422 && short?.code == .unprocessable)

        let unknownRoute = await Self.serverError("a route Handz does not have") { () async throws(LinkdClientError) in
            try await client.createShareLink(route: "Nope/Nothing", params: [:])
        }
        #expect(unknownRoute?.status == 422 && unknownRoute?.code == .unknownRoute)

        let notShareable = await Self.serverError("Library/FlowDetail") { () async throws(LinkdClientError) in
            try await client.createShareLink(route: "Library/FlowDetail", params: flow)
        }
        #expect(notShareable?.code == .notShareable && notShareable?.message.contains("ShareLink/FlowView") == true)

        let badParams = await Self.serverError("a flow link without its flow") { () async throws(LinkdClientError) in
            try await client.createShareLink(params: [:])
        }
        #expect(badParams?.status == 422 && badParams?.code == .badParams && badParams?.message.contains("flowId") == true)

        // Refused before anything is sent.
        do throws(LinkdClientError) {
            _ = try await LinkdClient(baseURL: daemon.baseURL).createShareLink(params: flow)
            Issue.record("no key: no error")
        } catch {
            guard case .invalidRequest = error else { Issue.record("\(error)"); return }
        }
        do throws(LinkdClientError) {
            _ = try await client.shareLink(id: "../admin/keys")
            Issue.record("a path in an id: no error")
        } catch {
            guard case .invalidRequest = error else { Issue.record("\(error)"); return }
        }
    }

    @Test("answers that are not the API's: a proxy's HTML 502 (a resolve retries it), a 200 of the wrong shape, one over the size cap")
    func notTheAPI() async throws {
        let page = ScriptedServer.Reply.answer(status: 502, headers: ["Content-Type": "text/html"], body: "<html>Bad Gateway</html>")
        let wrong = ScriptedServer.Reply.answer(status: 200, headers: ["Content-Type": "application/json"], body: #"{"route":42}"#)
        let server = try ScriptedServer { index in index < 2 ? page : wrong }
        defer { server.stop() }
        let client = LinkdClient(baseURL: server.baseURL, session: URLSession(configuration: .ephemeral),
                                 configuration: .init(retry: RetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(10))))
        let url = URL(string: "https://links.handz.example/library")!
        for expected in [502, 200] {
            do throws(LinkdClientError) {
                _ = try await client.resolve(url, state: "free")
                Issue.record("no error")
            } catch {
                guard case .unexpectedResponse(let status, _) = error else { Issue.record("\(error)"); continue }
                #expect(status == expected)
            }
        }
        #expect(server.requests.count == 3, "the 502 page was retried once, the wrong shape not")

        let big = try ScriptedServer { _ in .answer(status: 200, headers: [:], body: String(repeating: " ", count: 5000) + "{}") }
        defer { big.stop() }
        let capped = LinkdClient(baseURL: big.baseURL, session: URLSession(configuration: .ephemeral),
                                 configuration: .init(retry: .never, maxResponseBytes: 4096))
        do throws(LinkdClientError) {
            _ = try await capped.resolve(url, state: "free")
            Issue.record("no error")
        } catch {
            guard case .unexpectedResponse(_, let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("over the client's cap"))
        }
    }

    /// One answer as the daemon sent it: status, `Retry-After` and `Allow`, body.
    struct Recorded {
        let status: Int
        let headers: [String: String]
        let body: String
    }

    /// The daemon's answer to a raw request.
    static func record(_ reply: TestHTTP.Reply) -> Recorded {
        var headers: [String: String] = ["Content-Type": "application/json"]
        for name in ["retry-after", "allow"] { if let value = reply.headers[name] { headers[name] = value } }
        return Recorded(status: reply.status, headers: headers, body: String(decoding: reply.body, as: UTF8.self))
    }

    /// The admin API's manifest answers: invalid, of another app, a stale version, stranding a live link, retiring
    /// an app with one.
    static func recordManifestCodes(_ daemon: ClientDaemon, into recorded: inout [ServerErrorCode: Recorded]) async throws {
        let base = daemon.daemon.baseURL, admin = daemon.adminKey
        let handz = try String(contentsOf: LinkdProcess.repositoryRoot.appendingPathComponent("examples/handz.yaml"), encoding: .utf8)
        func publish(_ app: String, _ yaml: String, headers: [String: String] = [:]) async throws -> Recorded {
            record(try await TestHTTP.send("PUT", base + "/v1/admin/apps/\(app)/manifest", bearer: admin, json: ["manifest": yaml], headers: headers))
        }
        recorded[.manifestInvalid] = try await publish("handz", "app: handz\nbogus: 1\n")
        recorded[.manifestAppMismatch] = try await publish("coin", handz)
        recorded[.versionConflict] = try await publish("handz", handz, headers: ["If-Match": "\"99\""])
        let clientKey = try await daemon.clientKey(app: "handz")
        _ = try await TestHTTP.send("POST", base + "/v1/links", bearer: clientKey, json: ["params": ["flowId": UUID().uuidString.lowercased()]])
        recorded[.manifestStrandsLinks] = try await publish("handz", handz.replacingOccurrences(of: "ShareLink/FlowView", with: "ShareLink/Renamed"))
        recorded[.appHasLiveLinks] = record(try await TestHTTP.send("DELETE", base + "/v1/admin/apps/handz", bearer: admin))
    }

    /// An import file refused whole, of every kind (`POST /v1/admin/imports`), one over `importMaxBytes` (4,096 on
    /// `edge`), and an import while one of the app's is running (its body still coming).
    static func recordImportCodes(_ daemon: ClientDaemon, _ edge: ClientDaemon, into recorded: inout [ServerErrorCode: Recorded]) async throws {
        func post(_ text: String, bytes: [UInt8] = [], to target: ClientDaemon? = nil) async throws -> Recorded {
            let target = target ?? daemon
            let body = Array(text.utf8) + bytes
            // A file of a million rows is refused at its last row, each row checked before it: 6 s in a release build,
            // 12–16 s in the debug build the tests run (measured 2026-11-28), past the usual 10 s read timeout.
            let connection = try RawConnection(port: target.port, receiveTimeout: 120)
            try await connection.send("POST /v1/admin/imports?app=handz&format=csv HTTP/1.1\r\nHost: x\r\n"
                + "Authorization: Bearer \(target.adminKey)\r\nContent-Type: text/csv\r\nContent-Length: \(body.count)\r\n\r\n")
            _ = await connection.sendSome(body)
            let response = try await connection.read()
            return Recorded(status: response.status, headers: ["Content-Type": "application/json"], body: response.text)
        }
        recorded[.nulByte] = try await post("route\nx\u{0}\n")
        recorded[.unclosedQuote] = try await post("route\n\"x\n")
        recorded[.badQuote] = try await post("route\nx\"y\n")
        recorded[.tooManyColumns] = try await post("route" + String(repeating: ",x", count: 100) + "\n")
        recorded[.fieldTooLong] = try await post("route\n" + String(repeating: "x", count: 9000) + "\n")
        recorded[.lineTooLong] = try await post("route\n" + String(repeating: String(repeating: "x", count: 8000) + ",", count: 9) + "\n")
        recorded[.invalidUTF8] = try await post("route\n", bytes: [0xFF, 0x0A])
        recorded[.emptyFile] = try await post("")
        recorded[.missingColumn] = try await post("title\nx\n")
        recorded[.duplicateColumn] = try await post("route,route\nx,y\n")
        recorded[.tooManyRows] = try await post("route\n" + String(repeating: "x\n", count: 1_000_001))
        recorded[.importTooLarge] = try await post("route\n" + String(repeating: "x\n", count: 3000), to: edge)
        let slow = try RawConnection(port: daemon.port)
        try await slow.send("POST /v1/admin/imports?app=handz&format=csv HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(daemon.adminKey)\r\n"
            + "Content-Type: text/csv\r\nContent-Length: 100000\r\n\r\nroute\n")
        try await Task.sleep(for: .milliseconds(300))
        recorded[.importRunning] = try await post("route\nShareLink/FlowView\n")
        withExtendedLifetime(slow) {}
    }

    /// A claim whose state the link's app lacks: the code from the iOS claim page of a Handz link.
    static func recordUnknownState(_ daemon: ClientDaemon) async throws -> Recorded {
        let base = daemon.daemon.baseURL
        let link = try await TestHTTP.send("POST", base + "/v1/links", bearer: daemon.adminKey, json: [
            "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()],
        ])
        let token = try #require(link.json["token"] as? String)
        let page = try await TestHTTP.send(
            "GET", base + "/s/\(token)/install/ios", headers: ["User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"])
        let html = String(decoding: page.body, as: UTF8.self)
        let start = try #require(html.range(of: "#linkd_claim="), "no claim code in the claim page")
        let code = String(html[start.upperBound...].prefix(22))
        return record(try await TestHTTP.send("POST", base + "/v1/claims/\(code)", json: ["state": "nonexistent"]))
    }

    @Test("every code of ServerErrorCode.known, as the daemon sends it, decoded from a replay")
    func everyCode() async throws {
        // Resolution is rate limited (one request, then 429 for 100 s): every other recording goes elsewhere.
        let daemon = try await ClientDaemon.start(configuration: "rateLimitPerSecond: 0.01\nrateLimitBurst: 1\n")
        defer { daemon.stop() }
        // The edge's answers, from a daemon no other request reaches (its connections count against the cap).
        let edge = try await ClientDaemon.start(configuration: "headTimeoutSeconds: 0.3\nmaxConnectionsPerClient: 2\nimportMaxBytes: 4096\n")
        defer { edge.stop() }
        let base = daemon.daemon.baseURL
        let clientKey = try await daemon.clientKey(app: "handz")
        var recorded: [ServerErrorCode: Recorded] = [:]
        let flow = ["flowId": UUID().uuidString.lowercased()]
        recorded[.badRequest] = Self.record(try await TestHTTP.send("POST", base + "/v1/links", bearer: clientKey, json: ["params": flow, "nope": 1]))
        recorded[.badCursor] = Self.record(try await TestHTTP.send("GET", base + "/v1/links?cursor=forged", bearer: clientKey))
        recorded[.unsupportedFormat] = Self.record(try await TestHTTP.send("GET", base + "/v1/apps/handz/stats?format=xml", bearer: clientKey))
        recorded[.unauthorized] = Self.record(try await TestHTTP.send("GET", base + "/v1/links/" + String(repeating: "0", count: 32), bearer: "lkd_x"))
        recorded[.forbidden] = Self.record(try await TestHTTP.send("GET", base + "/v1/admin/keys", bearer: clientKey))
        recorded[.notFound] = Self.record(try await TestHTTP.send("GET", base + "/v1/nothing-here"))
        recorded[.methodNotAllowed] = Self.record(try await TestHTTP.send("PUT", base + "/v1/links"))
        recorded[.conflict] = try await Self.recordConflict(daemon)
        recorded[.payloadTooLarge] = Self.record(try await TestHTTP.send("POST", base + "/v1/links", bearer: clientKey,
                                                                         json: ["params": flow, "title": String(repeating: "a", count: 70_000)]))
        recorded[.unsupportedMediaType] = Self.record(try await TestHTTP.send("POST", base + "/v1/links", bearer: clientKey, headers: ["Content-Type": "text/plain"]))
        recorded[.unprocessable] = Self.record(try await TestHTTP.send("POST", base + "/v1/links", bearer: clientKey, json: ["params": flow, "ttlSeconds": 1]))
        recorded[.unknownRoute] = Self.record(try await TestHTTP.send("POST", base + "/v1/links", bearer: clientKey, json: ["route": "No/Such", "params": flow]))
        recorded[.notShareable] = Self.record(try await TestHTTP.send("POST", base + "/v1/links", bearer: clientKey, json: ["route": "Library/FlowDetail", "params": flow]))
        recorded[.badParams] = Self.record(try await TestHTTP.send("POST", base + "/v1/links", bearer: clientKey, json: ["params": [:]]))
        recorded[.pathTaken] = Self.record(try await TestHTTP.send("POST", base + "/v1/links", bearer: clientKey, json: ["params": flow, "path": "/welcome"]))
        // The first resolution takes the bucket's one token, then is refused for its app version.
        recorded[.badAppVersion] = Self.record(try await TestHTTP.send("GET", base + "/v1/resolve?url=x&appVersion=1.x"))
        try await Self.recordManifestCodes(daemon, into: &recorded)
        _ = try await TestHTTP.send("GET", base + "/v1/resolve?url=x")
        recorded[.rateLimited] = Self.record(try await TestHTTP.send("GET", base + "/v1/resolve?url=x"))
        try await Self.recordImportCodes(daemon, edge, into: &recorded)
        recorded[.unknownState] = try await Self.recordUnknownState(edge)
        recorded[.requestTimeout] = try await Self.recordHeadTimeout(edge)
        recorded[.tooManyConnections] = try await Self.recordConnectionCap(edge)
        // Only a failing store or a bug makes these: the server's exact format (APIError.readyResponse).
        recorded[.internalError] = Recorded(status: 500, headers: ["Content-Type": "application/json"],
                                            body: #"{"error":{"code":"internal_error","message":"the server failed to answer this request; it has been logged"}}"#)
        recorded[.notReady] = Recorded(status: 503, headers: ["Content-Type": "application/json"], body: #"{"error":{"code":"not_ready","message":"the store does not answer"}}"#)
        recorded[.storeUnavailable] = Recorded(status: 503, headers: ["Content-Type": "application/json"],
                                               body: #"{"error":{"code":"store_unavailable","message":"the store failed; retry later"}}"#)

        for (code, answer) in recorded where answer.body.contains("\"code\":\"\(code.rawValue)\"") == false {
            Issue.record("the daemon did not answer \(code): \(answer.status) \(answer.body)")
        }
        #expect(Set(recorded.keys) == Set(ServerErrorCode.known), "missing: \(Set(ServerErrorCode.known).subtracting(recorded.keys))")
        let order = ServerErrorCode.known
        let answers = order.map { recorded[$0]! }
        let server = try ScriptedServer { index in
            let answer = answers[index % answers.count]
            return .answer(status: answer.status, headers: answer.headers, body: answer.body)
        }
        defer { server.stop() }
        let client = LinkdClient(baseURL: server.baseURL, apiKey: "lkd_x", session: URLSession(configuration: .ephemeral),
                                 configuration: .init(retry: .never))
        for (code, answer) in zip(order, answers) {
            let error = await Self.serverError("\(code)") { () async throws(LinkdClientError) in
                try await client.resolve(URL(string: "https://links.handz.example/library")!, state: "free")
            }
            #expect(error?.code == code, "\(answer.body)")
            #expect(error?.status == answer.status, "\(code)")
            #expect(error.map { answer.body.contains($0.message) } == true, "\(code)")
            #expect(error?.retryAfter == answer.headers["retry-after"].flatMap(Int.init).map { .seconds($0) }, "\(code)")
        }
        #expect(recorded[.rateLimited]?.headers["retry-after"] != nil && recorded[.tooManyConnections]?.headers["retry-after"] == "1")
    }

    /// 409: retiring the app's active key (an admin call).
    static func recordConflict(_ daemon: ClientDaemon) async throws -> Recorded {
        let keys = try await TestHTTP.send("GET", daemon.daemon.baseURL + "/v1/admin/keys?app=handz", bearer: daemon.adminKey)
        let parsed = try JSONSerialization.jsonObject(with: keys.body)
        let list = (parsed as? [String: Any])?["keys"] as? [[String: Any]] ?? parsed as? [[String: Any]] ?? []
        let active = try #require(list.first { $0["state"] as? String == "active" }?["kid"] as? Int, "\(String(decoding: keys.body, as: UTF8.self))")
        return record(try await TestHTTP.send("POST", daemon.daemon.baseURL + "/v1/admin/keys/handz/\(active)/retire", bearer: daemon.adminKey))
    }

    /// 408: a head that does not come whole within `headTimeoutSeconds`.
    static func recordHeadTimeout(_ daemon: ClientDaemon) async throws -> Recorded {
        let connection = try RawConnection(port: daemon.port)
        try await connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
        let response = try await connection.read()
        return Recorded(status: response.status, headers: ["Content-Type": "application/json"], body: response.text)
    }

    /// 503 `too_many_connections`: a third connection from a client holding `maxConnectionsPerClient` (2).
    static func recordConnectionCap(_ daemon: ClientDaemon) async throws -> Recorded {
        let held = try [RawConnection(port: daemon.port), RawConnection(port: daemon.port)]
        try await Task.sleep(for: .milliseconds(100))
        let third = try RawConnection(port: daemon.port)
        try await third.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try await third.read()
        withExtendedLifetime(held) {}
        var headers = ["Content-Type": "application/json"]
        headers["retry-after"] = response.header("Retry-After")
        return Recorded(status: response.status, headers: headers, body: response.text)
    }
}
