import Foundation
import Testing

/// Does the client's typed value say everything the server's JSON said? The value re-encoded (sorted keys, RFC 3339
/// dates, as the server encodes) must be the same JSON document — no key dropped, renamed or retyped.
enum WireComparison {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// Decodes `serverJSON` as `T`, re-encodes it and returns both documents, parsed (`NSDictionary` compares deeply).
    static func roundTrip<T: Codable>(_ type: T.Type, _ serverJSON: Data) throws -> (server: NSDictionary, client: NSDictionary, value: T) {
        let value = try decoder.decode(T.self, from: serverJSON)
        let again = try encoder.encode(value)
        let server = try #require(try JSONSerialization.jsonObject(with: serverJSON) as? NSDictionary)
        let client = try #require(try JSONSerialization.jsonObject(with: again) as? NSDictionary)
        return (server, client, value)
    }

    /// Every key path in a JSON document (`intercept.continuation.url`), for readable failures.
    static func keyPaths(_ object: Any, prefix: String = "") -> Set<String> {
        guard let dictionary = object as? [String: Any] else { return [] }
        var paths: Set<String> = []
        for (key, value) in dictionary {
            let path = prefix.isEmpty ? key : prefix + "." + key
            paths.insert(path)
            // Maps keyed by data (params, returnTo, afterActions' names) are values, not schema: not descended.
            if ["params", "returnTo"].contains(key) { continue }
            if key == "afterActions", let actions = value as? [String: Any] {
                for (_, action) in actions { paths.formUnion(keyPaths(action, prefix: path + ".*")) }
                continue
            }
            paths.formUnion(keyPaths(value, prefix: path))
        }
        return paths
    }

    /// Expects the round trip of `serverJSON` through `T` to keep the document whole.
    static func expectWhole<T: Codable>(_ type: T.Type, _ serverJSON: Data, _ context: String,
                                        sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
        let (server, client, value) = try roundTrip(type, serverJSON)
        let dropped = keyPaths(server).subtracting(keyPaths(client))
        #expect(dropped.isEmpty, "\(T.self) drops \(dropped.sorted()) of \(context)", sourceLocation: sourceLocation)
        #expect(server == client, "\(T.self) re-encoded differs from the server's JSON for \(context)", sourceLocation: sourceLocation)
        return value
    }
}
