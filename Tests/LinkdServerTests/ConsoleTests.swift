import Foundation
import HTTPTypes
import HummingbirdTesting
import LinkStore
import LinkdTestSupport
import Testing
import TokenSigning

@testable import LinkdHTTP
@testable import LinkdServer

/// A browser-less client of the console: keeps the session cookie, reads each page's CSRF token, posts forms with
/// the console's own `Origin` (the test client's `Host` is `localhost`).
struct ConsoleClient {
    let api: API
    var session: String?

    static let origin = "http://localhost"

    /// `GET path` with the session cookie.
    func get(_ path: String) async throws -> Reply {
        var headers = HTTPFields()
        if let session { headers[.cookie] = "\(ConsoleSessions.cookieName)=\(session)" }
        return try await api.call(.get, path, headers: headers)
    }

    /// `POST path` of `fields` (URL-encoded) with the session cookie, `origin` as `Origin` (nil: none) and
    /// `cookies` added.
    func post(_ path: String, _ fields: [String: String], origin: String? = ConsoleClient.origin, cookies: [String] = []) async throws -> Reply {
        var headers = HTTPFields()
        let all = (session.map { ["\(ConsoleSessions.cookieName)=\($0)"] } ?? []) + cookies
        if !all.isEmpty { headers[.cookie] = all.joined(separator: "; ") }
        if let origin { headers[.origin] = origin }
        let body = fields.sorted { $0.key < $1.key }.map { "\(Self.encode($0.key))=\(Self.encode($0.value))" }.joined(separator: "&")
        return try await api.call(.post, path, raw: body, contentType: "application/x-www-form-urlencoded", headers: headers)
    }

    /// Signs in with `key` through the sign-in form; the reply to the form's post.
    mutating func signIn(key: String) async throws -> Reply {
        let form = try await get("/admin/sign-in")
        let token = try #require(Self.csrf(in: form.text))
        let cookie = try #require(Self.setCookies(form).first { $0.hasPrefix(ConsoleSessions.signInCookieName + "=") })
        let pair = String(cookie.split(separator: ";")[0])
        let reply = try await post("/admin/sign-in", ["key": key, "csrf": token], cookies: [pair])
        if let set = Self.setCookies(reply).first(where: { $0.hasPrefix(ConsoleSessions.cookieName + "=") }) {
            session = String(set.split(separator: ";")[0].dropFirst(ConsoleSessions.cookieName.count + 1))
        }
        return reply
    }

