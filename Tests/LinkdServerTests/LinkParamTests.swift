import Foundation
import HTTPTypes
import LinkdTestSupport
import Testing

/// Link params that would move a path built from them: an empty value, a dot segment (`.`, `..`), a `/` in a value
/// that fills one path segment. Ordentus's shareable `Calendar/EventDetail` has a `string` param, `eventId`, that its
/// origin's preview path (`/v1/share-previews/events/:eventId`) is built from.
@Suite("API: link params that would move a path")
struct LinkParamTests {
    @Test("POST /v1/links refuses an empty, '.', '..' or '/' param value with 422 bad_params naming the param")
    func creationRefusesDotSegments() async throws {
        try await withAPI { api in
            let key = try await api.clientKey(app: "ordentus")
            func create(_ eventID: String) async throws -> Reply {
                try await api.call(.post, "/v1/links", key: key, json: ["route": "Calendar/EventDetail", "params": ["eventId": eventID]])
            }
            for value in ["", ".", "..", "a/b", "../admin", "/"] {
                let reply = try await create(value)
                #expect(reply.status == 422 && reply.errorCode == "bad_params", "'\(value)': \(reply.status) \(reply.text)")
                let message = (reply.json["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(message.contains("'eventId'") && message.contains("Calendar/EventDetail"), "\(message)")
            }
            #expect(try await create("..").text.contains("dot segment"))
            #expect(try await create("a/b").text.contains("must not contain '/'"))
            // Dots inside a value, or a value made of more dots, are values like any other.
            for value in ["...", ".hidden", "v1.2", "a..b"] {
                #expect(try await create(value).status == 201, "'\(value)'")
            }
            // COIN's Canvas, with its own string param: the same rule.
            let coin = try await api.clientKey(app: "coin")
            let canvas = try await api.call(.post, "/v1/links", key: coin, json: ["route": "Canvas", "params": ["coinId": "."]])
            #expect(canvas.status == 422 && canvas.errorCode == "bad_params" && canvas.text.contains("'coinId'"))
        }
    }

    @Test("an incoming URL whose segment is '.' or '..' (written or escaped) resolves to no param")
    func resolutionRefusesDotSegments() async throws {
        try await withAPI { api in
            for url in [
                "https://links.ordentus.example/events/..", "https://links.ordentus.example/events/.",
                "https://links.ordentus.example/events/%2E%2E", "https://links.ordentus.example/events/%2e",
                "ordentus://events/..", "coinapp://coin/..",
            ] {
                let resolution = try await api.resolve(url, state: "signedIn")
                #expect(resolution["route"] as? String != "Calendar/EventDetail" && resolution["route"] as? String != "Canvas", "\(url): \(resolution)")
                #expect((resolution["params"] as? [String: String] ?? [:]).values.allSatisfy { $0 != "." && $0 != ".." }, "\(url)")
            }
            let plain = try await api.resolve("https://links.ordentus.example/events/ev.1", state: "signedIn")
            #expect(plain["route"] as? String == "Calendar/EventDetail" && (plain["params"] as? [String: String])?["eventId"] == "ev.1")
        }
    }
}
