import Foundation
import HTTPTypes
import LinkdTestSupport
import Testing

@testable import LinkdServer

// The codegen operation in the document check: 200 in each language, 304, 401, 404 (429, 503 and 405 come from the
// loops over `authenticatedOperations` and the document's paths).
extension OpenAPITests {
    static func exerciseCodegen(_ check: Checker, client: String, admin: String) async throws {
        func expect(_ reply: Reply, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(reply.status == status, "\(reply.text.prefix(300))", sourceLocation: sourceLocation)
        }
        let template = "/v1/apps/{app}/codegen/{lang}"
        var tag = ""
        for language in ["swift", "typescript", "kotlin", "android-manifest"] {
            let reply = try await check.call(.get, "/v1/apps/handz/codegen/\(language)", template: template, key: client)
            expect(reply, 200)
            tag = reply.headers[.eTag] ?? ""
        }
        expect(try await check.call(.get, "/v1/apps/handz/codegen/android-manifest", template: template, key: client, headers: [.ifNoneMatch: tag]), 304)
        expect(try await check.call(.get, "/v1/apps/coin/codegen/kotlin", template: template, key: admin), 200)
        expect(try await check.call(.get, "/v1/apps/handz/codegen/rust", template: template, key: client), 404)
        expect(try await check.call(.get, "/v1/apps/coin/codegen/swift", template: template, key: client), 404)
        expect(try await check.call(.get, "/v1/apps/nope/codegen/swift", template: template, key: admin), 404)
        // Without a key (here, where failed authentications refill at once: the second server's budget is spent on
        // the other endpoints).
        expect(try await check.call(.get, "/v1/apps/handz/codegen/swift", template: template), 401)
    }
}
