import Foundation
import HTTPTypes
import HummingbirdTesting
import LinkStore
import LinkdTestSupport
import Testing

@testable import LinkdServer

@Suite("API: POST /v1/admin/imports — bad files refused whole with a code and the line, caps in size and time, one import per app, a store failing part way")
struct LinkImportBadInputTests {
    static let header = "short_link,long_link\n"
    static let row = "https://coin.page.link/a1,https://coin.page.link/?link=https%3A%2F%2Flinks.coin.example%2Fcoin%2Fc1\n"

    /// The error of importing `body` as FDL into COIN: status, code, `details.line`.
    static func refusal(_ api: API, _ body: String, format: String = "fdl") async throws -> (Int, String?, Int?) {
        let reply = try await LinkImportTests.importFile(api, app: "coin", format: format, body)
        let details = (reply.json["error"] as? [String: Any])?["details"] as? [String: Any]
        return (reply.status, reply.errorCode, details?["line"] as? Int)
    }

    @Test("a NUL byte, an unclosed quote (its opening line), 100,000 columns, a long field, a long line, an empty file, no short-link column: 400/422 with the line, nothing written")
    func badFiles() async throws {
        try await withAPI { api in
            let nul = try await Self.refusal(api, Self.header + Self.row + "https://coin.page.link/b,\0x\n")
            #expect(nul == (400, "nul_byte", 3))
            let unclosed = try await Self.refusal(api, Self.header + Self.row + "\"https://coin.page.link/b,x\n" + Self.row + Self.row)
            #expect(unclosed == (400, "unclosed_quote", 3))
            let started = ContinuousClock.now
            let columns = try await Self.refusal(api, Self.header + String(repeating: "x,", count: 100_000) + "\n")
            #expect(columns == (400, "too_many_columns", 2))
            #expect(ContinuousClock.now - started < .seconds(10))
            let field = try await Self.refusal(api, Self.header + String(repeating: "y", count: 9000) + ",x\n")
            #expect(field == (400, "field_too_long", 2))
            let line = try await Self.refusal(api, Self.header + Self.row + String(repeating: String(repeating: "z", count: 4000) + ",", count: 20) + "\n")
            #expect(line == (400, "line_too_long", 3))
            let empty = try await Self.refusal(api, "")
            #expect(empty.0 == 422 && empty.1 == "empty_file")
            let noShort = try await Self.refusal(api, "long_link,link name\n" + "https://coin.page.link/?link=x,y\n")
            #expect(noShort == (422, "missing_column", 1))
            let ndjsonNul = try await Self.refusal(api, "{}\n{\"a\":\0}\n", format: "ndjson")
            #expect(ndjsonNul == (400, "nul_byte", 2))
            let listed = try await api.call(.get, "/v1/links?app=coin", key: api.adminKey)
            #expect((listed.json["links"] as? [Any])?.isEmpty == true, "a refused file writes nothing")
            let unknown = try await api.call(.post, "/v1/admin/imports?app=coin&format=xlsx", key: api.adminKey, raw: "x")
            #expect(unknown.status == 400 && unknown.errorCode == "unsupported_format")
            let client = try await api.clientKey(app: "coin")
            #expect(try await api.call(.post, "/v1/admin/imports?app=coin&format=fdl", key: client, raw: Self.header).status == 403)
        }
    }

    @Test("invalid UTF-8 on the wire: refused with its line")
    func invalidUTF8() async throws {
        try await withAPI { api in
            let port = try #require(api.client.port)
            let body = Array(Self.header.utf8) + Array("https://coin.page.link/".utf8) + [0xC3, 0x28] + Array(",x\n".utf8)
            let connection = try RawConnection(port: port)
            try await connection.send("POST /v1/admin/imports?app=coin&format=fdl HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(api.adminKey)\r\n"
                + "Content-Type: text/csv\r\nContent-Length: \(body.count)\r\n\r\n")
            _ = await connection.sendSome(body)
            let response = try await connection.read()
            #expect(response.status == 400 && response.text.contains("invalid_utf8") && response.text.contains("\"line\":2"), "\(response.text)")
        }
    }

