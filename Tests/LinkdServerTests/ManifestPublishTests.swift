import Foundation
import HTTPTypes
import LinkdTestSupport
import Testing

@testable import LinkdServer

/// Publishing manifests while linkd serves (docs/manifest.md, "Publishing a navigation change"), through the running
/// daemon: the admin API, the impact check against live links, moves, rollback, retirement, and every refusal.
@Suite("API: manifests published without a restart")
struct ManifestPublishTests {
    static let handzYAML = (try? ManifestEdits.example("handz")) ?? ""
    static let renamedHandz = (try? ManifestEdits.renamedHandz()) ?? ""

    static func publish(
        _ api: API, _ app: String = "handz", yaml: String, moves: [String: Any]? = nil, force: Bool? = nil, query: String = "",
        ifMatch: String? = nil, key: String? = nil
    ) async throws -> Reply {
        var headers: HTTPFields = [:]
        if let ifMatch { headers[.ifMatch] = ifMatch }
        if moves == nil, force == nil {
            return try await api.call(
                .put, "/v1/admin/apps/\(app)/manifest\(query)", key: key ?? api.adminKey, raw: yaml, contentType: "application/yaml",
                headers: headers)
        }
        var body: [String: Any] = ["manifest": yaml]
        if let moves { body["moves"] = moves }
        if let force { body["force"] = force }
        return try await api.call(.put, "/v1/admin/apps/\(app)/manifest\(query)", key: key ?? api.adminKey, json: body, headers: headers)
    }

    static func version(_ api: API, _ app: String) async throws -> Int? {
        let apps = try await api.call(.get, "/v1/admin/apps", key: api.adminKey).json["apps"] as? [[String: Any]]
        return apps?.first { $0["app"] as? String == app }?["version"] as? Int
    }

