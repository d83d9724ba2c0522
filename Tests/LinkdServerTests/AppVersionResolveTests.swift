import Foundation
import HTTPTypes
import LinkdTestSupport
import Testing

@testable import LinkdServer

/// `appVersion` and `platform` on `/v1/resolve` (docs/matching.md, "App versions"): a route newer than the caller's
/// app answers `updateRequired` with the store page and the nearest screen the app has; no `appVersion`, today's
/// answer. The example manifests' `since` rules are ours (the seeds give none): Handz's Inbox from 1.2 on iOS and 1.3
/// on Android (seed 001 §1 leaves the Inbox's place open), COIN's ProjectDetail from 1.1 (seed 004 is "Phase 1").
@Suite("API: resolutions for an app's version")
struct AppVersionResolveTests {
    static func resolve(_ api: API, _ body: [String: Any]) async throws -> [String: Any] {
        let reply = try await api.call(.post, "/v1/resolve", json: body)
        guard reply.status == 200 else { throw HarnessError("resolve answered \(reply.status): \(reply.text)") }
        return reply.json
    }

    @Test("Handz's Inbox item for an older app: updateRequired with the App Store page and Library/Home placed as the fallback")
    func handzInbox() async throws {
        try await withAPI { api in
            let url = "https://links.handz.example/inbox/\(UUID().uuidString.lowercased())"
            let current = try await Self.resolve(api, ["url": url, "state": "free"])
            #expect(current["outcome"] as? String == "route" && current["route"] as? String == "Library/InboxItem")

            let old = try await Self.resolve(api, ["url": url, "state": "free", "appVersion": "1.1.4", "platform": "ios"])
            #expect(old["outcome"] as? String == "updateRequired", "\(old)")
            #expect(old["route"] as? String == "Library/InboxItem", "the route the link names stays in the answer")
            let update = try #require(old["update"] as? [String: Any])
            #expect(update["requiredVersion"] as? String == "1.2" && update["platform"] as? String == "ios")
            #expect(update["storeURL"] as? String == "https://apps.apple.com/app/id6470000001")
            let fallback = try #require(old["fallback"] as? [String: Any])
            #expect(fallback["route"] as? String == "Library/Home" && fallback["tab"] as? String == "library", "\(fallback)")
            #expect(fallback["tabBarVisible"] as? Bool == true)

            let new = try await Self.resolve(api, ["url": url, "state": "free", "appVersion": "1.2", "platform": "ios"])
            #expect(new["outcome"] as? String == "route" && new["update"] == nil)
            let android = try await Self.resolve(api, ["url": url, "state": "free", "appVersion": "1.2", "platform": "android"])
            #expect(android["outcome"] as? String == "updateRequired")
            #expect((android["update"] as? [String: Any])?["requiredVersion"] as? String == "1.3")
            #expect((android["update"] as? [String: Any])?["storeURL"] == nil, "Handz has no Android package")
            let unknownPlatform = try await Self.resolve(api, ["url": url, "state": "free", "appVersion": "1.2"])
            #expect((unknownPlatform["update"] as? [String: Any])?["requiredVersion"] as? String == "1.3",
                    "no platform: the highest version any platform needs")

            let get = try await api.call(.get, "/v1/resolve?url=\(url)&state=free&appVersion=1.0&platform=ios")
            #expect(get.status == 200 && get.json["outcome"] as? String == "updateRequired")
            // The browser's pages have no app version: the app-link page of the same URL is unchanged.
            let page = try await api.get(URL(string: url)!.path, host: "links.handz.example")
            #expect(page.status == 200)
        }
    }

    @Test("COIN's project page for a 1.0 app falls back to the Projects tab's root")
    func coinProject() async throws {
        try await withAPI { api in
            let old = try await Self.resolve(api, [
                "url": "coinapp://project/p-1", "state": "signedIn", "appVersion": "1.0", "platform": "ios",
            ])
            #expect(old["outcome"] as? String == "updateRequired", "\(old)")
            #expect((old["update"] as? [String: Any])?["requiredVersion"] as? String == "1.1")
            #expect((old["fallback"] as? [String: Any])?["route"] as? String == "Projects")
            #expect((old["fallback"] as? [String: Any])?["tab"] as? String == "projects")
            let canvas = try await Self.resolve(api, ["url": "coinapp://coin/c-1", "state": "signedIn", "appVersion": "1.0", "platform": "ios"])
            #expect(canvas["outcome"] as? String == "route", "a route without since opens in every version")
        }
    }

    @Test("a malformed appVersion or platform is a 400 bad_app_version on both methods", arguments: [
        ["appVersion": "1.x"], ["appVersion": ""], ["appVersion": "1.2.3.4.5"], ["appVersion": "v2"], ["appVersion": "1..2"],
        ["appVersion": "1234567890"], ["appVersion": "1.2", "platform": "windows"], ["platform": "windows"],
    ])
    func malformed(fields: [String: String]) async throws {
        try await withAPI { api in
            var body: [String: Any] = ["url": "https://links.handz.example/inbox", "state": "free"]
            for (key, value) in fields { body[key] = value }
            let post = try await api.call(.post, "/v1/resolve", json: body)
            #expect(post.status == 400 && post.errorCode == "bad_app_version", "\(fields): \(post.text)")
            let query = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
            let get = try await api.call(.get, "/v1/resolve?url=https://links.handz.example/inbox&state=free&\(query)")
            #expect(get.status == 400 && get.errorCode == "bad_app_version", "\(fields): \(get.text)")
        }
    }
}
