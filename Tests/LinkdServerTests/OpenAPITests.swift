import Foundation
import HTTPTypes
import HummingbirdTesting
import LinkStore
import LinkdTestSupport
import Testing

@testable import LinkdServer

/// `docs/openapi.yaml` against the live server: every answer below must be a documented status, content type and
/// (for JSON) match its schema, and every documented operation must be exercised.
@Suite("OpenAPI document matches the server")
struct OpenAPITests {
    /// Sends requests and checks each answer against the document; remembers which operations were seen.
    final class Checker: @unchecked Sendable {
        let api: API
        let document: OpenAPIDocument
        private let lock = NSLock()
        private var seenOperations = Set<String>()
        private var seenStatuses: [String: Set<Int>] = [:]

        init(api: API, document: OpenAPIDocument) {
            self.api = api
            self.document = document
        }

        /// Sends one request; `template` is the documented path it belongs to.
        @discardableResult
        func call(
            _ method: HTTPRequest.Method, _ path: String, template: String? = nil, key: String? = nil,
            json: [String: Any]? = nil, raw: String? = nil, contentType: String? = nil, headers: HTTPFields = [:],
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> Reply {
            let reply = try await api.call(method, path, key: key, json: json, raw: raw, contentType: contentType, headers: headers)
            let template = template ?? String(path.split(separator: "?", maxSplits: 1)[0])
            record(
                method.rawValue, template, reply.status, reply.headers[.contentType], reply.text, reply.headers[.retryAfter],
                allow: reply.headers[.allow], sourceLocation)
            return reply
        }

        /// Sends a GET with a `Host` header (which the in-process client cannot set) over a raw connection.
        @discardableResult
        func get(_ path: String, host: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> RawConnection.Response {
            let connection = try RawConnection(port: try #require(api.client.port))
            try await connection.send("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            let reply = try await connection.read()
            record("GET", path, reply.status, reply.header("Content-Type"), reply.text, reply.header("Retry-After"), allow: reply.header("Allow"), sourceLocation)
            return reply
        }

        /// Checks one answer against the document (a 429 must say when to retry, a 405 which methods the document
        /// lists for the path) and remembers it: a 405 to a method the path does not list counts as the 405 of each
        /// of the path's operations.
        private func record(
            _ method: String, _ template: String, _ status: Int, _ contentType: String?, _ body: String, _ retryAfter: String?,
            allow: String?, _ sourceLocation: SourceLocation
        ) {
            var problems = document.problems(method: method, template: template, status: status, contentType: contentType, body: body)
            if status == 429, (retryAfter.flatMap { Int($0) } ?? 0) < 1 {
                problems.append("\(method) \(template) → 429 without a Retry-After of whole seconds ≥ 1: \(retryAfter ?? "none")")
            }
            if status == 405, allow != document.allow(template) {
                problems.append("\(method) \(template) → 405 with Allow \(allow ?? "none"), the document lists \(document.allow(template) ?? "none")")
            }
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))", sourceLocation: sourceLocation)
            let operation = "\(method) \(template)"
            lock.withLock {
                if status == 405, !document.operations.contains(operation) {
                    for listed in document.operations where listed.hasSuffix(" \(template)") { seenStatuses[listed, default: []].insert(405) }
                } else {
                    seenOperations.insert(operation)
                    seenStatuses[operation, default: []].insert(status)
                }
            }
        }

        var operations: Set<String> { lock.withLock { seenOperations } }
        var statuses: [String: Set<Int>] { lock.withLock { seenStatuses } }
    }

    @Test("every documented operation answers as documented, and every documented status is answered", arguments: StoreKind.allCases)
    func documentMatchesServer(backend: StoreKind) async throws {
        let document = try OpenAPIDocument()
        // The statuses seen per operation, over both servers below.
        let seen = SeenStatuses()
        // This server's failed authentications (401s of the API and the webhooks, the console's wrong keys) refill
        // at once: the per-address budget and its lockout are the second server's, below.
        try await withAPI(on: backend, { $0.authFailuresPerMinute = 60_000 }) { api in
            let check = Checker(api: api, document: document)
            let admin = api.adminKey

            // API keys.
            let made = try await check.call(.post, "/v1/admin/api-keys", key: admin, json: ["kind": "client", "app": "handz", "label": "openapi"])
            #expect(made.status == 201)
            let client = try #require(made.string("key"))
            let spare = try await check.call(.post, "/v1/admin/api-keys", key: admin, json: ["kind": "admin", "label": "spare"])
            expectStatus(try await check.call(.post, "/v1/admin/api-keys", key: admin, json: ["kind": "client", "label": "no app"]), 422)
            expectStatus(try await check.call(.post, "/v1/admin/api-keys", key: admin, json: ["kind": "client", "app": "nope", "label": "x"]), 404)
            expectStatus(try await check.call(.post, "/v1/admin/api-keys", key: admin, raw: "kind=client", contentType: "text/plain"), 415)
            expectStatus(try await check.call(.get, "/v1/admin/api-keys", key: admin), 200)
            expectStatus(try await check.call(.get, "/v1/admin/api-keys", key: client), 403)
            let spareID = try #require(spare.string("id"))
            expectStatus(try await check.call(.delete, "/v1/admin/api-keys/\(spareID)", template: "/v1/admin/api-keys/{id}", key: admin), 200)
            expectStatus(try await check.call(.delete, "/v1/admin/api-keys/key_000000000000", template: "/v1/admin/api-keys/{id}", key: admin), 404)

            // Links.
            let flow = ["flowId": UUID().uuidString.lowercased()]
            let created = try await check.call(.post, "/v1/links", key: client, json: ["route": "ShareLink/FlowView", "params": flow, "owner": "u1", "title": "Flow"])
            #expect(created.status == 201)
            let id = try #require(created.string("id")), token = try #require(created.string("token")), url = try #require(created.string("url"))
            expectStatus(try await check.call(.post, "/v1/links", json: ["route": "ShareLink/FlowView"]), 401)
            expectStatus(try await check.call(.post, "/v1/links", key: client, raw: "{", contentType: "application/json"), 400)
            expectStatus(try await check.call(.post, "/v1/links", key: client, json: ["route": "Library/Home"]), 422)
            expectStatus(try await check.call(.post, "/v1/links", key: client, raw: "route", contentType: "text/plain"), 415)
            let oversized = "{\"route\":\"" + String(repeating: "r", count: api.configuration.maxBodyBytes) + "\"}"
            expectStatus(try await check.call(.post, "/v1/links", key: client, raw: oversized, contentType: "application/json"), 413)
            expectStatus(try await check.call(.get, "/v1/links/\(id)", template: "/v1/links/{id}", key: client), 200)
            expectStatus(try await check.call(.get, "/v1/links/\(id)", template: "/v1/links/{id}"), 401)
            expectStatus(try await check.call(.get, "/v1/links/\(String(repeating: "0", count: 32))", template: "/v1/links/{id}", key: client), 404)
            // Listing and search.
            let listed = try await check.call(.get, "/v1/links?owner=u1&status=active&limit=1", key: client)
            expectStatus(listed, 200)
            expectStatus(try await check.call(.post, "/v1/links", key: client, json: ["params": flow, "owner": "u1"]), 201)
            let firstPage = try await check.call(.get, "/v1/links?app=handz&limit=1", key: admin)
            let cursor = try #require(firstPage.string("nextCursor"))
            expectStatus(try await check.call(.get, "/v1/links?app=handz&limit=1&cursor=\(cursor)", key: admin), 200)
            expectStatus(try await check.call(.get, "/v1/links?cursor=forged", key: admin), 400)
            expectStatus(try await check.call(.get, "/v1/links?colour=red", key: admin), 400)
            expectStatus(try await check.call(.get, "/v1/links?app=coin", key: client), 403)
            expectStatus(try await check.call(.get, "/v1/links"), 401)

            // Resolution, before and after revocation, and the share path.
            let resolved = try await check.call(.post, "/v1/resolve", json: ["url": url, "state": "free"])
            #expect(resolved.status == 200 && resolved.string("outcome") == "route")
            expectStatus(try await check.call(.get, "/v1/resolve?url=handz://library&state=free", template: "/v1/resolve"), 200)
            expectStatus(try await check.call(.get, "/v1/resolve?url=notaurl", template: "/v1/resolve"), 200)
            expectStatus(try await check.call(.get, "/v1/resolve", template: "/v1/resolve"), 400)
            expectStatus(try await check.call(.post, "/v1/resolve", json: ["url": url, "colour": "red"]), 400)
            expectStatus(try await check.call(.post, "/v1/resolve", raw: url, contentType: "text/plain"), 415)
            let longURL = "{\"url\":\"" + String(repeating: "u", count: 9000) + "\"}"
            expectStatus(try await check.call(.post, "/v1/resolve", raw: longURL, contentType: "application/json"), 413)
            expectStatus(try await check.call(.get, "/s/\(token)", template: "/s/{token}"), 200)
            expectStatus(try await check.call(.get, "/s/\(token)/qr.svg", template: "/s/{token}/qr.svg"), 200)
            try await Self.exerciseDeferred(check, api: api, client: client, admin: admin, id: id, token: token)
            try await Self.exerciseApps(check, admin: admin)
            try await Self.exerciseCodegen(check, client: client, admin: admin)
            expectStatus(try await check.call(.delete, "/v1/links/\(id)", template: "/v1/links/{id}", key: client), 200)
            let unavailable = try await check.call(.post, "/v1/resolve", json: ["url": url, "state": "free"])
            #expect(unavailable.string("outcome") == "linkUnavailable")
            expectStatus(try await check.call(.get, "/s/\(token)", template: "/s/{token}"), 410)
            expectStatus(try await check.call(.get, "/s/not-a-token", template: "/s/{token}"), 404)
            expectStatus(try await check.call(.get, "/s/\(token)/qr.svg", template: "/s/{token}/qr.svg"), 410)
            expectStatus(try await check.call(.get, "/s/not-a-token/qr.svg", template: "/s/{token}/qr.svg"), 404)
            expectStatus(try await check.call(.get, "/static/linkd.css"), 200)
            // The in-process client always sends Host: localhost, which no manifest serves (200s: WebPagesTests).
            expectStatus(try await check.call(.get, "/.well-known/apple-app-site-association"), 404)
            expectStatus(try await check.call(.get, "/.well-known/assetlinks.json"), 404)
            expectStatus(try await check.call(.delete, "/v1/links/\(String(repeating: "a", count: 32))", template: "/v1/links/{id}", key: client), 404)

            // .ics
            let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTART:20261201T100000Z\r\nURL:\(url)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            expectStatus(try await check.call(.post, "/v1/resolve/ics?state=free", template: "/v1/resolve/ics", raw: ics, contentType: "text/calendar"), 200)
            expectStatus(try await check.call(.post, "/v1/resolve/ics", raw: ics, contentType: "application/json"), 415)
            let longLine = "BEGIN:VCALENDAR\r\nX-LONG:" + String(repeating: "l", count: 300_000) + "\r\nEND:VCALENDAR\r\n"
            expectStatus(try await check.call(.post, "/v1/resolve/ics", raw: longLine, contentType: "text/calendar"), 422)
            expectStatus(try await check.call(.post, "/v1/resolve/ics", raw: "hello", contentType: "text/calendar"), 200)
            expectStatus(try await check.call(.post, "/v1/resolve/ics?state=", template: "/v1/resolve/ics", raw: ics, contentType: "text/calendar"), 400)

            // Keys: list, rotate, retire.
            expectStatus(try await check.call(.get, "/v1/admin/keys?app=handz", template: "/v1/admin/keys", key: admin), 200)
            expectStatus(try await check.call(.get, "/v1/admin/keys?app=nope", template: "/v1/admin/keys", key: admin), 404)
            expectStatus(try await check.call(.get, "/v1/admin/keys", key: client), 403)
            expectStatus(try await check.call(.get, "/v1/admin/keys"), 401)
            let oldKid = try #require(keyID(ofToken: token))
            let rotated = try await check.call(.post, "/v1/admin/keys/handz/rotate", template: "/v1/admin/keys/{app}/rotate", key: admin)
            #expect(rotated.status == 200)
            expectStatus(try await check.call(.post, "/v1/admin/keys/handz/rotate", template: "/v1/admin/keys/{app}/rotate", key: admin, json: ["suite": "rsa"]), 422)
            expectStatus(try await check.call(.post, "/v1/admin/keys/nope/rotate", template: "/v1/admin/keys/{app}/rotate", key: admin), 404)
            let activeKid = try #require(rotated.json["kid"] as? Int)
            expectStatus(try await check.call(.post, "/v1/admin/keys/handz/\(activeKid)/retire", template: "/v1/admin/keys/{app}/{kid}/retire", key: admin), 409)
            expectStatus(try await check.call(.post, "/v1/admin/keys/handz/\(oldKid)/retire", template: "/v1/admin/keys/{app}/{kid}/retire", key: admin), 200)
            expectStatus(try await check.call(.post, "/v1/admin/keys/handz/999999/retire", template: "/v1/admin/keys/{app}/{kid}/retire", key: admin), 404)

            // Owner revocation and audit.
            expectStatus(try await check.call(.post, "/v1/admin/revocations", key: admin, json: ["app": "handz", "owner": "u1"]), 200)
            expectStatus(try await check.call(.post, "/v1/admin/revocations", key: admin, json: ["app": "handz", "owner": ""]), 422)
            expectStatus(try await check.call(.post, "/v1/admin/revocations", key: admin, json: ["app": "nope", "owner": "u1"]), 404)
            expectStatus(try await check.call(.get, "/v1/admin/audit?limit=5", template: "/v1/admin/audit", key: admin), 200)
            expectStatus(try await check.call(.get, "/v1/admin/audit?limit=0", template: "/v1/admin/audit", key: admin), 400)
            // Backups: a copy of SQLite; PostgreSQL is backed up with its own tools.
            expectStatus(try await check.call(.post, "/v1/admin/backup", key: admin), backend == .sqlite ? 201 : 422)
            expectStatus(try await check.call(.post, "/v1/admin/backup", key: client), 403)
            expectStatus(try await check.call(.post, "/v1/admin/backup", key: "lkd_wrong"), 401)

            // Webhook endpoints (their deliveries go nowhere: `.invalid` never resolves).
            let hookURL = "https://hooks.example.invalid/linkd"
            let hook = try await check.call(.post, "/v1/admin/webhooks", key: admin, json: ["app": "handz", "url": hookURL, "events": ["link.created"]])
            #expect(hook.status == 201 && hook.string("secret")?.hasPrefix("whsec_") == true)
            let hookID = try #require(hook.string("id"))
            let noHook = "/v1/admin/webhooks/" + Self.noWebhook
            expectStatus(try await check.call(.post, "/v1/admin/webhooks", key: admin, json: ["app": "nope", "url": hookURL, "events": ["link.created"]]), 404)
            expectStatus(try await check.call(.post, "/v1/admin/webhooks", key: admin, json: ["app": "handz", "url": "https://10.0.0.1/", "events": ["link.created"]]), 422)
            expectStatus(try await check.call(.post, "/v1/admin/webhooks", key: admin, json: ["app": "handz", "url": hookURL, "events": ["link.nope"]]), 422)
            for _ in 0..<AdminService.maxWebhookEndpointsPerApp {
                expectStatus(try await check.call(.post, "/v1/admin/webhooks", key: admin, json: ["app": "coin", "url": hookURL, "events": ["key.rotated"]]), 201)
            }
            expectStatus(try await check.call(.post, "/v1/admin/webhooks", key: admin, json: ["app": "coin", "url": hookURL, "events": ["key.rotated"]]), 409)
            expectStatus(try await check.call(.get, "/v1/admin/webhooks?app=handz", template: "/v1/admin/webhooks", key: admin), 200)
            expectStatus(try await check.call(.get, "/v1/admin/webhooks?app=nope", template: "/v1/admin/webhooks", key: admin), 404)
            let hookPath = "/v1/admin/webhooks/\(hookID)"
            expectStatus(try await check.call(.get, hookPath, template: "/v1/admin/webhooks/{id}", key: admin), 200)
            expectStatus(try await check.call(.get, noHook, template: "/v1/admin/webhooks/{id}", key: admin), 404)
            expectStatus(try await check.call(.patch, hookPath, template: "/v1/admin/webhooks/{id}", key: admin, json: ["enabled": false, "events": ["link.created", "link.revoked"]]), 200)
            expectStatus(try await check.call(.patch, hookPath, template: "/v1/admin/webhooks/{id}", key: admin, json: ["url": "ftp://hooks.example.invalid/"]), 422)
            expectStatus(try await check.call(.patch, hookPath, template: "/v1/admin/webhooks/{id}", key: admin, raw: "{", contentType: "application/json"), 400)
            let hugePatch = "{\"url\":\"" + String(repeating: "u", count: api.configuration.maxBodyBytes) + "\"}"
            expectStatus(try await check.call(.patch, hookPath, template: "/v1/admin/webhooks/{id}", key: admin, raw: hugePatch, contentType: "application/json"), 413)
            expectStatus(try await check.call(.patch, hookPath, template: "/v1/admin/webhooks/{id}", key: admin, raw: "enabled=1", contentType: "text/plain"), 415)
            expectStatus(try await check.call(.patch, noHook, template: "/v1/admin/webhooks/{id}", key: admin, json: ["enabled": true]), 404)
            expectStatus(try await check.call(.get, hookPath + "/deliveries?limit=10", template: "/v1/admin/webhooks/{id}/deliveries", key: admin), 200)
            expectStatus(try await check.call(.get, hookPath + "/deliveries?limit=0", template: "/v1/admin/webhooks/{id}/deliveries", key: admin), 400)
            expectStatus(try await check.call(.get, noHook + "/deliveries", template: "/v1/admin/webhooks/{id}/deliveries", key: admin), 404)
            expectStatus(try await check.call(.delete, hookPath, template: "/v1/admin/webhooks/{id}", key: admin), 200)
            expectStatus(try await check.call(.delete, hookPath, template: "/v1/admin/webhooks/{id}", key: admin), 404)
            // Without a key: 401 (here, where the failed-authentication budget has room for them; the second server
            // below spends its own on the other endpoints).
            for (method, path, template) in Self.adminOperations(kid: 1, apiKeyID: spareID)
            where template.hasPrefix("/v1/admin/webhooks") || template.hasPrefix("/v1/admin/apps") {
                expectStatus(try await check.call(method, path, template: template, json: Self.body(template)), 401)
            }

            // The admin console: every page without a session (303 to sign-in) and with one (200); every form without
            // a session (303), without its CSRF token (403) and with it.
            try await Self.exerciseConsole(check, api: api, linkID: id, retiredKid: oldKid, apiKeyID: spareID)

            // Every path asked with methods it does not list: 405 with Allow as the document lists them.
            for template in document.paths {
                let path = template.split(separator: "/").map { $0.hasPrefix("{") ? "x" : String($0) }.reduce("") { $0 + "/" + $1 }
                for method in [HTTPRequest.Method.put, .patch, .delete, .post] where !document.operations.contains("\(method.rawValue) \(template)") {
                    expectStatus(try await check.call(method, path, template: template), 405)
                }
            }

            // Ops.
            expectStatus(try await check.call(.get, "/healthz"), 200)
            expectStatus(try await check.call(.get, "/readyz"), 200)
            expectStatus(try await check.call(.get, "/metrics"), 200)

            // The well-known files of a host the manifests serve (the Host header decides).
            expectStatus(try await check.get("/.well-known/apple-app-site-association", host: "links.handz.example"), 200)
            expectStatus(try await check.get("/.well-known/assetlinks.json", host: "links.handz.example"), 200)

            // Bodies the admin endpoints refuse: malformed, oversized, of the wrong type.
            let hugeJSON = "{\"suite\":\"" + String(repeating: "s", count: api.configuration.maxBodyBytes) + "\"}"
            let bodies: [(String, String)] = [("/v1/admin/keys/handz/rotate", "/v1/admin/keys/{app}/rotate"), ("/v1/admin/revocations", "/v1/admin/revocations"),
                                              ("/v1/admin/api-keys", "/v1/admin/api-keys"), ("/v1/admin/webhooks", "/v1/admin/webhooks")]
            for (path, template) in bodies {
                expectStatus(try await check.call(.post, path, template: template, key: admin, raw: "{", contentType: "application/json"), 400)
                expectStatus(try await check.call(.post, path, template: template, key: admin, raw: hugeJSON, contentType: "application/json"), 413)
                expectStatus(try await check.call(.post, path, template: template, key: admin, raw: "suite=x", contentType: "text/plain"), 415)
            }
            let hugeCalendar = String(repeating: "X", count: 1_100_000)
            expectStatus(try await check.call(.post, "/v1/resolve/ics", raw: hugeCalendar, contentType: "text/calendar"), 413)

            // A client key on every admin endpoint: 403.
            for (method, path, template) in Self.adminOperations(kid: oldKid, apiKeyID: spareID) {
                expectStatus(try await check.call(method, path, template: template, key: client, json: Self.body(template)), 403)
            }
            // A client key whose app is no longer loaded (its manifest removed since the key was made).
            let (orphan, orphanSecret) = APIKeyAuthenticator.makeKey(kind: .client, app: "retired-app", label: "orphan")
            try await api.faults.base.insertAPIKey(orphan, audit: nil)
            expectStatus(try await check.call(.post, "/v1/links", key: orphanSecret, json: ["route": "ShareLink/FlowView", "params": flow]), 403)

            // A link id the store already has (a 2^-128 collision, injected): 409.
            api.faults.fault = .linkIDCollision
            expectStatus(try await check.call(.post, "/v1/links", key: client, json: ["route": "ShareLink/FlowView", "params": flow]), 409)
            // The store does not answer: every authenticated endpoint 503 for a key this instance has not seen yet (it
            // cannot be looked up), /readyz 503.
            let (unseen, unseenSecret) = APIKeyAuthenticator.makeKey(kind: .admin, app: nil, label: "made on another instance")
            try await api.faults.base.insertAPIKey(unseen, audit: nil)
            api.faults.fault = .unavailable
            for (method, path, template) in Self.authenticatedOperations(linkID: id, kid: oldKid, apiKeyID: spareID) {
                let reply = try await check.call(method, path, template: template, key: unseenSecret, json: Self.body(template))
                expectStatus(reply, 503)
                #expect(reply.errorCode == "store_unavailable")
            }
            try await Self.exerciseDeferredWithoutStore(check)
            // /readyz answers from one ping a second: it turns within about a second.
            var notReady = try await check.call(.get, "/readyz")
            for _ in 0..<30 where notReady.status == 200 {
                try await Task.sleep(for: .milliseconds(100))
                notReady = try await check.call(.get, "/readyz")
            }
            expectStatus(notReady, 503)
            #expect(notReady.errorCode == "not_ready")
            api.faults.fault = .none
            var ready = try await check.call(.get, "/readyz")
            for _ in 0..<30 where ready.status == 503 {
                try await Task.sleep(for: .milliseconds(100))
                ready = try await check.call(.get, "/readyz")
            }
            expectStatus(ready, 200)
            seen.add(check.statuses)

            let missing = document.operations.subtracting(check.operations)
            #expect(missing.isEmpty, "documented but not exercised: \(missing.sorted())")
            let undocumented = check.operations.subtracting(document.operations)
            #expect(undocumented.isEmpty, "exercised but not documented: \(undocumented.sorted())")
        }

        // A second server for the refusals that use up per-address budgets: 401 on the endpoints above did not
        // refuse yet (a first server would run out of failed authentications), then 429 everywhere.
        try await withAPI(on: backend, { $0.rateLimitPerSecond = 0.001; $0.rateLimitBurst = 3 }) { api in
            let check = Checker(api: api, document: document)
            for (method, path, template) in Self.authenticatedOperations(linkID: String(repeating: "0", count: 32), kid: 1, apiKeyID: "key_000000000000")
            where !["POST /v1/links", "GET /v1/links", "GET /v1/links/{id}", "GET /v1/admin/keys", "POST /v1/admin/backup",
                    "GET /v1/apps/{app}/codegen/{lang}"]
                .contains("\(method.rawValue) \(template)")
                && !template.hasPrefix("/v1/admin/webhooks") && !template.hasPrefix("/v1/admin/apps") {
                expectStatus(try await check.call(method, path, template: template, json: Self.body(template)), 401)
            }
            var statuses: [Int] = []
            for _ in 0..<10 where statuses.last != 429 {
                statuses.append(try await check.call(.get, "/v1/admin/audit", key: "lkd_wrong").status)
            }
            #expect(statuses.last == 429, "\(statuses)")
            try await Self.consoleSignInLockedOut(check)
            // Locked out: every attempt without a valid key is 429 (a valid key is still served: ErrorTests).
            for (method, path, template) in Self.authenticatedOperations(linkID: String(repeating: "0", count: 32), kid: 1, apiKeyID: "key_000000000000") {
                expectStatus(try await check.call(method, path, template: template, key: "lkd_wrong", json: Self.body(template)), 429)
            }
            statuses = []
            for _ in 0..<10 where statuses.last != 429 {
                statuses.append(try await check.call(.get, "/v1/resolve?url=handz://library", template: "/v1/resolve").status)
            }
            #expect(statuses.last == 429, "\(statuses)")
            expectStatus(try await check.call(.post, "/v1/resolve", json: ["url": "handz://library"]), 429)
            expectStatus(try await check.call(.post, "/v1/resolve/ics", raw: "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", contentType: "text/calendar"), 429)
            expectStatus(try await check.call(.get, "/s/AAAA", template: "/s/{token}"), 429)
            expectStatus(try await check.call(.get, "/s/AAAA/qr.svg", template: "/s/{token}/qr.svg"), 429)
            try await Self.exerciseDeferredLimits(check, api: api)
            seen.add(check.statuses)
        }

        // Every documented status of every operation has been answered at least once.
        var unseen: [String] = []
        for (operation, statuses) in document.documentedStatuses {
            for status in statuses.subtracting(seen.all[operation] ?? []).sorted()
            where Self.onlyOn["\(operation) → \(status)"].map({ $0 == backend }) ?? true {
                unseen.append("\(operation) → \(status)")
            }
        }
        #expect(unseen.isEmpty, "documented but never answered: \(unseen.sorted())")
    }

    /// Documented answers one kind of store alone can give.
    static let onlyOn: [String: StoreKind] = [
        "POST /v1/admin/backup → 201": .sqlite, "POST /v1/admin/backup → 422": .postgres,
    ]

    /// The console's pages and forms, each answered as documented.
    static func exerciseConsole(_ check: Checker, api: API, linkID: String, retiredKid: UInt32, apiKeyID: String) async throws {
        let form = "application/x-www-form-urlencoded"
        expectStatus(try await check.call(.get, "/admin/console.css"), 200)
        let signInPage = try await check.call(.get, "/admin/sign-in")
        expectStatus(signInPage, 200)
        let signInToken = try #require(ConsoleClient.csrf(in: signInPage.text))
        let signInCookie = try #require(ConsoleClient.setCookies(signInPage).first?.split(separator: ";").first.map(String.init))
        var signInHeaders: HTTPFields = [.origin: ConsoleClient.origin]
        signInHeaders[.cookie] = signInCookie
        expectStatus(try await check.call(.post, "/admin/sign-in", raw: "key=lkd_wrong&csrf=\(signInToken)", contentType: form, headers: signInHeaders), 401)
        expectStatus(try await check.call(.post, "/admin/sign-in", raw: "key=lkd_wrong", contentType: form, headers: signInHeaders), 403)
        let signedIn = try await check.call(
            .post, "/admin/sign-in", raw: "key=\(ConsoleClient.encode(api.adminKey))&csrf=\(signInToken)", contentType: form, headers: signInHeaders)
        expectStatus(signedIn, 303)
        let session = try #require(ConsoleClient.setCookies(signedIn).first { $0.hasPrefix("linkd_admin=") }?.split(separator: ";").first.map(String.init))
        var withSession: HTTPFields = [.origin: ConsoleClient.origin]
        withSession[.cookie] = session
        let pages: [(String, String)] = [
            ("/admin", "/admin"), ("/admin/keys", "/admin/keys"), ("/admin/keys/handz/rotate", "/admin/keys/{app}/rotate"),
            ("/admin/keys/handz/\(retiredKid)/retire", "/admin/keys/{app}/{kid}/retire"), ("/admin/links?app=handz&owner=u1", "/admin/links"),
            ("/admin/links/\(linkID)", "/admin/links/{id}"), ("/admin/links/\(linkID)/revoke", "/admin/links/{id}/revoke"),
            ("/admin/owners/revoke?app=handz&owner=u1", "/admin/owners/revoke"), ("/admin/api-keys", "/admin/api-keys"),
            ("/admin/api-keys/\(apiKeyID)/revoke", "/admin/api-keys/{id}/revoke"), ("/admin/audit", "/admin/audit"),
            ("/admin/apps", "/admin/apps"),
        ]
        var token = ""
        for (path, template) in pages {
            expectStatus(try await check.call(.get, path, template: template), 303)
            let page = try await check.call(.get, path, template: template, headers: withSession)
            expectStatus(page, 200)
            token = ConsoleClient.csrf(in: page.text) ?? token
        }
        let forms: [(String, String, String)] = [
            ("/admin/keys/handz/rotate", "/admin/keys/{app}/rotate", "suite=hmac-sha256"),
            ("/admin/keys/handz/\(retiredKid)/retire", "/admin/keys/{app}/{kid}/retire", ""),
            ("/admin/links/\(linkID)/revoke", "/admin/links/{id}/revoke", ""),
            ("/admin/owners/revoke", "/admin/owners/revoke", "app=handz&owner=u1"),
            ("/admin/api-keys/\(apiKeyID)/revoke", "/admin/api-keys/{id}/revoke", ""),
            ("/admin/api-keys", "/admin/api-keys", "kind=admin&label=openapi"),
            ("/admin/apps/handz/check", "/admin/apps/{app}/check", "version=1"),
            ("/admin/sign-out", "/admin/sign-out", ""),
        ]
        for (path, template, fields) in forms {
            expectStatus(try await check.call(.post, path, template: template, raw: fields, contentType: form), 303)
            expectStatus(try await check.call(.post, path, template: template, raw: fields, contentType: form, headers: withSession), 403)
            let done = try await check.call(
                .post, path, template: template, raw: fields + (fields.isEmpty ? "" : "&") + "csrf=\(token)", contentType: form, headers: withSession)
            // A new API key's page (201), the impact report of an earlier manifest version (200), else a redirect.
            expectStatus(done, template == "/admin/api-keys" ? 201 : template == "/admin/apps/{app}/check" ? 200 : 303)
        }
    }

    /// The console's sign-in while the address is locked out for failed authentications: 429.
    static func consoleSignInLockedOut(_ check: Checker) async throws {
        let page = try await check.call(.get, "/admin/sign-in")
        let token = try #require(ConsoleClient.csrf(in: page.text))
        var headers: HTTPFields = [.origin: ConsoleClient.origin]
        headers[.cookie] = try #require(ConsoleClient.setCookies(page).first?.split(separator: ";").first.map(String.init))
        let reply = try await check.call(
            .post, "/admin/sign-in", raw: "key=lkd_wrong&csrf=\(token)", contentType: "application/x-www-form-urlencoded", headers: headers)
        expectStatus(reply, 429)
        #expect(reply.headers[.retryAfter] != nil)
    }

    /// Every endpoint that needs an API key, with a path to call it by: (method, path, documented template).
    static func authenticatedOperations(linkID: String, kid: UInt32, apiKeyID: String) -> [(HTTPRequest.Method, String, String)] {
        [(.post, "/v1/links", "/v1/links"), (.get, "/v1/links", "/v1/links"), (.get, "/v1/links/\(linkID)", "/v1/links/{id}"), (.delete, "/v1/links/\(linkID)", "/v1/links/{id}")]
            + [(.get, "/v1/links/\(linkID)/stats", "/v1/links/{id}/stats"), (.get, "/v1/apps/handz/stats", "/v1/apps/{app}/stats")]
            + [(.get, "/v1/apps/handz/codegen/typescript", "/v1/apps/{app}/codegen/{lang}")]
            + adminOperations(kid: kid, apiKeyID: apiKeyID)
    }

    /// Every admin endpoint, with a path to call it by: (method, path, documented template).
    static func adminOperations(kid: UInt32, apiKeyID: String) -> [(HTTPRequest.Method, String, String)] {
        [
            (.get, "/v1/admin/keys", "/v1/admin/keys"),
            (.post, "/v1/admin/keys/handz/rotate", "/v1/admin/keys/{app}/rotate"),
            (.post, "/v1/admin/keys/handz/\(kid)/retire", "/v1/admin/keys/{app}/{kid}/retire"),
            (.post, "/v1/admin/revocations", "/v1/admin/revocations"),
            (.post, "/v1/admin/api-keys", "/v1/admin/api-keys"),
            (.get, "/v1/admin/api-keys", "/v1/admin/api-keys"),
            (.delete, "/v1/admin/api-keys/\(apiKeyID)", "/v1/admin/api-keys/{id}"),
            (.get, "/v1/admin/audit", "/v1/admin/audit"),
            (.post, "/v1/admin/backup", "/v1/admin/backup"),
            (.post, "/v1/admin/webhooks", "/v1/admin/webhooks"),
            (.get, "/v1/admin/webhooks", "/v1/admin/webhooks"),
            (.get, "/v1/admin/webhooks/\(noWebhook)", "/v1/admin/webhooks/{id}"),
            (.patch, "/v1/admin/webhooks/\(noWebhook)", "/v1/admin/webhooks/{id}"),
            (.delete, "/v1/admin/webhooks/\(noWebhook)", "/v1/admin/webhooks/{id}"),
            (.get, "/v1/admin/webhooks/\(noWebhook)/deliveries", "/v1/admin/webhooks/{id}/deliveries"),
        ] + appsOperations
    }

    /// A webhook endpoint id of the documented form that names none.
    static let noWebhook = "wh_" + String(repeating: "0", count: 20)

    /// A valid body for the operations that take one (so that only the key decides the answer).
    static func body(_ template: String) -> [String: Any]? {
        switch template {
        case "/v1/links": ["route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()]]
        case "/v1/admin/revocations": ["app": "handz", "owner": "nobody"]
        case "/v1/admin/api-keys": ["kind": "client", "app": "handz", "label": "x"]
        case "/v1/admin/webhooks": ["app": "handz", "url": "https://hooks.example.invalid/x", "events": ["link.created"]]
        case "/v1/admin/webhooks/{id}": ["enabled": true]
        case "/v1/admin/apps/{app}/manifest": ["manifest": (try? ManifestEdits.example("handz")) ?? ""]
        case "/v1/admin/apps/{app}/manifest/rollback": ["version": 1]
        default: nil
        }
    }

    @Test("the checker refuses answers the document does not allow")
    func checkerRefuses() throws {
        let document = try OpenAPIDocument()
        let created = #"{"id":"0123456789abcdef0123456789abcdef","app":"handz","token":"t","url":"https://x/s/t","expiresAt":"2026-12-01T00:00:00Z"}"#
        #expect(document.problems(method: "POST", template: "/v1/links", status: 201, contentType: "application/json", body: created).isEmpty)
        let missing = #"{"id":"0123456789abcdef0123456789abcdef","app":"handz","token":"t","url":"https://x/s/t"}"#
        #expect(document.problems(method: "POST", template: "/v1/links", status: 201, contentType: "application/json", body: missing).contains { $0.contains("missing expiresAt") })
        let extra = created.dropLast() + #","secret":"x"}"#
        #expect(document.problems(method: "POST", template: "/v1/links", status: 201, contentType: "application/json", body: String(extra)).contains { $0.contains("undocumented field secret") })
        let badError = #"{"error":{"code":"teapot","message":"x"}}"#
        #expect(!document.problems(method: "POST", template: "/v1/links", status: 400, contentType: "application/json", body: badError).isEmpty)
        #expect(!document.problems(method: "POST", template: "/v1/links", status: 418, contentType: "application/json", body: "{}").isEmpty)
        #expect(!document.problems(method: "GET", template: "/healthz", status: 200, contentType: "text/html", body: "ok").isEmpty)
        #expect(!document.problems(method: "PUT", template: "/v1/links", status: 200, contentType: nil, body: "").isEmpty)
        let wrongType = #"{"keys":[{"app":"handz","kid":"1","suite":"ed25519","state":"active","createdAt":"2026-01-01T00:00:00Z","maxTokenLifetimeSeconds":1}]}"#
        #expect(document.problems(method: "GET", template: "/v1/admin/keys", status: 200, contentType: "application/json", body: wrongType).contains { $0.contains("kid") })
    }

    @Test("rate-limited answers are documented, with Retry-After")
    func rateLimitedAnswers() async throws {
        let document = try OpenAPIDocument()
        try await withAPI({ $0.rateLimitPerSecond = 0.01; $0.rateLimitBurst = 1; $0.authFailuresPerMinute = 1 }) { api in
            let check = Checker(api: api, document: document)
            _ = try await check.call(.get, "/v1/resolve?url=handz://library", template: "/v1/resolve")
            let limited = try await check.call(.get, "/v1/resolve?url=handz://library", template: "/v1/resolve")
            #expect(limited.status == 429 && limited.headers[.retryAfter] != nil)
            expectStatus(try await check.call(.get, "/s/AAAA", template: "/s/{token}"), 429)
            var statuses: [Int] = []
            for _ in 0..<12 { statuses.append(try await check.call(.get, "/v1/admin/audit", key: "lkd_wrong").status) }
            #expect(statuses.first == 401 && statuses.last == 429, "\(statuses)")
        }
    }
}

/// The statuses answered per operation ("METHOD /template"), gathered over several servers.
final class SeenStatuses: @unchecked Sendable {  // `statuses` behind `lock`
    private let lock = NSLock()
    private var statuses: [String: Set<Int>] = [:]

    /// Adds a checker's statuses.
    func add(_ more: [String: Set<Int>]) { lock.withLock { statuses.merge(more) { $0.union($1) } } }
    /// Everything added so far.
    var all: [String: Set<Int>] { lock.withLock { statuses } }
}

/// Expects `reply` to have `status`, showing the body when it does not.
private func expectStatus(_ reply: Reply, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == status, "\(reply.text.prefix(300))", sourceLocation: sourceLocation)
}

/// Expects a raw `reply` to have `status`, showing the body when it does not.
private func expectStatus(_ reply: RawConnection.Response, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == status, "\(reply.text.prefix(300))", sourceLocation: sourceLocation)
}
