import Foundation
import HTTPTypes
import HummingbirdTesting
import LinkdTestSupport
import Testing

@testable import LinkdServer

// `POST /v1/admin/imports` as the document states it: its report, each refusal of a file, a running import, no key
// (403, 429 and 503 come from the loops over `adminOperations`).
extension OpenAPITests {
    static func exerciseImports(_ check: Checker, api: API, admin: String) async throws {
        let path = "/v1/admin/imports"
        let csv = "route,params_json\nShareLink/FlowView,\"{\"\"flowId\"\":\"\"\(UUID().uuidString.lowercased())\"\"}\"\nNope/Route,\n"
        func send(_ query: String, _ body: String) async throws -> Reply {
            try await check.call(.post, "\(path)?\(query)", template: path, key: admin, raw: body, contentType: "text/csv")
        }
        let done = try await send("app=handz&format=csv", csv)
        expectStatus(done, 200)
        #expect(done.json["imported"] as? Int == 1 && done.json["refusedTotal"] as? Int == 1, "\(done.text)")
        expectStatus(try await send("app=handz&format=csv&dryRun=true", csv), 200)
        expectStatus(try await send("app=handz&format=xlsx", csv), 400)
        expectStatus(try await send("app=handz&format=fdl", "short_link,link\n\"open"), 400)
        expectStatus(try await send("app=nope&format=csv", csv), 404)
        expectStatus(try await send("app=handz&format=fdl", "link\nx\n"), 422)
        expectStatus(try await send("app=handz&format=csv", String(repeating: "x", count: api.configuration.links.importMaxBytes + 1)), 413)
        // An import of the app still reading its body: 409.
        let slow = try RawConnection(port: try #require(api.client.port))
        try await slow.send("POST \(path)?app=coin&format=csv HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(admin)\r\n"
            + "Content-Type: text/csv\r\nContent-Length: 100000\r\n\r\nroute\n")
        // (Probing meanwhile could race it: a probe's own import would hold the app when the slow one's head arrives.)
        try await Task.sleep(for: .milliseconds(500))
        expectStatus(try await send("app=coin&format=csv", "route\n"), 409)
        withExtendedLifetime(slow) {}
        // Without a key: 401 (here, where the failed-authentication budget has room for it).
        expectStatus(try await check.call(.post, "\(path)?app=handz&format=csv", template: path, raw: csv, contentType: "text/csv"), 401)
    }
}
