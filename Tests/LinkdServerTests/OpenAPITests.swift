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
        try await withAPI(on: backend, { $0.limits.authFailuresPerMinute = 60_000; $0.links.importMaxBytes = 1 << 20 }) { api in
            let check = Checker(api: api, document: document)
            let admin = api.adminKey

            let (client, spareID) = try await Self.exerciseAPIKeys(check, admin: admin)
            let flow = ["flowId": UUID().uuidString.lowercased()]
            let (id, token, url) = try await Self.exerciseLinks(check, api: api, client: client, admin: admin, flow: flow)
            try await Self.exerciseResolveAndShare(check, api: api, client: client, admin: admin, id: id, token: token, url: url)
            try await Self.exerciseCalendar(check, url: url)
            let oldKid = try await Self.exerciseKeys(check, client: client, admin: admin, token: token)
            try await Self.exerciseRevocationsAuditBackup(check, backend: backend, client: client, admin: admin)
            try await Self.exerciseImports(check, api: api, admin: admin)
            try await Self.exerciseWebhooks(check, api: api, admin: admin, spareID: spareID)
            // The admin console: every page without a session (303 to sign-in) and with one (200); every form without
            // a session (303), without its CSRF token (403) and with it.
            try await Self.exerciseConsole(check, api: api, linkID: id, retiredKid: oldKid, apiKeyID: spareID)

            try await Self.exerciseMethodsAndOps(check, document: document)
            try await Self.exerciseRefusals(check, api: api, client: client, admin: admin, oldKid: oldKid, spareID: spareID, flow: flow)
            try await Self.exerciseStoreFailures(check, api: api, client: client, id: id, oldKid: oldKid, spareID: spareID, flow: flow)
            seen.add(check.statuses)

            let missing = document.operations.subtracting(check.operations)
            #expect(missing.isEmpty, "documented but not exercised: \(missing.sorted())")
            let undocumented = check.operations.subtracting(document.operations)
            #expect(undocumented.isEmpty, "exercised but not documented: \(undocumented.sorted())")
        }

        // A second server for the refusals that use up per-address budgets: 401 on the endpoints above did not
        // refuse yet (a first server would run out of failed authentications), then 429 everywhere.
        try await withAPI(on: backend, { $0.limits.rateLimitPerSecond = 0.001; $0.limits.rateLimitBurst = 3 }) { api in
            let check = Checker(api: api, document: document)
            try await Self.exerciseBudgets(check, api: api)
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
        // A webhook endpoint of Handz for the console's webhook pages (Coin's are at their limit by now).
        let hook = try await api.call(.post, "/v1/admin/webhooks", key: api.adminKey, json: [
            "app": "handz", "url": "https://hooks.example.invalid/console", "events": ["link.created"],
        ])
        let hookID = try #require(hook.string("id"))
        let pages: [(String, String)] = [
            ("/admin", "/admin"), ("/admin/keys", "/admin/keys"), ("/admin/keys/handz/rotate", "/admin/keys/{app}/rotate"),
            ("/admin/keys/handz/\(retiredKid)/retire", "/admin/keys/{app}/{kid}/retire"), ("/admin/links?app=handz&owner=u1", "/admin/links"),
            ("/admin/links/\(linkID)", "/admin/links/{id}"), ("/admin/links/\(linkID)/revoke", "/admin/links/{id}/revoke"),
            ("/admin/owners/revoke?app=handz&owner=u1", "/admin/owners/revoke"), ("/admin/api-keys", "/admin/api-keys"),
            ("/admin/api-keys/\(apiKeyID)/revoke", "/admin/api-keys/{id}/revoke"), ("/admin/audit", "/admin/audit"),
            ("/admin/apps", "/admin/apps"), ("/admin/apps/handz/stats?from=2026-01-01&to=2026-01-31", "/admin/apps/{app}/stats"),
            ("/admin/links/\(linkID)/stats", "/admin/links/{id}/stats"), ("/admin/webhooks", "/admin/webhooks"),
            ("/admin/webhooks/\(hookID)", "/admin/webhooks/{id}"), ("/admin/webhooks/\(hookID)/delete", "/admin/webhooks/{id}/delete"),
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
            ("/admin/webhooks", "/admin/webhooks", "app=handz&url=https%3A%2F%2Fhooks.example.invalid%2Fform&event.link.created=on"),
            ("/admin/webhooks/\(hookID)/state", "/admin/webhooks/{id}/state", "enabled=false"),
            ("/admin/webhooks/\(hookID)/delete", "/admin/webhooks/{id}/delete", ""),
            ("/admin/sign-out", "/admin/sign-out", ""),
        ]
        for (path, template, fields) in forms {
            expectStatus(try await check.call(.post, path, template: template, raw: fields, contentType: form), 303)
            expectStatus(try await check.call(.post, path, template: template, raw: fields, contentType: form, headers: withSession), 403)
            let done = try await check.call(
                .post, path, template: template, raw: fields + (fields.isEmpty ? "" : "&") + "csrf=\(token)", contentType: form, headers: withSession)
            // A new API key's or webhook endpoint's page (201), the impact report of an earlier manifest version (200), else a redirect.
            let created = template == "/admin/api-keys" || template == "/admin/webhooks"
            expectStatus(done, created ? 201 : template == "/admin/apps/{app}/check" ? 200 : 303)
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
            + [(.get, "/v1/links/export?app=handz&format=csv", "/v1/links/export")]
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
            (.post, "/v1/admin/imports?app=handz&format=csv", "/v1/admin/imports"),
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
        let created = #"{"id":"0123456789abcdef0123456789abcdef","app":"handz","token":"t","url":"https://x/s/t","shortURL":"https://x/s/0123456789A","expiresAt":"2026-12-01T00:00:00Z"}"#
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
        try await withAPI({ $0.limits.rateLimitPerSecond = 0.01; $0.limits.rateLimitBurst = 1; $0.limits.authFailuresPerMinute = 1 }) { api in
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
func expectStatus(_ reply: Reply, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == status, "\(reply.text.prefix(300))", sourceLocation: sourceLocation)
}

/// Expects a raw `reply` to have `status`, showing the body when it does not.
func expectStatus(_ reply: RawConnection.Response, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == status, "\(reply.text.prefix(300))", sourceLocation: sourceLocation)
}
