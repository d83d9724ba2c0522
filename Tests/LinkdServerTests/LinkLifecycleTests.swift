import Foundation
import HTTPTypes
import LinkRouter
import LinkStore
import Logging
import LinkdTestSupport
import Testing
import TokenSigning

@testable import LinkdServer

@Suite("API: share-link life cycle")
struct LinkLifecycleTests {
    /// Signing keys in force with one HMAC-SHA256 key of Handz, in memory.
    static func handzKeys() throws -> KeysInForce {
        let master = try MasterKey(bytes: SecureRandom.bytes(32))
        let change = try KeyRotation.generate(records: [], app: "handz", suite: .hmacSHA256, masterKey: master)
        return KeysInForce(try Keyring(records: change.records, masterKey: master))
    }

    @Test("create → resolve → share path → inspect → revoke → resolve is unavailable → share path 410", arguments: StoreKind.allCases)
    func lifecycle(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let key = try await api.clientKey(app: "handz")
            let link = try await api.createHandzLink(key: key)
            let id = try #require(link["id"] as? String)
            let token = try #require(link["token"] as? String)
            let url = try #require(link["url"] as? String)
            #expect(url == "https://links.handz.example/s/\(token)")
            #expect(token.count == 83)

            let active = try await api.resolve(url, state: "free")
            #expect(active["outcome"] as? String == "route")
            #expect(active["route"] as? String == "ShareLink/FlowView")
            #expect((active["link"] as? [String: Any])?["status"] as? String == "active")
            #expect((active["link"] as? [String: Any])?["id"] as? String == id)

            let get = try await api.call(.get, "/v1/resolve?url=\(url)&state=signedOut")
            #expect(get.status == 200)
            #expect(get.headers[.cacheControl] == "no-store")

            let open = try await api.call(.get, "/s/\(token)")
            #expect(open.status == 200)
            #expect(open.headers[.cacheControl] == "no-store")
            _ = try await api.call(.get, "/s/\(token)")

            let inspected = try await api.call(.get, "/v1/links/\(id)", key: key)
            #expect(inspected.status == 200)
            #expect(inspected.string("status") == "active")
            #expect(inspected.json["clicks"] as? Int == 2)
            #expect(inspected.string("lastOpenedAt") != nil)
            #expect(inspected.string("owner") == "u1")

            let revoked = try await api.call(.delete, "/v1/links/\(id)", key: key)
            #expect(revoked.status == 200)
            #expect(revoked.string("status") == "revoked")

            let unavailable = try await api.resolve(url, state: "signedOut")
            #expect(unavailable["outcome"] as? String == "linkUnavailable")
            #expect(unavailable["route"] as? String == "ShareLink/Unavailable")
            #expect(unavailable["message"] as? String == "This link is no longer available.")
            #expect(unavailable["cta"] as? String == "Auth/WelcomeGate")
            #expect((unavailable["link"] as? [String: Any])?["status"] as? String == "revoked")

            #expect(try await api.call(.get, "/s/\(token)").status == 410)
            #expect(try await api.call(.delete, "/v1/links/\(id)", key: key).status == 200)  // idempotent
            #expect(try await api.call(.get, "/v1/links/\(id)", key: key).string("status") == "revoked")

            let audit = try await api.call(.get, "/v1/admin/audit?limit=10", key: api.adminKey)
            let actions = (audit.json["entries"] as? [[String: Any]])?.compactMap { $0["action"] as? String } ?? []
            #expect(actions.contains("link.revoke"))
        }
    }

    @Test("a forged, truncated or foreign token is unknown: 404 on the share path, unknown in resolutions", arguments: StoreKind.allCases)
    func unknownTokens(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let key = try await api.clientKey(app: "handz")
            let token = try #require(try await api.createHandzLink(key: key)["token"] as? String)
            let candidates = [ForgedToken.badTag(token), String(token.dropLast()), "AAAA", String(repeating: "A", count: 500)]
            var bodies = Set<String>()
            for candidate in candidates {
                let reply = try await api.call(.get, "/s/\(candidate)")
                #expect(reply.status == 404)
                bodies.insert(reply.text)
                let resolution = try await api.resolve("https://links.handz.example/s/\(candidate)", state: "free")
                #expect(resolution["outcome"] as? String == "linkUnavailable")
                #expect((resolution["link"] as? [String: Any])?["status"] as? String == "unknown")
            }
            #expect(bodies.count == 1, "no oracle between malformed, forged and unknown")
            // A valid Handz token presented as an Ordentus link is unknown there.
            let foreign = try await api.resolve("https://links.ordentus.example/s/\(token)", state: "signedIn")
            #expect((foreign["link"] as? [String: Any])?["status"] as? String == "unknown")
        }
    }

    @Test("a share link whose record is not cached: its token's signature is checked once, before and after the store read")
    func signatureCheckedOnce() async throws {
        let dir = temporaryDataDir()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let keys = try Self.handzKeys()
        let apps = try AppsInForce.fixed(try ServerBootstrap.loadRouter(exampleManifests, environment: [:]))
        func service(_ store: StoreFront) -> LinkService {
            LinkService(store: store, keys: keys, apps: apps, events: ShareEventBuffer(), metrics: ServerMetrics(),
                        defaultTTLSeconds: 3600, maxTTLSeconds: 86_400)
        }
        let request = CreateLinkRequest(route: "ShareLink/FlowView", params: ["flowId": UUID().uuidString.lowercased()], ttlSeconds: 3600)
        let created = try await service(try await StoreFront.open(.sqlite(path: dir + "/linkd.sqlite"))).create(request, app: "handz")
        // A second store on the same file: its record cache is cold, as another instance's or after eviction.
        let cold = service(try await StoreFront.open(.sqlite(path: dir + "/linkd.sqlite")))

        var verified = VerifiedTokens()
        let inMemory = cold.shareStatusInMemory(token: created.token, host: "links.handz.example", verified: &verified)
        #expect(inMemory == nil, "the record must be read first")
        let (app, status) = await cold.shareStatus(token: created.token, host: "links.handz.example", verified: &verified)
        #expect(app == "handz")
        guard case .active(let target) = status else { Issue.record("\(status)"); return }
        #expect(target.linkID == created.id)
        #expect(verified.checks == 1, "the share page's two lookups and the one after the store read share one check")

        // A forged token on the same path: checked once too, and unknown.
        var forged = VerifiedTokens()
        let tampered = ForgedToken.badTag(created.token)
        #expect(await cold.shareStatus(token: tampered, host: "links.handz.example", verified: &forged).status == .unknown)
        #expect(forged.checks == 1)
    }

    @Test("an expired link is unavailable (expired), not unknown, in resolutions and on the share path")
    func expiry() async throws {
        let dir = temporaryDataDir()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let store = try await StoreFront.open(.sqlite(path: dir + "/linkd.sqlite"))
        let keys = try Self.handzKeys()
        let router = try ServerBootstrap.loadRouter(exampleManifests, environment: [:])
        let service = LinkService(
            store: store, keys: keys, apps: try AppsInForce.fixed(router), events: ShareEventBuffer(), metrics: ServerMetrics(),
            defaultTTLSeconds: 3600, maxTTLSeconds: 86_400)
        let request = CreateLinkRequest(route: "ShareLink/FlowView", params: ["flowId": UUID().uuidString.lowercased()], ttlSeconds: 3600)
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        let created = try await service.create(request, app: "handz", now: twoHoursAgo)
        var before = VerifiedTokens(), after = VerifiedTokens()   // one per request: each request has its own now
        #expect(await service.status(token: created.token, app: "handz", now: twoHoursAgo.addingTimeInterval(60), verified: &before) != .unknown)
        #expect(await service.status(token: created.token, app: "handz", now: Date(), verified: &after) == .unavailable(linkID: nil, reason: .expired))
        let resolution = await service.resolve(url: created.url, state: "free", app: nil)
        #expect(resolution.outcome == .linkUnavailable)
        #expect(resolution.link?.status == "expired")
        let (_, verdict) = await service.shareStatus(token: created.token, host: "links.handz.example")
        #expect(verdict == .unavailable(linkID: nil, reason: .expired))
    }

    @Test("an expired link answers 410 on the share path over HTTP, and expired in the inspector and resolutions", arguments: StoreKind.allCases)
    func expiryOverHTTP(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            // A link made two hours ago with a one-hour life, signed with the server's own active key: a second
            // LinkService on the server's store and keys, with the clock set back.
            let masterKey = try MasterKey.loadOrCreate(at: api.configuration.store.dataDir + "/master.key", environment: [:])
            let keys = try await KeyAdministration.open(store: api.store, masterKey: masterKey, logger: Logger(label: "test"))
            let service = LinkService(
                store: api.store, keys: keys.inForce, apps: try AppsInForce.fixed(ServerBootstrap.loadRouter(exampleManifests, environment: [:])),
                events: ShareEventBuffer(), metrics: ServerMetrics(), defaultTTLSeconds: 3600, maxTTLSeconds: 86_400)
            let request = CreateLinkRequest(route: "ShareLink/FlowView", params: ["flowId": UUID().uuidString.lowercased()], ttlSeconds: 3600)
            let created = try await service.create(request, app: "handz", now: Date().addingTimeInterval(-7200))

            let open = try await api.call(.get, "/s/\(created.token)")
            #expect(open.status == 410)
            #expect(open.headers[.cacheControl] == "no-store")
            #expect(try await api.call(.get, "/s/\(created.token)/qr.svg").status == 410)
            let resolution = try await api.resolve(created.url, state: "free")
            #expect(resolution["outcome"] as? String == "linkUnavailable")
            #expect((resolution["link"] as? [String: Any])?["status"] as? String == "expired")
            let key = try await api.clientKey(app: "handz")
            #expect(try await api.call(.get, "/v1/links/\(created.id)", key: key).string("status") == "expired")
            let inspected = try await api.call(.get, "/v1/links/\(created.id)", key: key)
            #expect(inspected.json["clicks"] as? Int == 0, "an expired link counts no click")
        }
    }
}