    @Test("a 200 MB body: 413 import_too_large at once from its Content-Length, and past the cap when it is chunked; nothing written")
    func tooLarge() async throws {
        try await withAPI({ $0.links.importMaxBytes = 64 * 1024 }) { api in
            let port = try #require(api.client.port)
            let announced = try RawConnection(port: port)
            try await announced.send("POST /v1/admin/imports?app=coin&format=fdl HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(api.adminKey)\r\n"
                + "Content-Type: text/csv\r\nContent-Length: \(200 << 20)\r\n\r\n" + Self.header)
            let answer = try await announced.read()
            #expect(answer.status == 413 && answer.text.contains("import_too_large"), "\(answer.text)")

            let chunked = try RawConnection(port: port)
            try await chunked.send("POST /v1/admin/imports?app=coin&format=fdl HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(api.adminKey)\r\n"
                + "Content-Type: text/csv\r\nTransfer-Encoding: chunked\r\n\r\n")
            // A megabyte, sixteen times the cap: the answer is already there (the rest of a body is discarded, never kept).
            let piece = Array((Self.header + String(repeating: Self.row, count: 100)).utf8)
            var sent = 0
            while sent < 1 << 20 {
                let chunk = Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8)
                guard await chunked.sendSome(chunk) == chunk.count else { break }
                sent += piece.count
            }
            let refused = try await chunked.read()
            #expect(refused.status == 413 && refused.text.contains("import_too_large"), "\(refused.text)")
            let listed = try await api.call(.get, "/v1/links?app=coin", key: api.adminKey)
            #expect((listed.json["links"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("one import per app at a time (409 import_running); a client sending a byte now and then is cut off by the body time limit and frees the app")
    func oneAtATimeAndSlowClients() async throws {
        try await withAPI({ $0.edge.bodyTimeoutSeconds = 2 }) { api in
            let port = try #require(api.client.port)
            let slow = try RawConnection(port: port)
            try await slow.send("POST /v1/admin/imports?app=coin&format=fdl HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(api.adminKey)\r\n"
                + "Content-Type: text/csv\r\nContent-Length: 100000\r\n\r\n" + Self.header)
            try await Task.sleep(for: .milliseconds(300))
            let second = try await LinkImportTests.importFile(api, app: "coin", format: "fdl", Self.header + Self.row)
            #expect(second.status == 409 && second.errorCode == "import_running", "\(second.text)")
            let other = try await LinkImportTests.importFile(api, app: "handz", format: "csv", "route\n")
            #expect(other.status == 200, "another app's import runs: \(other.text)")
            let started = ContinuousClock.now
            for _ in 0..<10 {
                _ = await slow.sendSome(Array("x".utf8))
                if await slow.isClosedByServer() { break }
                try await Task.sleep(for: .milliseconds(600))
            }
            #expect(ContinuousClock.now - started < .seconds(6), "closed by the body time limit")
            var after = try await LinkImportTests.importFile(api, app: "coin", format: "fdl", Self.header + Self.row)
            for _ in 0..<20 where after.status == 409 {
                try await Task.sleep(for: .milliseconds(100))
                after = try await LinkImportTests.importFile(api, app: "coin", format: "fdl", Self.header + Self.row)
            }
            #expect(after.status == 200 && after.json["imported"] as? Int == 1, "\(after.text)")
        }
    }

    @Test("the store failing part way: 503 with the report saying which rows went in; the same file again completes it",
          arguments: StoreKind.allCases)
    func storeFailsPartWay(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            var text = "route,params_json\n"
            for _ in 0..<11_000 { text += "ShareLink/FlowView,\"{\"\"flowId\"\":\"\"\(UUID().uuidString.lowercased())\"\"}\"\n" }
            api.faults.fault = .failImportAfter(batches: 2)
            let failed = try await LinkImportTests.importFile(api, app: "handz", format: "csv", text)
            #expect(failed.status == 503 && failed.errorCode == "store_unavailable", "\(failed.text.prefix(300))")
            let report = try #require((failed.json["error"] as? [String: Any])?["details"] as? [String: Any])
            #expect(report["imported"] as? Int == 10_000)
            #expect((report["stopped"] as? [String: Any])?["line"] as? Int == 10_002, "rows from line 10,002 on were not written")
            api.faults.fault = .none
            let again = try await LinkImportTests.importFile(api, app: "handz", format: "csv", text)
            #expect(again.status == 200 && again.json["imported"] as? Int == 1000 && again.json["alreadyPresent"] as? Int == 10_000, "\(again.text.prefix(300))")
        }
    }
}
