import Foundation
import HTTPTypes
import LinkdTestSupport
import Testing

@testable import LinkdServer

// The operations of the apps' manifests in the document check: their every documented status, answered by the live
// server (401, 403, 429 and 503 come from the loops over `adminOperations`).
extension OpenAPITests {
    /// A new app, published and retired here (no other part of the check uses it).
    static let notesYAML = ManifestPublishTests.notesYAML

    /// The apps operations, on the first server, while Handz has a live link.
    static func exerciseApps(_ check: Checker, admin: String) async throws {
        func expect(_ reply: Reply, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(reply.status == status, "\(reply.text.prefix(300))", sourceLocation: sourceLocation)
        }
        let handz = try ManifestEdits.example("handz"), renamed = try ManifestEdits.renamedHandz()
        let manifest = "/v1/admin/apps/{app}/manifest", rollback = "/v1/admin/apps/{app}/manifest/rollback"
        let versions = "/v1/admin/apps/{app}/versions", app = "/v1/admin/apps/{app}"

        expect(try await check.call(.get, "/v1/admin/apps", key: admin), 200)
        expect(try await check.call(.get, "/v1/admin/apps/handz/manifest", template: manifest, key: admin), 200)
        expect(try await check.call(.get, "/v1/admin/apps/handz/manifest?version=1", template: manifest, key: admin), 200)
        expect(try await check.call(.get, "/v1/admin/apps/handz/manifest?version=0", template: manifest, key: admin), 400)
        expect(try await check.call(.get, "/v1/admin/apps/nope/manifest", template: manifest, key: admin), 404)
        expect(try await check.call(.get, "/v1/admin/apps/handz/versions", template: versions, key: admin), 200)
        expect(try await check.call(.get, "/v1/admin/apps/nope/versions", template: versions, key: admin), 404)

        // Publishing: a new app (201), the same text (200, unchanged), a dry run, every refusal.
        expect(try await check.call(.put, "/v1/admin/apps/notes/manifest", template: manifest, key: admin, raw: notesYAML,
                                    contentType: "application/yaml"), 201)
        expect(try await check.call(.put, "/v1/admin/apps/handz/manifest", template: manifest, key: admin, json: ["manifest": handz]), 200)
        expect(try await check.call(.put, "/v1/admin/apps/handz/manifest?dryRun=true", template: manifest, key: admin,
                                    json: ["manifest": renamed]), 200)
        expect(try await check.call(.put, "/v1/admin/apps/handz/manifest", template: manifest, key: admin, json: ["manifest": renamed]), 409)
        expect(try await check.call(.put, "/v1/admin/apps/handz/manifest", template: manifest, key: admin, json: ["manifest": handz],
                                    headers: [.ifMatch: "\"99\""]), 409)
        expect(try await check.call(.put, "/v1/admin/apps/handz/manifest", template: manifest, key: admin, json: ["manifest": handz],
                                    headers: [.ifMatch: "latest"]), 400)
        expect(try await check.call(.put, "/v1/admin/apps/handz/manifest", template: manifest, key: admin, raw: "{", contentType: "application/json"), 400)
        expect(try await check.call(.put, "/v1/admin/apps/handz/manifest", template: manifest, key: admin, json: ["manifest": "app: handz\n"]), 422)
        expect(try await check.call(.put, "/v1/admin/apps/coin/manifest", template: manifest, key: admin, json: ["manifest": handz]), 422)
        expect(try await check.call(.put, "/v1/admin/apps/handz/manifest", template: manifest, key: admin,
                                    raw: String(repeating: "#", count: (1 << 20) + 1), contentType: "application/yaml"), 413)
        expect(try await check.call(.put, "/v1/admin/apps/handz/manifest", template: manifest, key: admin, raw: handz, contentType: "text/plain"), 415)

        // Rollback: notes to its version 1 after a second version.
        let notes2 = notesYAML.replacingOccurrences(of: "name: Notes", with: "name: Notes Two")
        expect(try await check.call(.put, "/v1/admin/apps/notes/manifest", template: manifest, key: admin, json: ["manifest": notes2]), 200)
        expect(try await check.call(.post, "/v1/admin/apps/notes/manifest/rollback", template: rollback, key: admin, json: ["version": 1]), 200)
        expect(try await check.call(.post, "/v1/admin/apps/notes/manifest/rollback", template: rollback, key: admin, json: ["version": 9]), 404)
        expect(try await check.call(.post, "/v1/admin/apps/notes/manifest/rollback", template: rollback, key: admin, json: ["version": 1],
                                    headers: [.ifMatch: "\"1\""]), 409)
        expect(try await check.call(.post, "/v1/admin/apps/notes/manifest/rollback", template: rollback, key: admin,
                                    json: ["version": 1, "moves": ["Note": "No/Such"]]), 422)
        expect(try await check.call(.post, "/v1/admin/apps/notes/manifest/rollback", template: rollback, key: admin, raw: "{", contentType: "application/json"), 400)
        expect(try await check.call(.post, "/v1/admin/apps/notes/manifest/rollback", template: rollback, key: admin,
                                    raw: "{\"version\":1,\"x\":\"" + String(repeating: "x", count: 1 << 20) + "\"}", contentType: "application/json"), 413)
        expect(try await check.call(.post, "/v1/admin/apps/notes/manifest/rollback", template: rollback, key: admin, raw: "1", contentType: "text/plain"), 415)

        // Retirement: refused while Handz has a live link; notes has none.
        expect(try await check.call(.delete, "/v1/admin/apps/handz", template: app, key: admin), 409)
        expect(try await check.call(.delete, "/v1/admin/apps/notes", template: app, key: admin), 200)
        expect(try await check.call(.delete, "/v1/admin/apps/notes", template: app, key: admin), 404)
    }

    /// The apps operations with a path to call them by (for the 401, 403, 429 and 503 loops).
    static var appsOperations: [(HTTPRequest.Method, String, String)] {
        [
            (.get, "/v1/admin/apps", "/v1/admin/apps"),
            (.get, "/v1/admin/apps/handz/manifest", "/v1/admin/apps/{app}/manifest"),
            (.put, "/v1/admin/apps/handz/manifest", "/v1/admin/apps/{app}/manifest"),
            (.get, "/v1/admin/apps/handz/versions", "/v1/admin/apps/{app}/versions"),
            (.post, "/v1/admin/apps/handz/manifest/rollback", "/v1/admin/apps/{app}/manifest/rollback"),
            (.delete, "/v1/admin/apps/story", "/v1/admin/apps/{app}"),
        ]
    }
}
