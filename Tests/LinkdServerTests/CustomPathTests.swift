import Foundation
import HTTPTypes
import HummingbirdTesting
import LinkRouter
import LinkStore
import LinkdTestSupport
import Testing

@testable import LinkdServer
@testable import WebFallback

/// Custom paths (`POST /v1/links` with `"path": "/guard-pass"`): the link answers at `https://<share host><path>`
/// exactly as at `/s/<short id>` — landing page per platform, QR code, clicks, resolution, 410 once revoked — until
/// a new link takes the path after it is revoked or expired; refusals name what holds a path; the well-known files
/// cover each live custom path and nothing more.
///
/// Seed 001 §7.2, "Unlisted Flow Link Behavior": "If app is installed: open the app and navigate to ShareLink/FlowView
/// (view-only). If app is not installed: open web fallback (… a simple landing page that prompts App Store install)."
@Suite("Custom paths", .serialized)
struct CustomPathTests {
    static let host = "links.handz.example"

    /// A JSON object as a comparable value.
    static func same(_ object: [String: Any]) -> NSDictionary { object as NSDictionary }

    /// Creates a Handz link of `ShareLink/FlowView` with `path`; the reply.
    static func create(_ api: API, key: String, path: Any, flowId: String = UUID().uuidString.lowercased()) async throws -> Reply {
        try await api.call(.post, "/v1/links", key: key, json: ["params": ["flowId": flowId], "title": "Guard pass", "path": path])
    }

    /// `GET path` on the Handz share host as `userAgent`.
    static func page(_ api: API, _ path: String, userAgent: String, host: String = host) async throws -> Reply {
        guard let port = api.client.port else { throw HarnessError("no port") }
        let reply = try await TestHTTP.send(
            "GET", "http://127.0.0.1:\(port)\(path)", headers: ["Host": host, "User-Agent": userAgent])
        var headers = HTTPFields()
        for (name, value) in reply.headers { if let field = HTTPField.Name(name) { headers[field] = value } }
        return Reply(status: reply.status, headers: headers, text: String(decoding: reply.body, as: UTF8.self))
    }

    @Test("a custom path's journey: created, its pages per platform and QR as the short id's, resolved, revoked (410), freed and taken again", arguments: StoreKind.allCases)
    func journey(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let key = try await api.clientKey(app: "handz")
            let created = try await Self.create(api, key: key, path: "/guard-pass")
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(created.string("id"))
            let token = try #require(created.string("token"))
            let shortURL = try #require(created.string("shortURL"))
            let pathURL = "https://\(Self.host)/guard-pass"
            #expect(created.string("pathURL") == pathURL)
            #expect(created.string("url") == "https://\(Self.host)/s/\(token)", "url stays the manifest's choice")
            #expect(try await api.call(.get, "/v1/links/\(id)", key: key).string("pathURL") == pathURL)
            let short = ShortLinkTests.shortID(shortURL)

            // The same pages as the short id's, for each kind of client.
            for agent in [UserAgent.iPhone, UserAgent.android, UserAgent.desktop, UserAgent.crawler] {
                let byPath = try await Self.page(api, "/guard-pass", userAgent: agent)
                let byShort = try await Self.page(api, "/s/\(short)", userAgent: agent)
                #expect(byPath.status == 200, "\(agent)")
                #expect(byPath.headers[.cacheControl] == "no-store")
                #expect(byPath.text == byShort.text, "\(agent)")
            }
            let iPhone = try await Self.page(api, "/guard-pass", userAgent: UserAgent.iPhone)
            #expect(iPhone.text.contains("id=\"app-store\" href=\"\(shortURL)/install/ios\""), "the store button as the short id's")
            #expect(try await Self.page(api, "/guard-pass/", userAgent: UserAgent.desktop).status == 200, "a trailing / as routes allow")
            #expect(try await Self.page(api, "/Guard-Pass", userAgent: UserAgent.desktop).status == 404, "case-sensitive, as iOS matches")
            #expect(try await Self.page(api, "/guard-pass", userAgent: UserAgent.desktop, host: "links.coin.example").status == 404,
                    "another app's share host")
            // Three people by the path and three by the short id, then the iPhone and the trailing / once more; the
            // crawler's previews are not clicks.
            let inspected = try await api.call(.get, "/v1/links/\(id)", key: key)
            #expect(inspected.json["clicks"] as? Int == 8)

            let qr = try await Self.page(api, "/guard-pass/qr.svg", userAgent: UserAgent.desktop)
            #expect(qr.status == 200)
            #expect(qr.headers[.contentType]?.hasPrefix("image/svg+xml") == true)
            #expect(qr.text == (try await Self.page(api, "/s/\(short)/qr.svg", userAgent: UserAgent.desktop)).text)

