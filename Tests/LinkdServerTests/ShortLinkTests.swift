import Foundation
import HTTPTypes
import HummingbirdTesting
import LinkRouter
import LinkStore
import LinkdTestSupport
import Logging
import Testing

@testable import LinkdServer
@testable import TokenSigning

/// Short share URLs (`/s/<short id>`): a link's second URL, answered by the same route as its token's — landing
/// page, QR code, store redirects and claims, resolutions, clicks, revocation (the link's own and its owner's),
/// expiry — and an unknown short id that reads the store once per window.
@Suite("Short share URLs", .serialized)
struct ShortLinkTests {
    /// The short id of a short URL (its last path segment).
    static func shortID(_ url: String) -> String { String(url.split(separator: "/").last ?? "") }

    /// Whether `url` is `https://<host>/s/` and exactly `ShortID.length` base62 characters.
    static func isShortURL(_ url: String, host: String) -> Bool {
        let prefix = "https://\(host)/s/"
        return url.hasPrefix(prefix) && ShortID.isShape(url.dropFirst(prefix.count))
    }

    @Test("a short id is 11 base62 characters from the CSPRNG: distinct, of the alphabet, its shape told from a token's")
    func shape() {
        let ids = (0..<2_000).map { _ in ShortID.generate() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { ShortID.isShape($0) })
        #expect(Set(ids.joined()).count == 62, "every base62 character appears in 22,000 draws")
        #expect(!ShortID.isShape("AQAAAAEforged"), "13 characters")
        #expect(!ShortID.isShape("abc-def_ghi"), "base64url's '-' and '_' are not base62")
        #expect(!ShortID.isShape(String(repeating: "A", count: 83)), "a token's length")
    }

    @Test("a short link's journey: created, opened (a click), QR, resolved, claimed, revoked (410); unknown ids read the store once", arguments: StoreKind.allCases)
    func journey(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let key = try await api.clientKey(app: "handz")
            let link = try await api.createHandzLink(key: key)
            let id = try #require(link["id"] as? String)
            let token = try #require(link["token"] as? String)
            let url = try #require(link["url"] as? String)
            let shortURL = try #require(link["shortURL"] as? String)
            #expect(url == "https://links.handz.example/s/\(token)", "Handz's manifest keeps the token's URL as url (the default)")
            #expect(Self.isShortURL(shortURL, host: "links.handz.example"), "\(shortURL)")
            let short = Self.shortID(shortURL)

            // The landing page, by the short id: its canonical URL, QR code and store button name the short id alone.
            let desktop = try await api.call(.get, "/s/\(short)", headers: [.userAgent: UserAgent.desktop])
            #expect(desktop.status == 200)
            #expect(desktop.headers[.cacheControl] == "no-store")
            #expect(desktop.text.contains(shortURL))
            #expect(!desktop.text.contains(token), "a page reached by the short id carries no token")
            let iPhone = try await api.call(.get, "/s/\(short)", headers: [.userAgent: UserAgent.iPhone])
            #expect(iPhone.text.contains("id=\"app-store\" href=\"\(shortURL)/install/ios\""))
            #expect(!iPhone.text.contains(token))
            let inspected = try await api.call(.get, "/v1/links/\(id)", key: key)
            #expect(inspected.json["clicks"] as? Int == 2, "both opens count, as by the token")
            #expect(inspected.string("shortURL") == shortURL)

            let qr = try await api.call(.get, "/s/\(short)/qr.svg")
            #expect(qr.status == 200)
            #expect(qr.headers[.contentType]?.hasPrefix("image/svg+xml") == true)
            #expect(qr.text == (try await api.call(.get, "/s/\(short)/qr.svg")).text)

            // Resolved like the token's URL: the same route, params and link.
            let byShort = try await api.resolve(shortURL, state: "free")
            let byToken = try await api.resolve(url, state: "free")
            #expect(byShort["route"] as? String == "ShareLink/FlowView")
            #expect(DeferredLinkTests.object(try JSONSerialization.data(withJSONObject: byShort).string)
                == DeferredLinkTests.object(try JSONSerialization.data(withJSONObject: byToken).string))
            let getResolved = try await api.call(.get, "/v1/resolve?url=\(FastPathTests.encoded(shortURL))&state=free")
            #expect((getResolved.json["link"] as? [String: Any])?["id"] as? String == id)

            // The store redirect makes a claim code that claims as the short URL resolves.
            let claimPage = try await api.call(.get, "/s/\(short)/install/ios", headers: [.userAgent: UserAgent.iPhone])
            #expect(claimPage.status == 200)
            #expect(claimPage.text.contains("<a id=\"claim-link\" href=\"\(shortURL)#linkd_claim="))
            let code = try #require(ClaimCodeText.code(inClaimPage: claimPage.text))
            let claimed = try await api.call(.post, "/v1/claims/\(code)", json: ["state": "free"])
            #expect(claimed.status == 200)
            #expect(claimed.json["route"] as? String == "ShareLink/FlowView")
            #expect((claimed.json["link"] as? [String: Any])?["id"] as? String == id)