    // Seed 001 §7.2: "Share this flow" makes an unlisted link that opens the view-only flow; §7.3: closing it returns to
    // the Welcome Gate signed out, to the Library signed in. A release renames that screen: the links made before
    // must keep opening it, with their flow.
    @Test("a renaming publish is refused with the stranded links, then carried by moves; the AASA and resolutions follow; rollback", arguments: StoreKind.allCases)
    func renameWithMoves(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let key = try await api.clientKey(app: "handz")
            let link = try await api.createHandzLink(key: key)
            let id = try #require(link["id"] as? String), url = try #require(link["url"] as? String)
            let flowId = try #require((try await api.resolve(url, state: "free"))["params"] as? [String: String])["flowId"]
            #expect(try await Self.version(api, "handz") == 1)

            let refused = try await Self.publish(api, yaml: Self.renamedHandz)
            #expect(refused.status == 409 && refused.errorCode == "manifest_strands_links", "\(refused.text)")
            let details = try #require((refused.json["error"] as? [String: Any])?["details"] as? [String: Any])
            #expect(details["strandedLinks"] as? Int == 1 && details["liveLinks"] as? Int == 1)
            let stranded = try #require((details["stranded"] as? [[String: Any]])?.first)
            #expect(stranded["route"] as? String == "ShareLink/FlowView" && stranded["reason"] as? String == "route_removed")
            #expect(stranded["sample"] as? [String] == [id])

            let moves = ["ShareLink/FlowView": "ShareLink/SharedFlow"]
            let dryRun = try await Self.publish(api, yaml: Self.renamedHandz, moves: moves, query: "?dryRun=true")
            #expect(dryRun.status == 200 && dryRun.json["dryRun"] as? Bool == true, "\(dryRun.text)")
            #expect(try await Self.version(api, "handz") == 1, "a dry run changes nothing")
            #expect((try await api.resolve(url, state: "free"))["route"] as? String == "ShareLink/FlowView")

            let aasaBefore = try await api.get("/.well-known/apple-app-site-association", host: "links.handz.example")
            #expect(!aasaBefore.text.contains("/shared-flows/"))
            let published = try await Self.publish(api, yaml: Self.renamedHandz, moves: moves, ifMatch: "\"1\"")
            #expect(published.status == 200 && published.json["version"] as? Int == 2 && published.json["moved"] as? Int == 1, "\(published.text)")

            // The moved link opens the renamed screen with its flow, in every state, on this instance at once.
            for state in ["signedOut", "guest", "free", "pro", "trial"] {
                let moved = try await api.resolve(url, state: state)
                #expect(moved["outcome"] as? String == "route" && moved["route"] as? String == "ShareLink/SharedFlow", "\(state)")
                #expect((moved["params"] as? [String: String])?["flowId"] == flowId)
            }
            #expect((try await api.resolve(url, state: "signedOut"))["returnTo"] as? [String: String] == [
                "signedOut": "Auth/WelcomeGate", "guest": "Library/FlowBuilderSandbox", "free": "Tab/Library", "pro": "Tab/Library",
                "trial": "Tab/Library",
            ])
            let newURL = try await api.resolve("https://links.handz.example/shared-flows/\(flowId ?? "")", state: "free")
            #expect(newURL["route"] as? String == "ShareLink/SharedFlow")
            let aasaAfter = try await api.get("/.well-known/apple-app-site-association", host: "links.handz.example")
            #expect(aasaAfter.text.contains("/shared-flows/"), "the AASA follows the manifest")
            #expect(try await api.get(URL(string: url)!.path, host: "links.handz.example").status == 200)

            // The earlier text, the versions, the audit entry.
            let first = try await api.call(.get, "/v1/admin/apps/handz/manifest?version=1", key: api.adminKey)
            #expect(first.status == 200 && first.text == Self.handzYAML && first.headers[.eTag] == "\"1\"")
            let current = try await api.call(.get, "/v1/admin/apps/handz/manifest", key: api.adminKey)
            #expect(current.text == Self.renamedHandz && current.headers[.eTag] == "\"2\"")
            let audit = try await api.call(.get, "/v1/admin/audit?action=manifest.publish&app=handz", key: api.adminKey)
            #expect(audit.text.contains("handz v2") && audit.text.contains("moved 1 link"), "\(audit.text)")

            // Rolling back strands the moved link too, unless it moves back.
            let back = try await api.call(.post, "/v1/admin/apps/handz/manifest/rollback", key: api.adminKey, json: ["version": 1])
            #expect(back.status == 409 && back.errorCode == "manifest_strands_links")
            let rolled = try await api.call(
                .post, "/v1/admin/apps/handz/manifest/rollback", key: api.adminKey,
                json: ["version": 1, "moves": ["ShareLink/SharedFlow": ["route": "ShareLink/FlowView", "params": [:]]]])
            #expect(rolled.status == 200 && rolled.json["version"] as? Int == 3, "\(rolled.text)")
            #expect((try await api.resolve(url, state: "free"))["route"] as? String == "ShareLink/FlowView")
            let versions = try await api.call(.get, "/v1/admin/apps/handz/versions", key: api.adminKey)
            #expect((versions.json["versions"] as? [[String: Any]])?.map { $0["version"] as? Int } == [3, 2, 1])
        }
    }

    @Test("force makes the stranded links unavailable, with the app's unavailable answer")
    func force() async throws {
        try await withAPI { api in
            let key = try await api.clientKey(app: "handz")
            let link = try await api.createHandzLink(key: key)
            let url = try #require(link["url"] as? String), token = try #require(link["token"] as? String)
            // Another share path strands every live link at once (their URLs stop resolving): no move can carry that.
            let newPath = Self.handzYAML.replacingOccurrences(of: "  path: /s/:token", with: "  path: /share/:token")
            let refused = try await Self.publish(api, yaml: newPath, moves: ["ShareLink/FlowView": "ShareLink/FlowView"])
            #expect(refused.status == 409 && refused.text.contains("share_path_changed"), "\(refused.text)")
            let forced = try await Self.publish(api, yaml: Self.renamedHandz, force: true)
            #expect(forced.status == 200 && forced.json["moved"] as? Int == 0, "\(forced.text)")
            let resolution = try await api.resolve(url, state: "free")
            #expect(resolution["outcome"] as? String == "linkUnavailable" && resolution["route"] as? String == "ShareLink/Unavailable")
            #expect(resolution["message"] as? String == "This link is no longer available.")
            let page = try await api.get("/s/\(token)", host: "links.handz.example")
            #expect(page.status == 410)
        }
    }

    @Test("bad manifests, wrong callers and stale versions are refused with codes, and the manifest in force keeps serving")
    func refusals() async throws {
        try await withAPI { api in
            let client = try await api.clientKey(app: "handz")
            let broken = Self.handzYAML.replacingOccurrences(of: "parent: Library/Home, patterns: [/inbox]", with: "parent: Library/Nowhere, patterns: [/inbox]")
            let invalid = try await Self.publish(api, yaml: broken)
            #expect(invalid.status == 422 && invalid.errorCode == "manifest_invalid", "\(invalid.text)")
            let problems = try #require(((invalid.json["error"] as? [String: Any])?["details"] as? [String: Any])?["problems"] as? [[String: Any]])
            #expect(problems.contains { ($0["message"] as? String ?? "").contains("Library/Nowhere") && ($0["line"] as? Int ?? 0) > 1 })
            #expect(problems.allSatisfy { ($0["text"] as? String ?? "").hasPrefix("handz.yaml:") })

            let aliases = "app: &a handz\nname: *a\n"
            #expect(try await Self.publish(api, yaml: aliases).errorCode == "manifest_invalid")
            let mismatch = try await Self.publish(api, "coin", yaml: Self.handzYAML)
            #expect(mismatch.status == 422 && mismatch.errorCode == "manifest_app_mismatch")
            let hostTaken = Self.handzYAML.replacingOccurrences(of: "hosts: [links.handz.example]", with: "hosts: [links.coin.example]")
            let taken = try await Self.publish(api, yaml: hostTaken)
            #expect(taken.status == 422 && taken.errorCode == "manifest_invalid" && taken.text.contains("links.coin.example"), "\(taken.text)")
            let huge = Self.handzYAML + "\n#" + String(repeating: "x", count: 1 << 20)
            #expect(try await Self.publish(api, yaml: huge).status == 413)
            let json = try await api.call(.put, "/v1/admin/apps/handz/manifest", key: api.adminKey, raw: "{}", contentType: "text/plain")
            #expect(json.status == 415)
            #expect(try await api.call(.put, "/v1/admin/apps/handz/manifest", raw: Self.handzYAML, contentType: "application/yaml").status == 401)
            #expect(try await Self.publish(api, yaml: Self.handzYAML, key: client).status == 403)
            let stale = try await Self.publish(api, yaml: Self.renamedHandz, force: true, ifMatch: "\"7\"")
            #expect(stale.status == 409 && stale.errorCode == "version_conflict")
            let badMove = try await Self.publish(api, yaml: Self.renamedHandz, moves: ["ShareLink/FlowView": "No/Such"])
            #expect(badMove.status == 422 && badMove.text.contains("No/Such"))
            #expect(try await api.call(.get, "/v1/admin/apps/handz/manifest?version=0", key: api.adminKey).status == 400)
            #expect(try await api.call(.get, "/v1/admin/apps/handz/manifest?version=9", key: api.adminKey).status == 404)

            #expect(try await Self.version(api, "handz") == 1)
            let resolution = try await api.resolve("https://links.handz.example/inbox", state: "free")
            #expect(resolution["route"] as? String == "Library/Inbox")
            let unchanged = try await Self.publish(api, yaml: Self.handzYAML)
            #expect(unchanged.status == 200 && unchanged.json["unchanged"] as? Bool == true && unchanged.json["version"] as? Int == 1)
            for mediaType in ["text/yaml", "application/x-yaml"] {
                let other = try await api.call(.put, "/v1/admin/apps/handz/manifest", key: api.adminKey, raw: Self.handzYAML, contentType: mediaType)
                #expect(other.status == 200 && other.json["unchanged"] as? Bool == true, "\(mediaType): \(other.text)")
            }
        }
    }

    @Test("two publishes made from one version: one wins, the other gets 409, never a mix")
    func concurrentPublishes() async throws {
        try await withAPI { api in
            let first = Self.handzYAML.replacingOccurrences(of: "name: Handz", with: "name: Handz One")
            let second = Self.handzYAML.replacingOccurrences(of: "name: Handz", with: "name: Handz Two")
            async let a = Self.publish(api, yaml: first, ifMatch: "\"1\"")
            async let b = Self.publish(api, yaml: second, ifMatch: "\"1\"")
            let statuses = try await [a.status, b.status].sorted()
            #expect(statuses == [200, 409], "\(statuses)")
            let text = try await api.call(.get, "/v1/admin/apps/handz/manifest", key: api.adminKey).text
            #expect(text == first || text == second)
            #expect(try await Self.version(api, "handz") == 2)
        }
    }

    static let notesYAML = """
        app: notes
        name: Notes
        schemes: [notesapp]
        hosts: [links.notes.example]
        states: [signedOut, signedIn]
        unauthenticatedState: signedOut
        tabs:
          - { id: home, root: Home, default: true }
        routes:
          - { id: Home, tab: home, presentation: root, states: [signedOut, signedIn], patterns: [/] }
          - { id: Note, tab: home, presentation: push, states: [signedOut, signedIn], parent: Home, patterns: ["/n/:noteId(uuid)"], shareable: true }
          - { id: Gone, presentation: push, states: [signedOut, signedIn] }
        share:
          path: /s/:token
          hosts: [links.notes.example]
          route: Note
          unavailableRoute: Gone
          message: "This note is no longer shared."
          cta: { signedOut: Home, signedIn: Home }

        """

    @Test("a new app is added by a publish (keys, pages, links), and retired only once it has no live links")
    func newAppAndRetirement() async throws {
        try await withAPI { api in
            let added = try await Self.publish(api, "notes", yaml: Self.notesYAML)
            #expect(added.status == 201 && added.json["version"] as? Int == 1, "\(added.text)")
            let key = try await api.clientKey(app: "notes")
            let created = try await api.call(.post, "/v1/links", key: key, json: ["params": ["noteId": UUID().uuidString.lowercased()]])
            #expect(created.status == 201, "\(created.text)")
            let token = try #require(created.string("token")), id = try #require(created.string("id"))
            #expect(try await api.get("/s/\(token)", host: "links.notes.example").status == 200)
            let aasa = try await api.get("/.well-known/apple-app-site-association", host: "links.notes.example")
            #expect(aasa.status == 200)

            let refused = try await api.call(.delete, "/v1/admin/apps/notes", key: api.adminKey)
            #expect(refused.status == 409 && refused.errorCode == "app_has_live_links")
            #expect(try await api.call(.delete, "/v1/links/\(id)", key: key).status == 200)
            let retired = try await api.call(.delete, "/v1/admin/apps/notes", key: api.adminKey)
            #expect(retired.status == 200 && retired.json["retired"] as? Bool == true, "\(retired.text)")
            let resolution = try await api.resolve("https://links.notes.example/n/\(UUID().uuidString.lowercased())", state: "signedIn")
            #expect((resolution["problem"] as? [String: Any])?["code"] as? String == "unknownApp")
            let apps = try await api.call(.get, "/v1/admin/apps", key: api.adminKey).json["apps"] as? [[String: Any]]
            #expect(apps?.first { $0["app"] as? String == "notes" }?["retired"] as? Bool == true)
            #expect(try await api.call(.delete, "/v1/admin/apps/notes", key: api.adminKey).status == 404)
        }
    }
}