    /// The CSRF token of the first form on a page.
    static func csrf(in html: String) -> String? {
        guard let range = html.range(of: #"name="csrf" value="([^"]+)""#, options: .regularExpression) else { return nil }
        return String(html[range].dropFirst(#"name="csrf" value=""#.count).dropLast())
    }

    static func setCookies(_ reply: Reply) -> [String] { reply.headers[values: .setCookie] }

    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }
}

@Suite("admin console: sessions, cookies, CSRF, every action audited as its key")
struct ConsoleTests {
    @Test("the overview lists the HTTPS certificates in use and an ACME order that fails, with its error and next attempt")
    func certificatesOnTheOverview() async throws {
        let ca = try TestCertificates()
        let files = try ca.issue("handz", hosts: ["links.handz.example"])
        try await withAPI(on: .sqlite, {
            $0.tls.port = 0
            $0.tls.certificates = [CertificateFiles(certificate: files.certificate, privateKey: files.privateKey)]
            $0.acme.directory = "https://127.0.0.1:9/dir"  // nothing listens: every order fails
            $0.acme.checkIntervalSeconds = 1
            $0.acme.retryBaseSeconds = 3600
        }) { api in
            var console = ConsoleClient(api: api)
            _ = try await console.signIn(key: api.adminKey)
            var page = try await console.get("/admin")
            for _ in 0..<50 where !page.text.contains("order failing") {
                try await Task.sleep(for: .milliseconds(100))
                page = try await console.get("/admin")
            }
            #expect(page.text.contains("HTTPS certificates") && page.text.contains(files.certificate), "the file's certificate")
            #expect(page.text.contains("order failing") && page.text.contains("next attempt"), "\(page.text)")
            let metrics = try await api.call(.get, "/metrics").text
            #expect(metrics.contains("linkd_acme_orders_total{outcome=\"failed\"}"))

            // A flood of made-up challenge tokens: each a 404, and at most the read budget of store reads.
            let started = Date()
            for _ in 0..<200 {
                let token = UUID().uuidString.replacingOccurrences(of: "-", with: "") + "abcdefghijk"
                #expect(try await api.call(.get, "/.well-known/acme-challenge/\(token)").status == 404)
            }
            let budget = ACMEChallengeAnswers.storeReadBurst + ACMEChallengeAnswers.storeReadsPerSecond * (Date().timeIntervalSince(started) + 1)
            #expect(Double(api.faults.challengeReads) <= budget, "\(api.faults.challengeReads) store reads for 200 made-up tokens")
            #expect(api.faults.challengeReads >= 1, "a token not held here is looked for in the store")
        }
    }

    @Test("sign-in: the session cookie is HttpOnly, SameSite=Strict, Path=/admin, no key in it; a wrong key and a client key are refused", arguments: StoreKind.allCases)
    func signInAndCookie(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            var console = ConsoleClient(api: api)
            // Not signed in: every page sends to sign-in.
            for path in ["/admin", "/admin/keys", "/admin/links", "/admin/api-keys", "/admin/audit"] {
                let reply = try await console.get(path)
                #expect(reply.status == 303 && reply.headers[.location] == "/admin/sign-in", "\(path)")
            }
            let form = try await console.get("/admin/sign-in")
            #expect(form.status == 200 && form.headers[.contentType] == "text/html; charset=utf-8")
            let csp = try #require(form.headers[HTTPField.Name("Content-Security-Policy")!])
            #expect(csp.contains("script-src") == false && csp.contains("default-src 'none'") && csp.contains("form-action 'self'"))
            #expect(form.headers[.cacheControl] == "no-store" && form.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            #expect(form.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin", "no-referrer would make browsers send Origin: null")
            #expect(!form.text.contains("<script") && !form.text.contains("style="), "no inline script or style")

            #expect(try await console.signIn(key: "lkd_" + String(repeating: "A", count: 43)).status == 401)
            #expect(console.session == nil)
            let client = try await api.clientKey(app: "handz")
            let refused = try await console.signIn(key: client)
            #expect(refused.status == 403 && refused.text.contains("admin key"))

            let signedIn = try await console.signIn(key: api.adminKey)
            #expect(signedIn.status == 303 && signedIn.headers[.location] == "/admin")
            let cookie = try #require(ConsoleClient.setCookies(signedIn).first { $0.hasPrefix("linkd_admin=") })
            let attributes = Set(cookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(attributes.contains("HttpOnly") && attributes.contains("SameSite=Strict") && attributes.contains("Path=/admin"))
            #expect(attributes.contains { $0.hasPrefix("Max-Age=") })
            #expect(!attributes.contains("Secure"), "loopback host: no Secure (plain-HTTP localhost)")
            let id = try #require(console.session)
            #expect(id.count == 43 && !cookie.contains(api.adminKey) && id != api.adminKey)
            // The store keeps the id's digest, never the id.
            #expect(try await api.store.session(idHash: ConsoleSessions.hash(id)) != nil)
            #expect(try await api.store.session(idHash: Data(id.utf8)) == nil)

            let overview = try await console.get("/admin")
            #expect(overview.status == 200 && overview.text.contains("Overview") && overview.text.contains("this one"))
            #expect(!overview.text.contains(api.adminKey), "the key is never on a page")
        }
    }

    @Test("Secure is set when the console is reached under a name other than loopback")
    func secureCookieOutsideLoopback() async throws {
        try await withAPI { api in
            let port = try #require(api.client.port)
            let connection = try RawConnection(port: port)
            try await connection.send("GET /admin/sign-in HTTP/1.1\r\nHost: admin.example.com\r\n\r\n")
            let reply = try await connection.read()
            #expect(reply.status == 200)
            let cookie = try #require(reply.headers.first { $0.name.lowercased() == "set-cookie" }?.value)
            #expect(cookie.contains("; Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        }
    }

    @Test("notices show only what the store confirms; an Origin with a user name, a path or another scheme is another origin")
    func spoofedNoticesAndOrigins() async throws {
        try await withAPI { api in
            var console = ConsoleClient(api: api)
            _ = try await console.signIn(key: api.adminKey)
            let forged = "ALL KEYS ARE COMPROMISED, paste yours at evil.example"
            let query = forged.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            for path in [
                "/admin/keys?notice=rotated&app=\(query)&kid=1", "/admin/keys?notice=retired&app=handz&kid=\(query)",
                "/admin/keys?notice=retired&app=handz&kid=1",  // key 1 is active, not retired
                "/admin/api-keys?notice=revoked&id=\(query)", "/admin/links?app=handz&owner=\(query)&notice=owner-revoked&count=3",
            ] {
                let page = try await console.get(path)
                #expect(page.status == 200, "\(path)")
                #expect(!page.text.contains("is retired") && !page.text.contains("is now the active key") && !page.text.contains("is revoked."),
                        "\(path): a notice made from the URL")
                #expect(!page.text.contains("Revoked 3 links of ALL"), "\(path)")
            }
            let confirm = try await console.get("/admin/keys/handz/rotate")
            let token = try #require(ConsoleClient.csrf(in: confirm.text))
            for origin in ["http://user@localhost", "http://localhost/admin", "ftp://localhost", "http://localhost:1", "https://localhost.evil.example"] {
                let reply = try await console.post("/admin/keys/handz/rotate", ["suite": "hmac-sha256", "csrf": token], origin: origin)
                #expect(reply.status == 403, "\(origin)")
            }
            #expect(try await console.post("/admin/keys/handz/rotate", ["suite": "hmac-sha256", "csrf": token]).status == 303)
        }
    }

    @Test("a form posted without its CSRF token, with a wrong one, or from another origin is refused; with it, it works and is audited as the key")
    func csrf() async throws {
        try await withAPI { api in
            var console = ConsoleClient(api: api)
            _ = try await console.signIn(key: api.adminKey)
            let confirm = try await console.get("/admin/keys/handz/rotate")
            #expect(confirm.status == 200 && confirm.text.contains("Nothing stops working now"))
            let token = try #require(ConsoleClient.csrf(in: confirm.text))
            let before = try await api.call(.get, "/v1/admin/keys?app=handz", key: api.adminKey).text

            let missing = try await console.post("/admin/keys/handz/rotate", ["suite": "hmac-sha256"])
            #expect(missing.status == 403 && missing.text.contains("security token"))
            let wrong = try await console.post("/admin/keys/handz/rotate", ["suite": "hmac-sha256", "csrf": String(token.reversed())])
            #expect(wrong.status == 403)
            let foreign = try await console.post("/admin/keys/handz/rotate", ["suite": "hmac-sha256", "csrf": token], origin: "https://evil.example")
            #expect(foreign.status == 403 && foreign.text.contains("own pages"))
            let opaque = try await console.post("/admin/keys/handz/rotate", ["suite": "hmac-sha256", "csrf": token], origin: "null")
            #expect(opaque.status == 403)
            // Another session's token does not fit this one.
            var other = ConsoleClient(api: api)
            _ = try await other.signIn(key: api.adminKey)
            let otherToken = try #require(ConsoleClient.csrf(in: try await other.get("/admin/keys").text))
            #expect(try await console.post("/admin/keys/handz/rotate", ["suite": "hmac-sha256", "csrf": otherToken]).status == 403)
            #expect(try await api.call(.get, "/v1/admin/keys?app=handz", key: api.adminKey).text == before, "nothing changed")
            // JSON or another type is not a form.
            var headers = HTTPFields()
            headers[.cookie] = "linkd_admin=\(try #require(console.session))"
            headers[.origin] = ConsoleClient.origin
            let json = try await api.call(.post, "/admin/keys/handz/rotate", json: ["csrf": token], headers: headers)
            #expect(json.status == 415)

            let rotated = try await console.post("/admin/keys/handz/rotate", ["suite": "hmac-sha256", "csrf": token])
            #expect(rotated.status == 303 && rotated.headers[.location]?.hasPrefix("/admin/keys?notice=rotated&app=handz&kid=") == true)
            let keysPage = try await console.get(try #require(rotated.headers[.location]))
            #expect(keysPage.text.contains("is now the active key of handz") && keysPage.text.contains("verifies until"))

            // Audited as the admin key, findable by actor, action and app (console and API read the same log).
            let keyID = try #require(try await api.store.allAPIKeys().first { $0.kind == .admin }?.id)
            let audit = try await api.call(.get, "/v1/admin/audit?action=key.rotate&app=handz&actor=\(keyID)", key: api.adminKey)
            let entries = try #require(audit.json["entries"] as? [[String: Any]])
            #expect(entries.count == 1 && entries.first?["actor"] as? String == keyID && entries.first?["app"] as? String == "handz")
            let coin = try await api.call(.get, "/v1/admin/audit?app=coin&action=key.rotate", key: api.adminKey)
            #expect((coin.json["entries"] as? [Any])?.isEmpty == true)
            let page = try await console.get("/admin/audit?action=key.rotate&app=handz")
            #expect(page.status == 200 && page.text.contains(keyID) && page.text.contains("handz hmac-sha256 kid"))
        }
    }

    @Test("an expired session (idle, or past its absolute limit) and a session of a revoked key are sent to sign-in", arguments: StoreKind.allCases)
    func expiry(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            var console = ConsoleClient(api: api)
            _ = try await console.signIn(key: api.adminKey)
            let id = try #require(console.session)
            #expect(try await console.get("/admin/keys").status == 200)
            // Idle longer than adminSessionIdleSeconds (1800 by default).
            try await api.store.touchSession(idHash: ConsoleSessions.hash(id), at: Date().addingTimeInterval(-1801))
            let idle = try await console.get("/admin/keys")
            #expect(idle.status == 303 && idle.headers[.location] == "/admin/sign-in")
            #expect(ConsoleClient.setCookies(idle).contains { $0.hasPrefix("linkd_admin=;") && $0.contains("Max-Age=0") })
            #expect(try await api.store.session(idHash: ConsoleSessions.hash(id)) == nil, "deleted once found expired")
            // A post with the expired session goes to sign-in too, and does nothing.
            let token = ConsoleSessions.csrfToken(sessionID: id)
            #expect(try await console.post("/admin/keys/handz/rotate", ["csrf": token]).status == 303)

            // Past the absolute limit, however recently used.
            _ = try await console.signIn(key: api.adminKey)
            let second = try #require(console.session)
            let old = Date().addingTimeInterval(-43_201)
            _ = try await api.store.endSession(idHash: ConsoleSessions.hash(second))
            try await api.store.createSession(AdminSessionRecord(
                idHash: ConsoleSessions.hash(second), keyID: try #require(try await api.store.allAPIKeys().first?.id),
                created: old, lastSeen: Date()))
            #expect(try await console.get("/admin").status == 303)

            // A session opened on another instance with a key made there, before this instance's key directory has
            // read it: the key is looked up in the store, and the session stands.
            let (elsewhere, _) = APIKeyAuthenticator.makeKey(kind: .admin, app: nil, label: "made on another instance")
            try await api.faults.base.insertAPIKey(elsewhere, audit: nil)
            let foreignID = Base64URL.encode(SecureRandom.bytes(32))
            try await api.store.createSession(AdminSessionRecord(
                idHash: ConsoleSessions.hash(foreignID), keyID: elsewhere.id, created: Date(), lastSeen: Date()))
            let visitor = ConsoleClient(api: api, session: foreignID)
            let seen = try await visitor.get("/admin")
            #expect(seen.status == 200 && seen.text.contains(elsewhere.id))

            // A new admin key signs in; revoking it ends its session at once.
            let made = try await api.call(.post, "/v1/admin/api-keys", key: api.adminKey, json: ["kind": "admin", "label": "ops"])
            let key = try #require(made.string("key")), keyID = try #require(made.string("id"))
            _ = try await console.signIn(key: key)
            #expect(try await console.get("/admin").status == 200)
            #expect(try await api.call(.delete, "/v1/admin/api-keys/\(keyID)", key: api.adminKey).status == 200)
            #expect(try await console.get("/admin").status == 303)
        }
    }

    @Test("sign-out ends the session in the store: the old cookie no longer works", arguments: StoreKind.allCases)
    func signOut(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            var console = ConsoleClient(api: api)
            _ = try await console.signIn(key: api.adminKey)
            let id = try #require(console.session)
            let page = try await console.get("/admin")
            let token = try #require(ConsoleClient.csrf(in: page.text))
            #expect(try await console.post("/admin/sign-out", [:]).status == 403, "sign-out needs the token too")
            let out = try await console.post("/admin/sign-out", ["csrf": token])
            #expect(out.status == 303 && out.headers[.location] == "/admin/sign-in")
            #expect(ConsoleClient.setCookies(out).contains { $0.hasPrefix("linkd_admin=;") && $0.contains("Max-Age=0") })
            #expect(try await api.store.session(idHash: ConsoleSessions.hash(id)) == nil)
            // Sign-in and sign-out are in the audit log, as the key.
            let keyID = try #require(try await api.store.allAPIKeys().first { $0.kind == .admin }?.id)
            let entries = try await api.store.auditLog(filter: AuditFilter(actor: keyID), limit: 10).map(\.action)
            #expect(entries.prefix(2) == ["console.sign-out", "console.sign-in"])
            // The browser might keep the cookie; the server does not know it any more.
            let replay = try await console.get("/admin")
            #expect(replay.status == 303 && replay.headers[.location] == "/admin/sign-in")
        }
    }

    @Test("wrong keys at sign-in count against the address like the API's: past the burst, 429 with Retry-After")
    func signInLockout() async throws {
        try await withAPI { api in
            var console = ConsoleClient(api: api)
            var statuses: [Int] = []
            for _ in 0..<12 { statuses.append(try await console.signIn(key: "lkd_wrong").status) }
            #expect(statuses.prefix(10).allSatisfy { $0 == 401 })
            let locked = try await console.signIn(key: "lkd_wrong")
            #expect(locked.status == 429 && locked.headers[.retryAfter] != nil)
            // The real key still works for this address (the API's rule: a locked-out address is served with a valid key).
            #expect(try await console.signIn(key: api.adminKey).status == 303)
        }
    }

    @Test("disable user: the confirmation shows the count it will revoke; revoking a link; both audited as the key")
    func ownerAndLinkRevocation() async throws {
        try await withAPI { api in
            let client = try await api.clientKey(app: "handz")
            var ids: [String] = []
            for _ in 0..<3 { ids.append(try #require(try await api.createHandzLink(key: client, owner: "ada")["id"] as? String)) }
            _ = try await api.createHandzLink(key: client, owner: "bob")
            var console = ConsoleClient(api: api)
            _ = try await console.signIn(key: api.adminKey)

            // The search lists an owner's links, newest first, with the filters kept.
            let search = try await console.get("/admin/links?app=handz&owner=ada&status=active")
            #expect(search.status == 200 && ids.allSatisfy { search.text.contains($0) })
            #expect(search.text.contains("<option value=\"handz\" selected>") && search.text.contains("<option value=\"active\" selected>"))
            let bob = try await console.get("/admin/links?owner=bob")
            #expect(ids.allSatisfy { !bob.text.contains($0) } && bob.text.contains("Links, newest first"))
            #expect(try await console.get("/admin/links?status=gone").status == 400)
            #expect(try await console.get("/admin/links?cursor=nope&app=handz").status == 400)
            let inspector = try await console.get("/admin/links/\(ids[0])")
            #expect(inspector.status == 200 && inspector.text.contains("active") && inspector.text.contains("ShareLink/FlowView"))
            let confirmLink = try await console.get("/admin/links/\(ids[0])/revoke")
            let linkToken = try #require(ConsoleClient.csrf(in: confirmLink.text))
            let revoked = try await console.post("/admin/links/\(ids[0])/revoke", ["csrf": linkToken])
            #expect(revoked.status == 303)
            #expect(try await console.get(try #require(revoked.headers[.location])).text.contains("revoked"))

            let panel = try await console.get("/admin/links?app=handz&owner=ada")
            #expect(panel.text.contains("<strong class=\"count\">2</strong>"))
            let confirm = try await console.get("/admin/owners/revoke?app=handz&owner=ada")
            #expect(confirm.text.contains("This revokes 2 active links of ada in handz") && confirm.text.contains("Revoke 2 links"))
            let token = try #require(ConsoleClient.csrf(in: confirm.text))
            let done = try await console.post("/admin/owners/revoke", ["app": "handz", "owner": "ada", "csrf": token])
            #expect(done.status == 303)
            let after = try await console.get(try #require(done.headers[.location]))
            #expect(after.text.contains("Revoked 2 links of this owner.") && after.text.contains("<strong class=\"count\">0</strong>"))
            let listed = try await console.get("/admin/links?app=handz&owner=ada&status=revoked")
            #expect(ids.allSatisfy { listed.text.contains($0) })
            #expect(try await api.store.activeLinkCount(app: "handz", owner: "bob") == 1, "another owner is untouched")

            let keyID = try #require(try await api.store.allAPIKeys().first { $0.kind == .admin }?.id)
            let entries = try await api.store.auditLog(filter: AuditFilter(actor: keyID, app: "handz"), limit: 10)
            #expect(entries.map(\.action).contains("owner.revoke") && entries.map(\.action).contains("link.revoke"))
            // Bad input is a page with the API's status, never a 500.
            #expect(try await console.get("/admin/links/nope").status == 404)
            #expect(try await console.get("/admin/owners/revoke?app=nope&owner=ada").status == 404)
            #expect(try await console.get("/admin/owners/revoke?app=handz&owner=").status == 422)
            #expect(try await console.get("/admin/keys/handz/99/retire").status == 404)
            #expect(try await console.get("/admin/audit?limit=5000").status == 400)
        }
    }

    @Test("API keys: created with its secret shown once (a working key), listed, revoked after a confirmation")
    func apiKeys() async throws {
        try await withAPI { api in
            var console = ConsoleClient(api: api)
            _ = try await console.signIn(key: api.adminKey)
            let page = try await console.get("/admin/api-keys")
            let token = try #require(ConsoleClient.csrf(in: page.text))
            let created = try await console.post("/admin/api-keys", ["kind": "client", "app": "coin", "label": "coin web", "csrf": token])
            #expect(created.status == 201 && created.headers[.cacheControl] == "no-store")
            let secret = try #require(created.text.range(of: #"lkd_[A-Za-z0-9_-]{43}"#, options: .regularExpression).map { String(created.text[$0]) })
            let id = try #require(created.text.range(of: #"<dt>Id</dt><dd><code>key_[0-9a-f]{12}"#, options: .regularExpression)
                .map { String(created.text[$0].suffix(16)) })
            #expect(try await api.store.allAPIKeys().contains { $0.id == id && $0.app == "coin" && $0.kind == .client })
            #expect(try await api.call(.post, "/v1/links", key: secret, json: ["route": "nope"]).status != 401, "the secret works")
            #expect(!(try await console.get("/admin/api-keys")).text.contains(secret), "shown once")
            let confirm = try await console.get("/admin/api-keys/\(id)/revoke")
            #expect(confirm.text.contains("can no longer create or manage links"))
            let revoked = try await console.post("/admin/api-keys/\(id)/revoke", ["csrf": token])
            #expect(revoked.status == 303)
            #expect(try await api.call(.post, "/v1/links", key: secret, json: ["route": "nope"]).status == 401)
            let bad = try await console.post("/admin/api-keys", ["kind": "client", "label": "x", "csrf": token])
            #expect(bad.status == 422 && bad.text.contains("a client key needs"))
        }
    }

    @Test("configuration: adminConsole off serves no console; ops serves it on the ops listener only; bad values are refused")
    func placement() async throws {
        try await withAPI(on: .sqlite, { $0.console.adminConsole = "off" }) { api in
            let reply = try await api.call(.get, "/admin/sign-in")
            #expect(reply.status == 404)
        }
        try await withAPI(on: .sqlite, { $0.ops.opsPort = 0; $0.console.adminConsole = "ops" }) { api in
            #expect(try await api.call(.get, "/admin/sign-in").status == 404)
            let port = try await api.opsPort()
            let connection = try RawConnection(port: port)
            try await connection.send("GET /admin/sign-in HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            let reply = try await connection.read()
            #expect(reply.status == 200 && reply.text.contains("Admin API key"))
        }
        var configuration = ServerConfiguration()
        configuration.console.adminConsole = "everywhere"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.console.adminConsole = "ops"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.console.adminConsole = "public"
        configuration.console.adminSessionIdleSeconds = 10
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
    }
}
