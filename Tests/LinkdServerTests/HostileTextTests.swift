import Foundation
import HTTPTypes
import LinkdHTTP
import LinkdServer
import LinkdTestSupport
import Logging
import PrintableText
import Synchronization
import Testing

/// Text that could forge a log line or reorder what a reader sees — C0 and C1 controls, DEL, line separators,
/// bidirectional overrides — is refused wherever the API stores it, and escaped wherever the daemon logs (`linkd
/// serve`'s own log: JourneyTests' `ServeLogEscapingTests`).
@Suite("Hostile text")
struct HostileTextTests {
    static let flow = ["flowId": "0b7d3a52-5c1e-4c8e-9a51-2f1f0d7b9e11"]

    @Test("ASCII, read without the Unicode tables, is judged as the tables judge it: C0 and DEL unsafe, the rest safe")
    func asciiAsTheTablesSay() {
        for value in UInt32(0)..<0x80 {
            let scalar = Unicode.Scalar(value)!
            let category = scalar.properties.generalCategory
            let byTables = [.control, .lineSeparator, .paragraphSeparator, .format].contains(category)
            #expect(PrintableText.isUnsafe(scalar) == byTables, "U+\(String(value, radix: 16))")
        }
        #expect(PrintableText.firstUnsafe(in: "plain text\u{7F}")?.offset == 10)
        #expect(PrintableText.isUnsafe("\u{85}") && PrintableText.isUnsafe("\u{202E}") && !PrintableText.isUnsafe("é"))
    }

    @Test("owner, title, route and params with control or bidi characters are 422, naming the field and the character")
    func refusedAtTheAPI() async throws {
        try await withAPI { api in
            let cases: [([String: Any], String)] = [
                (["app": "handz", "params": Self.flow, "title": "ok\nadmin action apikey.create"], "title must not contain control, line-separator or format characters (U+000A at character 3)"),
                (["app": "handz", "params": Self.flow, "owner": "eve\u{202E}gnp.exe"], "owner must not contain control, line-separator or format characters (U+202E at character 4)"),
                (["app": "handz", "params": Self.flow, "title": "bell\u{7}"], "(U+0007 at character 5)"),
                (["app": "handz", "params": Self.flow, "title": "del\u{7F}"], "(U+007F at character 4)"),
                (["app": "handz", "params": Self.flow, "title": "c1\u{85}"], "(U+0085 at character 3)"),
                (["app": "handz", "params": Self.flow, "title": "line\u{2028}sep"], "(U+2028 at character 5)"),
                (["app": "handz", "params": ["flowId": "0b7d3a52\u{1B}[31m"]], "param 'flowId' must not contain control"),
            ]
            for (body, message) in cases {
                let reply = try await api.call(.post, "/v1/links", key: api.adminKey, json: body)
                #expect(reply.status == 422, "\(body)")
                #expect(reply.errorCode == "unprocessable")
                #expect(reply.text.contains(message), "\(reply.text)")
            }
            // Emoji sequences (joiners, variation selectors, a subdivision flag's tags) are text, not controls.
            let emoji = "Guard pass 👩‍👩‍👧 ❤️ 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"
            let kept = try await api.call(.post, "/v1/links", key: api.adminKey, json: ["app": "handz", "params": Self.flow, "title": emoji])
            #expect(kept.status == 201, "\(kept.text)")
            let stored = try await api.call(.get, "/v1/links/\(kept.json["id"] as? String ?? "")", key: api.adminKey)
            #expect(stored.json["title"] as? String == emoji)
            // The admin actions that log what they are given: an API key's label, an owner's revocation.
            let label = try await api.call(.post, "/v1/admin/api-keys", key: api.adminKey, json: ["kind": "client", "app": "handz", "label": "ci\r\nforged"])
            #expect(label.status == 422 && label.text.contains("label must not contain control"), "\(label.text)")
            let owner = try await api.call(.post, "/v1/admin/revocations", key: api.adminKey, json: ["app": "handz", "owner": "eve\n"])
            #expect(owner.status == 422 && owner.text.contains("owner must not contain control"), "\(owner.text)")
        }
    }

    /// A log handler that keeps what reaches it.
    final class Captured: LogHandler, @unchecked Sendable {
        let lines = Mutex<[(String, Logger.Metadata)]>([])
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            lines.withLock { $0.append((event.message.description, event.metadata ?? [:])) }
        }
    }

    @Test("the log escapes messages and metadata: strings, descriptions, nested values and handler metadata")
    func logEscapes() {
        let captured = Captured()
        var logger = Logger(label: "test") { _ in EscapingLogHandler(wrapping: captured) }
        logger[metadataKey: "request"] = "a\u{1B}b"
        logger.notice("admin action\nlinkd: forged", metadata: [
            "owner": "eve\u{202E}", "count": .stringConvertible(3), "list": ["x\ny"], "map": ["k\r": "v\u{2029}"],
        ])
        let (message, metadata) = captured.lines.withLock { $0[0] }
        #expect(message == #"admin action\nlinkd: forged"#)
        #expect(metadata["owner"] == .string(#"eve\u{202E}"#))
        #expect(metadata["count"] == .string("3"))
        #expect(metadata["list"] == .array([.string(#"x\ny"#)]))
        #expect(metadata["map"] == .dictionary([#"k\r"#: .string(#"v\u{2029}"#)]))
        #expect(captured.metadata["request"] == .string(#"a\u{1B}b"#))
    }
}
