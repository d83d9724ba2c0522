import Foundation
import HTTPTypes
import LinkStore
import LinkdTestSupport
import Testing

@testable import LinkdServer

/// The sections of `documentMatchesServer`, one per group of endpoints, in the order it calls them.
extension OpenAPITests {
    /// API keys: made, refused, listed, revoked; returns the client key and the spare admin key's id.
    static func exerciseAPIKeys(_ check: Checker, admin: String) async throws -> (client: String, spareID: String) {
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
        return (client, spareID)
    }

    /// Links made, read, listed and refused; returns the first link's id, token and URL.
    static func exerciseLinks(_ check: Checker, api: API, client: String, admin: String, flow: [String: String]) async throws -> (id: String, token: String, url: String) {
        // Links.
        let created = try await check.call(.post, "/v1/links", key: client, json: ["route": "ShareLink/FlowView", "params": flow, "owner": "u1", "title": "Flow"])
        #expect(created.status == 201)
        let id = try #require(created.string("id")), token = try #require(created.string("token")), url = try #require(created.string("url"))
        expectStatus(try await check.call(.post, "/v1/links", json: ["route": "ShareLink/FlowView"]), 401)
        expectStatus(try await check.call(.post, "/v1/links", key: client, raw: "{", contentType: "application/json"), 400)
        expectStatus(try await check.call(.post, "/v1/links", key: client, json: ["route": "Library/Home"]), 422)
        expectStatus(try await check.call(.post, "/v1/links", key: client, raw: "route", contentType: "text/plain"), 415)
        let oversized = "{\"route\":\"" + String(repeating: "r", count: api.configuration.http.maxBodyBytes) + "\"}"
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
        // Exports.
        let export = "/v1/links/export"
        expectStatus(try await check.call(.get, "\(export)?format=ndjson", template: export, key: client), 200)
        expectStatus(try await check.call(.get, "\(export)?app=handz&format=csv", template: export, key: admin), 200)
        expectStatus(try await check.call(.get, "\(export)?app=handz&format=xlsx", template: export, key: admin), 400)
        expectStatus(try await check.call(.get, "\(export)?app=coin&format=csv", template: export, key: client), 403)
        expectStatus(try await check.call(.get, "\(export)?app=nope&format=csv", template: export, key: admin), 404)
        expectStatus(try await check.call(.get, "\(export)?app=handz&format=csv", template: export), 401)
        return (id, token, url)
    }

    /// Resolution before and after revocation, the share path, the deferred and apps endpoints, the web files.
    static func exerciseResolveAndShare(_ check: Checker, api: API, client: String, admin: String, id: String, token: String, url: String) async throws {
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
    }

    /// `.ics` bodies: resolved, refused by type, line length, and state.
    static func exerciseCalendar(_ check: Checker, url: String) async throws {
        // .ics
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTART:20261201T100000Z\r\nURL:\(url)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        expectStatus(try await check.call(.post, "/v1/resolve/ics?state=free", template: "/v1/resolve/ics", raw: ics, contentType: "text/calendar"), 200)
        expectStatus(try await check.call(.post, "/v1/resolve/ics", raw: ics, contentType: "application/json"), 415)
        let longLine = "BEGIN:VCALENDAR\r\nX-LONG:" + String(repeating: "l", count: 300_000) + "\r\nEND:VCALENDAR\r\n"
        expectStatus(try await check.call(.post, "/v1/resolve/ics", raw: longLine, contentType: "text/calendar"), 422)
        expectStatus(try await check.call(.post, "/v1/resolve/ics", raw: "hello", contentType: "text/calendar"), 200)
        expectStatus(try await check.call(.post, "/v1/resolve/ics?state=", template: "/v1/resolve/ics", raw: ics, contentType: "text/calendar"), 400)
    }

    /// Signing keys: listed, rotated, retired; returns the retired key id (the token's).
    static func exerciseKeys(_ check: Checker, client: String, admin: String, token: String) async throws -> UInt32 {
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
        return oldKid
    }

    /// Owner revocation, the audit log, backups.
    static func exerciseRevocationsAuditBackup(_ check: Checker, backend: StoreKind, client: String, admin: String) async throws {
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
    }

    /// Webhook endpoints (their deliveries go nowhere: `.invalid` never resolves), and 401 without a key.
    static func exerciseWebhooks(_ check: Checker, api: API, admin: String, spareID: String) async throws {
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
        let hugePatch = "{\"url\":\"" + String(repeating: "u", count: api.configuration.http.maxBodyBytes) + "\"}"
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
    }

    /// Every path asked with methods it does not list, the ops endpoints, the well-known files of a served host.
    static func exerciseMethodsAndOps(_ check: Checker, document: OpenAPIDocument) async throws {
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
    }

    /// Bodies the admin endpoints refuse, a client key on admin endpoints, a client key of an app no longer loaded.
    static func exerciseRefusals(_ check: Checker, api: API, client: String, admin: String, oldKid: UInt32, spareID: String, flow: [String: String]) async throws {
        // Bodies the admin endpoints refuse: malformed, oversized, of the wrong type.
        let hugeJSON = "{\"suite\":\"" + String(repeating: "s", count: api.configuration.http.maxBodyBytes) + "\"}"
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
    }

    /// A link-id collision, and a store that does not answer: 503 everywhere for an unseen key, /readyz down and up.
    static func exerciseStoreFailures(_ check: Checker, api: API, client: String, id: String, oldKid: UInt32, spareID: String, flow: [String: String]) async throws {
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
    }

    /// The per-address budgets: 401s until failed authentications lock the address out, then 429 everywhere.
    static func exerciseBudgets(_ check: Checker, api: API) async throws {
        for (method, path, template) in Self.authenticatedOperations(linkID: String(repeating: "0", count: 32), kid: 1, apiKeyID: "key_000000000000")
        where !["POST /v1/links", "GET /v1/links", "GET /v1/links/{id}", "GET /v1/links/export", "GET /v1/admin/keys", "POST /v1/admin/backup",
                "GET /v1/apps/{app}/codegen/{lang}", "POST /v1/admin/imports"]
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
    }
}
