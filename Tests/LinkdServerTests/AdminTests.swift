import Foundation
import HTTPTypes
import HummingbirdTesting
import LinkStore
import Logging
import LinkdTestSupport
import Testing

@testable import LinkdServer

@Suite("API: admin — key rotation, owner revocation, API keys, audit")
struct AdminTests {
    @Test("rotation under traffic: old tokens keep resolving until retired, new ones carry the new kid", arguments: StoreKind.allCases)
    func rotationUnderTraffic(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let key = try await api.clientKey(app: "handz")
            let before = try await api.createHandzLink(key: key)
            let oldToken = try #require(before["token"] as? String)
            let oldURL = try #require(before["url"] as? String)
            let oldKid = try #require(keyID(ofToken: oldToken))

            // Resolve continuously while the key rotates: every answer must stay "active".
            let statuses = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var seen: [String] = []
                        for _ in 0..<25 {
                            let resolution = try await api.resolve(oldURL, state: "free")
                            seen.append((resolution["link"] as? [String: Any])?["status"] as? String ?? "missing")
                        }
                        return seen
                    }
                }
                group.addTask {
                    let rotated = try await api.call(.post, "/v1/admin/keys/handz/rotate", key: api.adminKey)
                    return [rotated.status == 200 ? "rotated" : "rotate failed: \(rotated.text)"]
                }
                var all: [String] = []
                for try await part in group { all += part }
                return all
            }
            #expect(statuses.contains("rotated"))
            #expect(statuses.filter { $0 != "rotated" }.allSatisfy { $0 == "active" })

            let after = try await api.createHandzLink(key: key)
            let newToken = try #require(after["token"] as? String)
            let newKid = try #require(keyID(ofToken: newToken))
            #expect(newKid != oldKid)

            let keys = try await api.call(.get, "/v1/admin/keys?app=handz", key: api.adminKey)
            let list = keys.json["keys"] as? [[String: Any]] ?? []
            let old = list.first { $0["kid"] as? Int == Int(oldKid) }
            #expect(old?["state"] as? String == "verifyOnly")
            #expect(old?["verifyUntil"] != nil)
            #expect(!keys.text.contains("sealed") && !keys.text.contains("secret"), "no key material in the list")

            // The active key cannot be retired; the old one can, and then its tokens are unknown.
            #expect(try await api.call(.post, "/v1/admin/keys/handz/\(newKid)/retire", key: api.adminKey).status == 409)
            let retired = try await api.call(.post, "/v1/admin/keys/handz/\(oldKid)/retire", key: api.adminKey)
            #expect(retired.status == 200)
            #expect(retired.string("state") == "retired")
            let gone = try await api.resolve(oldURL, state: "free")
            #expect((gone["link"] as? [String: Any])?["status"] as? String == "unknown")
            #expect(try await api.call(.get, "/s/\(oldToken)").status == 404)
            #expect(try await api.call(.get, "/s/\(newToken)").status == 200)
            #expect(try await api.call(.post, "/v1/admin/keys/handz/999/retire", key: api.adminKey).status == 404)
            #expect(try await api.call(.post, "/v1/admin/keys/nope/rotate", key: api.adminKey).status == 404)

            let ed = try await api.call(.post, "/v1/admin/keys/handz/rotate", key: api.adminKey, json: ["suite": "ed25519"])
            #expect(ed.status == 200 && ed.string("suite") == "ed25519")
            let edLink = try await api.createHandzLink(key: key, suite: "ed25519")
            #expect((edLink["token"] as? String)?.count == 126)
        }
    }

    @Test("revoking every link of an owner leaves other owners' links alone", arguments: StoreKind.allCases)
    func ownerRevocation(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let key = try await api.clientKey(app: "handz")
            var tokens: [String] = []
            for _ in 0..<3 { tokens.append(try #require(try await api.createHandzLink(key: key, owner: "alice")["token"] as? String)) }
            let bob = try #require(try await api.createHandzLink(key: key, owner: "bob")["token"] as? String)

            let reply = try await api.call(.post, "/v1/admin/revocations", key: api.adminKey, json: ["app": "handz", "owner": "alice"])
            #expect(reply.status == 200)
            #expect(reply.json["revoked"] as? Int == 3)
            for token in tokens { #expect(try await api.call(.get, "/s/\(token)").status == 410) }
            #expect(try await api.call(.get, "/s/\(bob)").status == 200)
            let again = try await api.call(.post, "/v1/admin/revocations", key: api.adminKey, json: ["app": "handz", "owner": "alice"])
            #expect(again.json["revoked"] as? Int == 0)

            let metrics = try await api.call(.get, "/metrics")
            #expect(metrics.text.contains("linkd_revocation_set_size 3"))
            let audit = try await api.call(.get, "/v1/admin/audit", key: api.adminKey)
            #expect(audit.text.contains("owner.revoke"))
        }
    }

    @Test("API keys: created once with their secret, listed without it, revoked keys stop working", arguments: StoreKind.allCases)
    func apiKeys(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let created = try await api.call(.post, "/v1/admin/api-keys", key: api.adminKey, json: ["kind": "client", "app": "ordentus", "label": "ordentus ios"])
            #expect(created.status == 201)
            let secret = try #require(created.string("key"))
            let id = try #require(created.string("id"))
            #expect(secret.hasPrefix("lkd_") && secret.count == 47)

            let list = try await api.call(.get, "/v1/admin/api-keys", key: api.adminKey)
            #expect(list.text.contains(id))
            #expect(!list.text.contains(secret))
            #expect((list.json["apiKeys"] as? [[String: Any]])?.count == 2)

            let link = try await api.call(.post, "/v1/links", key: secret, json: ["route": "Calendar/EventDetail", "params": ["eventId": "e-1"]])
            #expect(link.status == 201)
            #expect(link.string("url")?.hasPrefix("https://links.ordentus.example/s/") == true)

            #expect(try await api.call(.delete, "/v1/admin/api-keys/\(id)", key: api.adminKey).string("revokedAt") != nil)
            #expect(try await api.call(.post, "/v1/links", key: secret, json: ["route": "Calendar/EventDetail"]).status == 401)
            #expect(try await api.call(.delete, "/v1/admin/api-keys/key_nope", key: api.adminKey).status == 404)

            let admin = try await api.call(.post, "/v1/admin/api-keys", key: api.adminKey, json: ["kind": "admin", "label": "second admin"])
            #expect(admin.status == 201)
            #expect(try await api.call(.get, "/v1/admin/keys", key: admin.string("key")).status == 200)
            #expect(try await api.call(.post, "/v1/admin/api-keys", key: api.adminKey, json: ["kind": "client", "label": "no app"]).status == 422)
            #expect(try await api.call(.post, "/v1/admin/api-keys", key: api.adminKey, json: ["kind": "root", "label": "x"]).status == 422)
        }
    }

    @Test("first start writes the admin key to <dataDir>/initial-admin-key (0600) and logs only its path; a stale file stops a later first start")
    func initialAdminKeyFile() async throws {
        let capture = LogCapture()
        let configuration = ServerConfiguration.forTests(dataDir: temporaryDataDir(), logLevel: "trace")
        let first = try await buildServer(configuration: configuration, environment: [:], logger: capture.logger())
        let file = try #require(first.initialAdminKeyFile)
        #expect(file == configuration.store.dataDir + "/initial-admin-key")
        #expect((try FileManager.default.attributesOfItem(atPath: file))[.posixPermissions] as? Int == 0o600)
        let key = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(key.hasPrefix("lkd_"))
        #expect(capture.lines.contains { $0.metadata["action"] == "apikey.create" && $0.metadata["file"] == file })
        for line in capture.lines { #expect(!line.text.contains(key), "the key in the log: \(line.text)") }
        let admins = try await first.store.apiKeys(kind: .admin)
        #expect(admins.count == 1)
        #expect(try await first.store.auditLog(limit: 10).map(\.action) == ["apikey.create"])
        await first.store.close()

        // A later start: an admin key is active, nothing is made.
        let second = try await buildServer(configuration: configuration, environment: [:], logger: capture.logger())
        #expect(second.initialAdminKeyFile == nil)
        // Every admin key revoked: the next start would make one, but the old file is still there — it stops, naming it.
        #expect(try await second.store.revokeAPIKey(id: admins[0].id))
        await second.store.close()
        let stale = await #expect(throws: ConfigurationError.self) {
            _ = try await buildServer(configuration: configuration, environment: [:], logger: capture.logger())
        }
        #expect(stale?.message.contains("\(file) exists") == true, "\(stale?.message ?? "")")
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains(key), "the file is left as it was")
        try FileManager.default.removeItem(atPath: file)
        let third = try await buildServer(configuration: configuration, environment: [:], logger: capture.logger())
        let newKey = try String(contentsOfFile: try #require(third.initialAdminKeyFile), encoding: .utf8)
        #expect(!newKey.contains(key))
        await third.store.close()
    }

    @Test("every admin change is in the audit log with its actor, and logged at notice without a secret")
    func auditAndLog() async throws {
        let capture = LogCapture()
        try await withAPI(logger: capture.logger(), { $0.ops.logLevel = "debug" }) { api in
            let admin = api.adminKey
            let adminID = try #require(
                (try await api.call(.get, "/v1/admin/api-keys", key: admin).json["apiKeys"] as? [[String: Any]])?
                    .first { $0["label"] as? String == "initial admin key" }?["id"] as? String)
            let made = try await api.call(.post, "/v1/admin/api-keys", key: admin, json: ["kind": "client", "app": "handz", "label": "audited"])
            let clientID = try #require(made.string("id")), clientSecret = try #require(made.string("key"))
            let keys = try await api.call(.get, "/v1/admin/keys?app=handz", key: admin).json["keys"] as? [[String: Any]] ?? []
            let oldKid = try #require(keys.first { $0["state"] as? String == "active" && $0["suite"] as? String == "hmac-sha256" }?["kid"] as? Int)
            let newKid = try #require(try await api.call(.post, "/v1/admin/keys/handz/rotate", key: admin).json["kid"] as? Int)
            #expect(try await api.call(.post, "/v1/admin/keys/handz/\(oldKid)/retire", key: admin).status == 200)
            let linkID = try #require(try await api.createHandzLink(key: clientSecret, owner: "carol")["id"] as? String)
            #expect(try await api.call(.delete, "/v1/links/\(linkID)", key: clientSecret).status == 200)
            #expect(try await api.call(.post, "/v1/admin/revocations", key: admin, json: ["app": "handz", "owner": "carol"]).status == 200)
            #expect(try await api.call(.delete, "/v1/admin/api-keys/\(clientID)", key: admin).status == 200)

            // The audit log, newest first.
            let entries = try await api.call(.get, "/v1/admin/audit?limit=20", key: admin).json["entries"] as? [[String: Any]] ?? []
            let audited = entries.map { [$0["action"] as? String ?? "", $0["actor"] as? String ?? "", $0["detail"] as? String ?? ""] }
            let expected = [
                ["apikey.revoke", adminID, clientID],
                ["owner.revoke", adminID, "handz owner carol: 0 links"],
                ["link.revoke", clientID, "handz \(linkID)"],
                ["key.retire", adminID, "handz kid \(oldKid)"],
                ["key.rotate", adminID, "handz hmac-sha256 kid \(newKid)"],
                ["apikey.create", adminID, "\(clientID) client handz"],
                ["apikey.create", "linkd", "\(adminID) admin (first start)"],
            ]
            #expect(audited == expected)

            // The same actions at notice, with structured metadata.
            let notices = capture.lines.filter { $0.level == .notice && $0.metadata["action"] != nil }
            func logged(_ action: String) -> [String: String]? { notices.first { $0.metadata["action"] == action }?.metadata }
            #expect(logged("apikey.create")?["actor"] == "linkd")
            #expect(notices.contains { $0.metadata["action"] == "apikey.create" && $0.metadata["actor"] == adminID && $0.metadata["apiKey"] == clientID
                && $0.metadata["app"] == "handz" && $0.metadata["kind"] == "client" })
            #expect(logged("key.rotate").map { [$0["actor"], $0["app"], $0["suite"], $0["kid"]] } == [adminID, "handz", "hmac-sha256", "\(newKid)"])
            #expect(logged("key.retire").map { [$0["actor"], $0["app"], $0["kid"]] } == [adminID, "handz", "\(oldKid)"])
            #expect(logged("link.revoke").map { [$0["actor"], $0["app"], $0["link"]] } == [clientID, "handz", linkID])
            #expect(logged("owner.revoke").map { [$0["actor"], $0["app"], $0["owner"], $0["revoked"]] } == [adminID, "handz", "carol", "0"])
            #expect(logged("apikey.revoke").map { [$0["actor"], $0["apiKey"]] } == [adminID, clientID])
            for line in capture.lines {
                #expect(!line.text.contains(admin) && !line.text.contains(clientSecret), "a secret in the log: \(line.text)")
            }

            // The request log at debug: method, route pattern, status, duration — through the router and the fast path.
            let requests = capture.lines.filter { $0.level == .debug && $0.message == "request" }
            #expect(requests.contains { $0.metadata["method"] == "POST" && $0.metadata["route"] == "/v1/admin/keys/{app}/rotate"
                && $0.metadata["status"] == "200" && Double($0.metadata["durationMs"] ?? "") != nil })
            let connection = try RawConnection(port: try #require(api.client.port))
            try await connection.send(FastPathTests.get("/healthz"))
            #expect(try await connection.read().status == 200)
            #expect(try await FastPathTests.metric(api, "linkd_fast_path_answers_total") >= 1)
            #expect(capture.lines.contains { $0.message == "request" && $0.metadata["route"] == "/healthz" && $0.metadata["status"] == "200" })
        }
    }
}