            // Resolved like the link's short URL, by POST and by the fast path's GET.
            let byPath = try await api.resolve(pathURL, state: "free")
            #expect(byPath["route"] as? String == "ShareLink/FlowView")
            #expect((byPath["link"] as? [String: Any])?["id"] as? String == id)
            #expect(CustomPathTests.same(byPath)
                == CustomPathTests.same(try await api.resolve(shortURL, state: "free")))
            let getResolved = try await api.call(.get, "/v1/resolve?url=\(FastPathTests.encoded(pathURL + "/"))&state=signedOut")
            #expect((getResolved.json["link"] as? [String: Any])?["id"] as? String == id)
            let wrongCase = try await api.resolve("https://\(Self.host)/GUARD-PASS", state: "free")
            #expect(wrongCase["outcome"] as? String == "notFound")

            // Revoked: 410 at the path (page, QR), unavailable in resolutions.
            #expect(try await api.call(.delete, "/v1/links/\(id)", key: key).status == 200)
            #expect(try await Self.page(api, "/guard-pass", userAgent: UserAgent.iPhone).status == 410)
            #expect(try await Self.page(api, "/guard-pass/qr.svg", userAgent: UserAgent.desktop).status == 410)
            let revoked = try await api.resolve(pathURL, state: "free")
            #expect(revoked["outcome"] as? String == "linkUnavailable")
            #expect((revoked["link"] as? [String: Any])?["id"] as? String == id)

            // Freed: a new link takes the path (in another case, as long as it holds it alone); the old one no longer
            // answers there.
            let again = try await Self.create(api, key: key, path: "/Guard-Pass")
            #expect(again.status == 201, "\(again.text)")
            let newID = try #require(again.string("id"))
            #expect(again.string("pathURL") == "https://\(Self.host)/Guard-Pass")
            #expect(try await Self.page(api, "/Guard-Pass", userAgent: UserAgent.desktop).status == 200)
            #expect(try await Self.page(api, "/guard-pass", userAgent: UserAgent.desktop).status == 404)
            let taken = try await api.resolve("https://\(Self.host)/Guard-Pass", state: "free")
            #expect((taken["link"] as? [String: Any])?["id"] as? String == newID)
            #expect(try await api.call(.get, "/v1/links/\(id)", key: key).json["pathURL"] == nil, "the old link let it go")
            // A path that no link holds: the app's 404 page, one store read per window.
            let reads = api.faults.pathReads
            #expect(try await Self.page(api, "/no-such-path", userAgent: UserAgent.desktop).status == 404)
            #expect(try await Self.page(api, "/no-such-path", userAgent: UserAgent.desktop).status == 404)
            _ = try await api.resolve("https://\(Self.host)/no-such-path", state: "free")
            #expect(api.faults.pathReads == reads + 1)
        }
    }

    @Test("refusals: a route pattern, each reserved prefix, a held path in any case (409 path_taken naming its holder); bad characters and length (422)")
    func refusals() async throws {
        try await withAPI { api in
            let key = try await api.clientKey(app: "handz")
            func refused(_ path: Any) async throws -> (status: Int, code: String?, heldBy: [String: Any]?) {
                let reply = try await Self.create(api, key: key, path: path)
                let details = (reply.json["error"] as? [String: Any])?["details"] as? [String: Any]
                return (reply.status, reply.errorCode, details?["heldBy"] as? [String: Any])
            }
            // Handz's routes (examples/handz.yaml: seed 001 §4): `/welcome` is Auth/WelcomeGate's, `/flows/<uuid>`
            // Library/FlowDetail's.
            for (path, route) in [("/welcome", "Auth/WelcomeGate"), ("/flows/6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b", "Library/FlowDetail")] {
                let answer = try await refused(path)
                #expect(answer.status == 409 && answer.code == "path_taken", "\(path)")
                #expect(answer.heldBy?["kind"] as? String == "route" && answer.heldBy?["name"] as? String == route, "\(path)")
            }
            for path in ["/s/mine", "/s", "/v1/links", "/.well-known/x", "/static/x", "/admin", "/admin/x", "/healthz", "/readyz", "/metrics", "/S/mine"] {
                let answer = try await refused(path)
                #expect(answer.status == 409 && answer.code == "path_taken", "\(path)")
                #expect(answer.heldBy?["kind"] as? String == "reserved", "\(path)")
            }
            let held = try await Self.create(api, key: key, path: "/held")
            let holder = try #require(held.string("id"))
            for path in ["/held", "/HELD", "/Held"] {
                let answer = try await refused(path)
                #expect(answer.status == 409 && answer.code == "path_taken", "\(path)")
                #expect(answer.heldBy?["kind"] as? String == "link" && answer.heldBy?["name"] as? String == holder, "\(path)")
            }
            for path in ["held", "/", "/a b", "/a.b", "/ü", "/a//b", "/a/", "/a?b", "/a%2Fb", "/" + String(repeating: "a", count: 128)] {
                let answer = try await refused(path)
                #expect(answer.status == 422 && answer.code == "unprocessable", "\(path): \(answer)")
            }
            #expect(try await refused(5).status == 400, "not a string")
            let longest = "/" + String(repeating: "a", count: 127)
            #expect(try await Self.create(api, key: key, path: longest).status == 201, "128 bytes")
            #expect(try await Self.create(api, key: key, path: "/a-b_C/9").status == 201)
        }
    }

    @Test("an expired link's path is free: 410 there until a new link takes it, which then answers", arguments: StoreKind.allCases)
    func expiredPathFreed(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let key = try await api.clientKey(app: "handz")
            let now = Date()
            let old = LinkRecord(
                id: String(repeating: "ab", count: 16), app: "handz", route: "ShareLink/FlowView",
                params: ["flowId": UUID().uuidString.lowercased()], owner: nil, title: nil,
                created: now.addingTimeInterval(-7_200), expires: now.addingTimeInterval(-3_600), shortID: ShortID.generate(),
                path: "/spring-camp")
            try await api.store.createLink(old)
            #expect(try await Self.page(api, "/spring-camp", userAgent: UserAgent.desktop).status == 410)
            let taken = try await Self.create(api, key: key, path: "/spring-camp")
            #expect(taken.status == 201, "\(taken.text)")
            #expect(try await Self.page(api, "/spring-camp", userAgent: UserAgent.desktop).status == 200)
            let resolution = try await api.resolve("https://\(Self.host)/spring-camp", state: "free")
            #expect((resolution["link"] as? [String: Any])?["id"] as? String == taken.string("id"))
        }
    }

    @Test("many links asking for one path at once: exactly one gets it", arguments: StoreKind.allCases)
    func concurrentCreation(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let key = try await api.clientKey(app: "handz")
            let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for index in 0..<12 {
                    group.addTask {
                        let reply = try await Self.create(api, key: key, path: index.isMultiple(of: 2) ? "/race" : "/RACE")
                        return (reply.status, reply.errorCode)
                    }
                }
                var all: [(Int, String?)] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(statuses.filter { $0.0 == 201 }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0.0 == 409 && $0.1 == "path_taken" }.count == 11, "\(statuses)")
        }
    }

    @Test("the well-known files cover each live custom path, exactly, beside the manifest's own rules; iOS and Android agree with /v1/resolve")
    func wellKnownFiles() async throws {
        try await withAPI { api in
            let key = try await api.clientKey(app: "handz")
            #expect(try await Self.create(api, key: key, path: "/guard-pass").status == 201)
            #expect(try await Self.create(api, key: key, path: "/team/spring-camp").status == 201)
            let file = try await api.get("/.well-known/apple-app-site-association", host: Self.host)
            #expect(file.status == 200)
            let matcher = try AppleLinkMatcher(json: Data(file.text.utf8))
            let handz = try #require(try ManifestLoader.load(paths: exampleManifests).first { $0.app == "handz" })
            // The manifest's rules are all there, in order; the custom paths' come right after the empty-segment
            // excludes.
            let served = try #require(matcher.details.first).components.map(\.path)
            let own = handz.appleLinkComponents(host: Self.host).map(\.path)
            let custom = ["/team/spring-camp/", "/team/spring-camp", "/guard-pass/", "/guard-pass"]
            #expect(served.filter { !custom.contains($0) } == own)
            #expect(Set(served).isSuperset(of: custom))
            for (path, opens) in [("/guard-pass", true), ("/guard-pass/", true), ("/team/spring-camp", true), ("/Guard-Pass", false),
                                  ("/guard-pass/x", false), ("/guard-passx", false), ("/team", false), ("/no-such-path", false)] {
                #expect(matcher.opensInApp(path: path) == opens, "\(path)")
                let resolution = try await api.resolve("https://\(Self.host)\(path)", state: "free")
                let resolves = AppleLinkCandidates.resolvesToRoute(
                    outcome: resolution["outcome"] as? String ?? "", problem: (resolution["problem"] as? [String: Any])?["code"] as? String)
                #expect(resolves == opens, "\(path): \(resolution)")
            }

            // Android (Ordentus, the example app with App Links and share links).
            let created = try await api.call(.post, "/v1/links", key: api.adminKey, json: [
                "app": "ordentus", "route": "Calendar/EventDetail", "params": ["eventId": "retro"], "path": "/retro-2026",
            ])
            #expect(created.status == 201, "\(created.text)")
            let links = try await api.get("/.well-known/assetlinks.json", host: "links.ordentus.example")
            let android = try AndroidLinkMatcher(json: Data(links.text.utf8))
            for (path, opens) in [("/retro-2026", true), ("/retro-2026/", true), ("/retro-2026/x", false), ("/Retro-2026", false), ("/no-such-path", false)] {
                #expect(android.opensInApp(package: "com.ordentus.app", path: path) == opens, "\(path)")
                let resolution = try await api.resolve("https://links.ordentus.example\(path)", state: "signedIn")
                let resolves = AppleLinkCandidates.resolvesToRoute(
                    outcome: resolution["outcome"] as? String ?? "", problem: (resolution["problem"] as? [String: Any])?["code"] as? String)
                #expect(resolves == opens, "\(path): \(resolution)")
            }
        }
    }
}