            // Revoked: 410 by the short id too (page, QR), unavailable in resolutions.
            #expect(try await api.call(.delete, "/v1/links/\(id)", key: key).status == 200)
            #expect(try await api.call(.get, "/s/\(short)").status == 410)
            #expect(try await api.call(.get, "/s/\(short)/qr.svg").status == 410)
            let revoked = try await api.resolve(shortURL, state: "free")
            #expect(revoked["outcome"] as? String == "linkUnavailable")
            #expect((revoked["link"] as? [String: Any])?["status"] as? String == "revoked")

            // An unknown short id: the 404 page of the host's app, one store read, then none within the window.
            let reads = api.faults.shortIDReads
            let unknown = try await api.get("/s/ZZZZZZZZZZZ", host: "links.handz.example")
            #expect(unknown.status == 404)
            #expect(unknown.text == (try await api.get("/s/AQAAAAEforged", host: "links.handz.example")).text,
                    "the same page as an unknown token's")
            #expect(api.faults.shortIDReads == reads + 1)
            #expect(try await api.get("/s/ZZZZZZZZZZZ", host: "links.handz.example").status == 404)
            #expect(try await api.call(.get, "/s/ZZZZZZZZZZZ/qr.svg").status == 404)
            let unknownResolution = try await api.resolve("https://links.handz.example/s/ZZZZZZZZZZZ", state: "free")
            #expect((unknownResolution["link"] as? [String: Any])?["status"] as? String == "unknown")
            #expect(api.faults.shortIDReads == reads + 1, "the negative cache answered the page, QR and resolution again")
            // Many requests at once for another unknown short id: one read among them.
            let concurrent = api.faults.shortIDReads
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<16 { group.addTask { try await api.call(.get, "/s/YYYYYYYYYYY").status } }
                for try await status in group { #expect(status == 404) }
            }
            #expect(api.faults.shortIDReads == concurrent + 1)
            // Neither a token nor a short id (12 characters): the unknown page, no read.
            #expect(try await api.call(.get, "/s/ZZZZZZZZZZZZ").status == 404)
            #expect(api.faults.shortIDReads == concurrent + 1)
        }
    }

    @Test("a short link expires (410) and its owner's revocation revokes it (410)", arguments: StoreKind.allCases)
    func expiryAndOwnerRevocation(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            // A link made two hours ago with a one-hour life (the clock of a second LinkService set back).
            let masterKey = try MasterKey.loadOrCreate(at: api.configuration.store.dataDir + "/master.key", environment: [:])
            let keys = try await KeyAdministration.open(store: api.store, masterKey: masterKey, logger: Logger(label: "test"))
            let service = LinkService(
                store: api.store, keys: keys.inForce, apps: try AppsInForce.fixed(ServerBootstrap.loadRouter(exampleManifests, environment: [:])),
                events: ShareEventBuffer(), metrics: ServerMetrics(), defaultTTLSeconds: 3600, maxTTLSeconds: 86_400)
            let request = CreateLinkRequest(route: "ShareLink/FlowView", params: ["flowId": UUID().uuidString.lowercased()], ttlSeconds: 3600)
            let expired = try await service.create(request, app: "handz", now: Date().addingTimeInterval(-7200))
            let expiredShort = Self.shortID(expired.shortURL)
            #expect(try await api.call(.get, "/s/\(expiredShort)").status == 410)
            #expect(try await api.call(.get, "/s/\(expiredShort)/qr.svg").status == 410)
            let resolution = try await api.resolve(expired.shortURL, state: "free")
            #expect((resolution["link"] as? [String: Any])?["status"] as? String == "expired")

            let key = try await api.clientKey(app: "handz")
            var alice: [String] = []
            for _ in 0..<2 { alice.append(Self.shortID(try #require(try await api.createHandzLink(key: key, owner: "alice")["shortURL"] as? String))) }
            let bob = Self.shortID(try #require(try await api.createHandzLink(key: key, owner: "bob")["shortURL"] as? String))
            for short in alice + [bob] { #expect(try await api.call(.get, "/s/\(short)").status == 200) }  // cached now
            let reply = try await api.call(.post, "/v1/admin/revocations", key: api.adminKey, json: ["app": "handz", "owner": "alice"])
            #expect(reply.json["revoked"] as? Int == 2)
            for short in alice { #expect(try await api.call(.get, "/s/\(short)").status == 410) }
            #expect(try await api.call(.get, "/s/\(bob)").status == 200)
        }
    }

    @Test("share.url: short makes the short URL a new link's url; the default keeps the token's")
    func manifestOption() async throws {
        let handz = exampleManifests.first { $0.hasSuffix("handz.yaml") }!
        let text = try String(contentsOfFile: handz, encoding: .utf8)
        let edited = text.replacingOccurrences(of: "share:\n  path: /s/:token\n", with: "share:\n  path: /s/:token\n  url: short\n")
        #expect(edited != text)
        let path = temporaryDataDir() + "-handz.yaml"
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        let manifests = exampleManifests.filter { $0 != handz } + [path]
        try await withAPI({ $0.links.manifests = manifests }) { api in
            let handzLink = try await api.createHandzLink(key: try await api.clientKey(app: "handz"))
            let shortURL = try #require(handzLink["shortURL"] as? String)
            #expect(handzLink["url"] as? String == shortURL)
            #expect(try await api.call(.get, "/s/\(Self.shortID(shortURL))").status == 200)
            let ordentus = try await DeferredLinkTests.ordentusLink(api)
            #expect(ordentus.url.hasSuffix(ordentus.token), "Ordentus's manifest says nothing: the token's URL")
        }
        // A value that is neither is refused where it is written.
        let bad = text.replacingOccurrences(of: "share:\n  path: /s/:token\n", with: "share:\n  path: /s/:token\n  url: tiny\n")
        #expect(throws: (any Error).self) { try ManifestLoader.parse(yaml: bad, file: "handz.yaml") }
        #expect(try ManifestLoader.parse(yaml: edited, file: "handz.yaml").share?.url == .short)
        #expect(try ManifestLoader.parse(yaml: text, file: "handz.yaml").share?.url == .token)
    }

    /// A link of each example app with share links, made with the admin key: app → (token, short id).
    static func exampleLinks(_ api: API) async throws -> [String: (token: String, short: String)] {
        let bodies: [String: [String: Any]] = [
            "coin": ["app": "coin", "route": "Canvas", "params": ["coinId": "c1"]],
            "handz": ["app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()]],
            "ordentus": ["app": "ordentus", "route": "Calendar/EventDetail", "params": ["eventId": "standup"]],
        ]
        var links: [String: (token: String, short: String)] = [:]
        for (app, body) in bodies {
            let reply = try await api.call(.post, "/v1/links", key: api.adminKey, json: body)
            guard reply.status == 201, let token = reply.string("token"), let short = reply.string("shortURL") else {
                throw HarnessError("cannot create a \(app) link: \(reply.status) \(reply.text)")
            }
            links[app] = (token, Self.shortID(short))
        }
        return links
    }

    @Test("store redirects of every example app on both platforms: the store when the app has one, else the link's landing page", arguments: StoreKind.allCases)
    func storeRedirectsOfEveryApp(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let links = try await Self.exampleLinks(api)
            let router = try ServerBootstrap.loadRouter(exampleManifests, environment: [:])
            #expect(Set(links.keys) == Set(router.shareAppIDs), "every example app with share links")
            for (app, link) in links.sorted(by: { $0.key < $1.key }) {
                let manifest = try #require(router.manifest(app: app))
                let host = try #require(manifest.shareHosts.first)
                for id in [link.token, link.short] {
                    for (platform, agent, hasStore) in [
                        ("ios", UserAgent.iPhone, manifest.appStoreID != nil), ("android", UserAgent.android, manifest.androidPackage != nil),
                    ] {
                        let what = "\(app) \(platform) by \(id.count == ShortID.length ? "short id" : "token")"
                        let reply = try await api.call(.get, "/s/\(id)/install/\(platform)", headers: [.userAgent: agent])
                        switch (hasStore, platform) {
                        case (true, "ios"):
                            #expect(reply.status == 200, "\(what): the claim page")
                            #expect(reply.text.contains("https://apps.apple.com/app/id"), "\(what)")
                        case (true, _):
                            #expect(reply.status == 302, "\(what)")
                            #expect(reply.headers[.location]?.hasPrefix("https://play.google.com/") == true, "\(what)")
                        default:
                            #expect(reply.status == 302, "\(what): \(reply.status)")
                            #expect(reply.headers[.location] == "https://\(host)/s/\(id)", "\(what): the link's landing page")
                            #expect(reply.headers[.cacheControl] == "no-store")
                            let landing = try await api.call(.get, "/s/\(id)", headers: [.userAgent: agent])
                            #expect(landing.status == 200, "\(what): the landing page answers")
                            #expect(!landing.text.contains("/install/\(platform)"), "\(what): no button to a store the app lacks")
                        }
                    }
                }
            }
        }
    }
}

extension Data {
    /// The bytes as UTF-8 text.
    fileprivate var string: String { String(decoding: self, as: UTF8.self) }
}
