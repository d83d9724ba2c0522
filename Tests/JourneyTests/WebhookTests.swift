import Foundation
import LinkdTestSupport
import Synchronization
import Testing
import TokenSigning

@testable import LinkdHTTP
@testable import LinkdServer

/// Webhooks, end to end: `linkd serve` processes (SQLite, and two on one PostgreSQL), a receiver on
/// loopback that checks every signature per the Standard Webhooks specification, the admin API over real HTTP.
@Suite("Webhooks", .serialized)
struct WebhookTests {
    /// Delivery settings that make retries quick: a test waits seconds, not hours.
    static let quick = "allowLoopbackWebhooks: true\nwebhookPollSeconds: 0.1\nrateLimitPerSecond: 0\n"

    /// Makes an endpoint; its id and secret.
    static func endpoint(
        _ daemon: LinkdDaemon, admin: String, url: String, events: [String] = allEvents, app: String = "handz"
    ) async throws -> (id: String, secret: String) {
        let reply = try await TestHTTP.send("POST", daemon.baseURL + "/v1/admin/webhooks", bearer: admin,
                                            json: ["app": app, "url": url, "events": events])
        #expect(reply.status == 201, "\(String(decoding: reply.body, as: UTF8.self))")
        return (try #require(reply.json["id"] as? String), try #require(reply.json["secret"] as? String))
    }

    static let allEvents = ["link.created", "link.revoked", "link.deleted", "link.claimed", "key.rotated", "key.retired", "owner.revoked"]

    /// Makes a Handz link; its id.
    @discardableResult
    static func link(_ daemon: LinkdDaemon, admin: String, owner: String = "u1") async throws -> String {
        let reply = try await TestHTTP.send("POST", daemon.baseURL + "/v1/links", bearer: admin, json: [
            "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()], "owner": owner,
        ])
        #expect(reply.status == 201)
        return try #require(reply.json["id"] as? String)
    }

    /// Waits up to `seconds` for `condition`.
    static func eventually(_ seconds: Double = 15, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    /// An endpoint's delivery log, newest first.
    static func log(_ daemon: LinkdDaemon, admin: String, _ id: String) async throws -> [[String: Any]] {
        let reply = try await TestHTTP.send("GET", daemon.baseURL + "/v1/admin/webhooks/\(id)/deliveries?limit=100", bearer: admin)
        #expect(reply.status == 200)
        return reply.json["deliveries"] as? [[String: Any]] ?? []
    }

    /// A metric's value (summed over the series whose line starts with `series`).
    static func metric(_ daemon: LinkdDaemon, _ series: String) async throws -> Double {
        let reply = try await TestHTTP.send("GET", daemon.baseURL + "/metrics")
        return String(decoding: reply.body, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix(series) }
            .compactMap { Double($0.split(separator: " ").last!) }.reduce(0, +)
    }

    @Test("every kind of event reaches a loopback receiver, signed per the specification; an endpoint gets only what it subscribed to")
    func signedEvents() async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { port in
            let daemon = try LinkdDaemon(configuration: Self.quick)
            defer { daemon.stop() }
            let admin = try #require(daemon.initialAdminKey)
            let all = try await Self.endpoint(daemon, admin: admin, url: "http://127.0.0.1:\(port)/hook")
            #expect(all.secret.hasPrefix("whsec_"))
            receiver.setSecret(all.secret)
            let keysOnly = try await Self.endpoint(
                daemon, admin: admin, url: "http://localhost:\(port)/keys", events: ["key.rotated"])
            receiver.setSecret(keysOnly.secret, path: "/keys")
            // Another app's endpoint hears nothing of Handz.
            let coin = try await Self.endpoint(daemon, admin: admin, url: "http://127.0.0.1:\(port)/coin", app: "coin")

            // The secret is shown once: never in a list or a read.
            let listed = try await TestHTTP.send("GET", daemon.baseURL + "/v1/admin/webhooks?app=handz", bearer: admin)
            #expect((listed.json["webhooks"] as? [[String: Any]])?.count == 2)
            #expect(!String(decoding: listed.body, as: UTF8.self).contains("whsec_"))
            let shown = try await TestHTTP.send("GET", daemon.baseURL + "/v1/admin/webhooks/\(all.id)", bearer: admin)
            #expect(shown.json["secret"] == nil && shown.json["url"] as? String == "http://127.0.0.1:\(port)/hook")

            let created = try await Self.link(daemon, admin: admin)
            #expect(try await TestHTTP.send("DELETE", daemon.baseURL + "/v1/links/\(created)", bearer: admin).status == 200)
            // A second revocation of the same link revokes nothing new: no second event.
            #expect(try await TestHTTP.send("DELETE", daemon.baseURL + "/v1/links/\(created)", bearer: admin).status == 200)
            try await Self.link(daemon, admin: admin, owner: "u9")
            let owner = try await TestHTTP.send("POST", daemon.baseURL + "/v1/admin/revocations", bearer: admin,
                                                json: ["app": "handz", "owner": "u9"])
            #expect(owner.json["revoked"] as? Int == 1)
            #expect(try await TestHTTP.send("POST", daemon.baseURL + "/v1/admin/keys/handz/rotate", bearer: admin).status == 200)
            let keys = try await TestHTTP.send("GET", daemon.baseURL + "/v1/admin/keys?app=handz", bearer: admin)
            let old = try #require((keys.json["keys"] as? [[String: Any]])?.first {
                $0["state"] as? String == "verifyOnly" && $0["suite"] as? String == "hmac-sha256"
            })
            let kid = try #require(old["kid"] as? Int)
            #expect(try await TestHTTP.send("POST", daemon.baseURL + "/v1/admin/keys/handz/\(kid)/retire", bearer: admin).status == 200)

            let expected = ["link.created", "link.revoked", "link.created", "owner.revoked", "key.rotated", "key.retired"]
            #expect(await Self.eventually { receiver.accepted.filter { $0.path == "/hook" }.count >= expected.count })
            #expect(await Self.eventually { receiver.accepted.contains { $0.path == "/keys" } })
            try await Task.sleep(for: .milliseconds(500))  // anything extra would have come by now
            let hook = receiver.deliveries.filter { $0.path == "/hook" }
            #expect(Set(hook.compactMap(\.type)) == Set(expected), "\(hook.compactMap(\.type))")
            #expect(hook.count == expected.count, "one delivery per event: \(hook.compactMap(\.type))")
            for delivery in receiver.deliveries {
                #expect(delivery.verified, "\(delivery.path) \(delivery.id): the signature does not verify")
                #expect(delivery.id.hasPrefix("msg_") && delivery.contentType == "application/json")
                #expect(delivery.json["timestamp"] is String && delivery.json["data"] is [String: Any])
            }
            #expect(Set(hook.map(\.id)).count == hook.count, "each event has its own webhook-id")
            // Deliveries go out concurrently: the receiver sees them in any order.
            let linkCreated = try #require(hook.first { $0.type == "link.created" && $0.data["id"] as? String == created })
            #expect(linkCreated.data["route"] as? String == "ShareLink/FlowView" && linkCreated.data["status"] as? String == "active")
            #expect(hook.first { $0.type == "link.revoked" }?.data["status"] as? String == "revoked")
            #expect(hook.first { $0.type == "owner.revoked" }?.data["revoked"] as? Int == 1)
            #expect(hook.first { $0.type == "key.retired" }?.data["kid"] as? Int == kid)
            #expect(receiver.deliveries.filter { $0.path == "/keys" }.compactMap(\.type) == ["key.rotated"])
            #expect(!receiver.deliveries.contains { $0.path == "/coin" })

            // The delivery log, newest first; the audit log; the metrics.
            let log = try await Self.log(daemon, admin: admin, all.id)
            #expect(log.count == expected.count)
            #expect(log.allSatisfy { $0["outcome"] as? String == "delivered" && $0["status"] as? Int == 204 && $0["attempt"] as? Int == 1 })
            let audit = try await TestHTTP.send("GET", daemon.baseURL + "/v1/admin/audit", bearer: admin)
            let actions = (audit.json["entries"] as? [[String: Any]])?.compactMap { $0["action"] as? String } ?? []
            #expect(actions.filter { $0 == "webhook.create" }.count == 3)
            #expect(try await Self.metric(daemon, "linkd_webhook_deliveries_total{outcome=\"delivered\"}") == Double(expected.count + 1))
            #expect(try await Self.metric(daemon, "linkd_webhook_outbox_depth") == 0)
            _ = coin
        }
    }

    @Test("a deferred claim emits link.claimed, once: the Android store redirect's code claimed, then claimed again (404, no event)",
          arguments: [false, true])
    func claimedEvent(onPostgres: Bool) async throws {
        let environment = onPostgres
            ? ["LINKD_DATABASE_URL": try TestPostgres.shared().freshDatabase(), "LINKD_MASTER_KEY": Base64URL.encode(SecureRandom.bytes(32))]
            : [:]
        let receiver = WebhookReceiver()
        try await receiver.run { port in
            let daemon = try LinkdDaemon(configuration: Self.quick, environment: environment)
            defer { daemon.stop() }
            let admin = try #require(daemon.initialAdminKey)
            let hook = try await Self.endpoint(
                daemon, admin: admin, url: "http://127.0.0.1:\(port)/hook", events: ["link.claimed"], app: "ordentus")
            receiver.setSecret(hook.secret)
            let made = try await TestHTTP.send("POST", daemon.baseURL + "/v1/links", bearer: admin, json: [
                "app": "ordentus", "route": "Calendar/EventDetail", "params": ["eventId": "standup"], "title": "Team standup",
            ])
            #expect(made.status == 201)
            let id = try #require(made.json["id"] as? String)
            let token = try #require(made.json["token"] as? String)
            let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"
            // A raw request: URLSession would follow the redirect to Google Play.
            let connection = try RawConnection(port: try #require(URLComponents(string: daemon.baseURL)?.port))
            try await connection.send("GET /s/\(token)/install/android HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: \(android)\r\n\r\n")
            let redirect = try await connection.read()
            #expect(redirect.status == 302)
            let code = try #require(ClaimCodeText.code(inPlayRedirect: redirect.header("Location")))
            let claim = try await TestHTTP.send("POST", daemon.baseURL + "/v1/claims/\(code)", json: ["state": "signedIn"])
            #expect(claim.status == 200)
            #expect(await Self.eventually { receiver.accepted.contains { $0.type == "link.claimed" } })
            let event = try #require(receiver.accepted.first { $0.type == "link.claimed" })
            #expect(event.verified)
            #expect((event.data["link"] as? [String: Any])?["id"] as? String == id)
            #expect(event.data["platform"] as? String == "android")
            #expect(try await TestHTTP.send("POST", daemon.baseURL + "/v1/claims/\(code)", json: ["state": "signedIn"]).status == 404)
            try await Task.sleep(for: .seconds(1))
            #expect(receiver.accepted.filter { $0.type == "link.claimed" }.count == 1)
        }
    }

    @Test("a receiver that fails, then recovers: the event is retried with backoff under the same webhook-id until taken")
    func failThenRecover() async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { port in
            let daemon = try LinkdDaemon(configuration: Self.quick + "webhookRetryBaseSeconds: 0.2\nwebhookMaxAttempts: 6\n")
            defer { daemon.stop() }
            let admin = try #require(daemon.initialAdminKey)
            let hook = try await Self.endpoint(daemon, admin: admin, url: "http://127.0.0.1:\(port)/hook", events: ["link.created"])
            receiver.setSecret(hook.secret)
            receiver.fail(2, status: 500)
            let id = try await Self.link(daemon, admin: admin)
            #expect(await Self.eventually { receiver.accepted.count == 1 })
            let attempts = receiver.deliveries
            #expect(attempts.count == 3)
            #expect(Set(attempts.map(\.id)).count == 1, "every attempt of one event carries its webhook-id")
            #expect(attempts.allSatisfy { $0.verified } && attempts.allSatisfy { $0.data["id"] as? String == id })
            let log = try await Self.log(daemon, admin: admin, hook.id)
            #expect(log.compactMap { $0["outcome"] as? String } == ["delivered", "retrying", "retrying"])
            #expect(log.compactMap { $0["attempt"] as? Int } == [3, 2, 1])
            #expect(log.dropFirst().allSatisfy { $0["status"] as? Int == 500 && ($0["error"] as? String)?.contains("500") == true })
            #expect(try await Self.metric(daemon, "linkd_webhook_deliveries_total{outcome=\"retrying\"}") == 2)
        }
    }

    @Test("deliveries ignore the proxy the environment names: straight to the address checked, never through a proxy")
    func noProxy() async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { port in
            // A proxy that answers nothing (the discard port): a delivery sent through it would never arrive.
            let proxy = "http://127.0.0.1:9"
            let daemon = try LinkdDaemon(configuration: Self.quick, environment: [
                "http_proxy": proxy, "https_proxy": proxy, "HTTPS_PROXY": proxy, "ALL_PROXY": proxy, "all_proxy": proxy,
            ])
            defer { daemon.stop() }
            let admin = try #require(daemon.initialAdminKey)
            let hook = try await Self.endpoint(daemon, admin: admin, url: "http://127.0.0.1:\(port)/hook", events: ["link.created"])
            receiver.setSecret(hook.secret)
            try await Self.link(daemon, admin: admin)
            #expect(await Self.eventually { receiver.accepted.count == 1 }, "the delivery went to the proxy")
        }
    }

    @Test("retries run out: the endpoint is marked failing and queues nothing; enabling it brings it back; 410 Gone fails it at once")
    func failingEndpoint() async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { port in
            let daemon = try LinkdDaemon(configuration: Self.quick + "webhookRetryBaseSeconds: 0.1\nwebhookMaxAttempts: 2\n")
            defer { daemon.stop() }
            let admin = try #require(daemon.initialAdminKey)
            let hook = try await Self.endpoint(daemon, admin: admin, url: "http://127.0.0.1:\(port)/hook", events: ["link.created"])
            receiver.setSecret(hook.secret)
            receiver.fail(Int.max, status: 503)
            try await Self.link(daemon, admin: admin)
            func failing() async throws -> Bool {
                let shown = try await TestHTTP.send("GET", daemon.baseURL + "/v1/admin/webhooks/\(hook.id)", bearer: admin)
                return shown.json["failing"] as? Bool == true
            }
            #expect(try await Self.eventually { try await failing() })
            #expect(receiver.deliveries.count == 2)
            #expect(try await Self.log(daemon, admin: admin, hook.id).compactMap { $0["outcome"] as? String } == ["failed", "retrying"])
            // While failing, nothing is queued for it.
            try await Self.link(daemon, admin: admin)
            try await Task.sleep(for: .milliseconds(600))
            #expect(receiver.deliveries.count == 2)
            // An admin enables it again: failing is cleared, new events go out.
            receiver.fail(0)
            let enabled = try await TestHTTP.send("PATCH", daemon.baseURL + "/v1/admin/webhooks/\(hook.id)", bearer: admin,
                                                  json: ["enabled": true])
            #expect(enabled.status == 200 && enabled.json["failing"] as? Bool == false)
            let third = try await Self.link(daemon, admin: admin)
            #expect(await Self.eventually { receiver.accepted.contains { $0.data["id"] as? String == third } })

            // A receiver that answers 410 Gone says the endpoint is no more: failing after one attempt.
            receiver.fail(Int.max, status: 410)
            try await Self.link(daemon, admin: admin)
            #expect(try await Self.eventually { try await failing() })
            #expect(try await Self.log(daemon, admin: admin, hook.id).first?["status"] as? Int == 410)
        }
    }

    @Test("undelivered events survive a graceful restart and kill -9: none is lost")
    func durableOutbox() async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { port in
            let settings = Self.quick + "webhookRetryBaseSeconds: 0.3\nwebhookMaxAttempts: 30\n"
            let dir = temporaryDataDir()
            let first = try LinkdDaemon(dataDir: dir, configuration: settings)
            let admin = try #require(first.initialAdminKey)
            let hook = try await Self.endpoint(first, admin: admin, url: "http://127.0.0.1:\(port)/hook", events: ["link.created"])
            receiver.setSecret(hook.secret)
            receiver.fail(Int.max, status: 503)
            var made: [String] = []
            for _ in 0..<8 { made.append(try await Self.link(first, admin: admin)) }
            #expect(await Self.eventually { receiver.deliveries.count >= 8 }, "the first attempts were made (and failed)")
            #expect(first.stop(signal: SIGTERM))

            let second = try LinkdDaemon(dataDir: dir, configuration: settings)
            for _ in 0..<8 { made.append(try await Self.link(second, admin: admin)) }
            second.stop(signal: SIGKILL)  // acknowledged events, some never attempted, none delivered

            receiver.fail(0)
            let third = try LinkdDaemon(dataDir: dir, configuration: settings)
            defer { third.stop() }
            let delivered = { Set(receiver.accepted.compactMap { $0.data["id"] as? String }) }
            #expect(await Self.eventually(20) { delivered().isSuperset(of: made) }, "lost: \(Set(made).subtracting(delivered()))")
            #expect(receiver.deliveries.allSatisfy { $0.verified })
            #expect(await Self.eventually { (try? await Self.metric(third, "linkd_webhook_outbox_depth")) == 0 })
        }
    }

    @Test("two instances on one PostgreSQL store deliver each event once")
    func twoInstancesDeliverOnce() async throws {
        let cluster = try TestPostgres.shared()
        let database = try cluster.freshDatabase()
        let environment = ["LINKD_DATABASE_URL": database, "LINKD_MASTER_KEY": Base64URL.encode(SecureRandom.bytes(32))]
        let receiver = WebhookReceiver()
        try await receiver.run { port in
            let settings = "allowLoopbackWebhooks: true\nwebhookPollSeconds: 0.05\nrateLimitPerSecond: 0\n"
            let a = try LinkdDaemon(configuration: settings, environment: environment)
            let b = try LinkdDaemon(configuration: settings, environment: environment)
            defer {
                a.stop()
                b.stop()
            }
            let admin = try #require(a.initialAdminKey)
            let hook = try await Self.endpoint(a, admin: admin, url: "http://127.0.0.1:\(port)/hook", events: ["link.created"])
            receiver.setSecret(hook.secret)
            let made = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<40 { group.addTask { try await Self.link(index.isMultiple(of: 2) ? a : b, admin: admin) } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(await Self.eventually(20) { receiver.accepted.count >= made.count })
            try await Task.sleep(for: .seconds(1))  // a second delivery of anything would have come by now
            let deliveries = receiver.deliveries
            #expect(Set(deliveries.compactMap { $0.data["id"] as? String }) == Set(made))
            #expect(deliveries.count == made.count, "\(deliveries.count) deliveries of \(made.count) events")
            #expect(Set(deliveries.map(\.id)).count == deliveries.count)
            #expect(deliveries.allSatisfy { $0.verified })
            let byA = try await Self.metric(a, "linkd_webhook_deliveries_total{outcome=\"delivered\"}")
            let byB = try await Self.metric(b, "linkd_webhook_deliveries_total{outcome=\"delivered\"}")
            #expect(byA + byB == Double(made.count))
            print("webhooks on a shared store: instance A delivered \(Int(byA)), instance B \(Int(byB)) of \(made.count)")
        }
    }

    @Test("SSRF: private and loopback URLs refused at creation; a name that resolves to loopback refused at delivery")
    func ssrf() async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { port in
            let daemon = try LinkdDaemon(configuration: "webhookPollSeconds: 0.1\n")  // allowLoopbackWebhooks: false
            defer { daemon.stop() }
            let admin = try #require(daemon.initialAdminKey)
            for url in ["http://hooks.example.com/", "http://127.0.0.1:\(port)/hook", "https://127.0.0.1/", "https://localhost/",
                        "https://10.0.0.7/", "https://169.254.169.254/", "https://[::1]/", "https://[::ffff:127.0.0.1]/",
                        "https://[fe80::1]/", "https://0x7f000001/", "https://user:pw@hooks.example.com/",
                        // IPv4 carried in IPv6: NAT64 (10.0.0.1), 6to4 (10.0.0.1), translated (127.0.0.1), Teredo.
                        "https://[64:ff9b::a00:1]/", "https://[2002:a00:1::1]/", "https://[::ffff:0:7f00:1]/",
                        "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/"] {
                let reply = try await TestHTTP.send("POST", daemon.baseURL + "/v1/admin/webhooks", bearer: admin,
                                                    json: ["app": "handz", "url": url, "events": ["link.created"]])
                #expect(reply.status == 422, "\(url) was taken")
                #expect((reply.json["error"] as? [String: Any])?["code"] as? String == "unprocessable")
            }
            // This machine's own name resolves to a loopback (or private) address: taken at creation (a name), refused
            // when a delivery is about to connect to it.
            let name = try #require(Self.nameResolvingToThisMachine(), "no name of this machine resolves to a non-public address")
            let hook = try await Self.endpoint(daemon, admin: admin, url: "https://\(name):\(port)/hook", events: ["link.created"])
            try await Self.link(daemon, admin: admin)
            #expect(await Self.eventually { ((try? await Self.log(daemon, admin: admin, hook.id)) ?? []).count >= 1 })
            let attempt = try #require(try await Self.log(daemon, admin: admin, hook.id).first)
            #expect(attempt["outcome"] as? String == "retrying" && attempt["status"] == nil)
            #expect((attempt["error"] as? String)?.contains("addressRefused") == true, "\(attempt)")
            #expect(receiver.deliveries.isEmpty, "no byte reached the receiver")
        }
    }

    /// The machine's host name when it resolves only to addresses the webhook policy refuses (loopback or private).
    static func nameResolvingToThisMachine() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard !name.isEmpty, getaddrinfo(name, nil, &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(result) }
        var addresses: [[UInt8]] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if entry.pointee.ai_family == AF_INET, let address = entry.pointee.ai_addr {
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    addresses.append(withUnsafeBytes(of: v4.pointee.sin_addr) { Array($0) })
                }
            }
            cursor = entry.pointee.ai_next
        }
        let policy = WebhookURLPolicy(allowLoopback: false)
        guard !addresses.isEmpty, addresses.allSatisfy({ !policy.allows(IPAddress(networkBytes: $0)) }) else { return nil }
        return name
    }
}
