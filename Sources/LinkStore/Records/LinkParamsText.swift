import Foundation

/// A link's params as the stores keep them: a JSON object of strings, keys sorted. The one reading and writing of
/// that text for the statements written by hand (the SQLite backend's records encode theirs through GRDB).
enum LinkParamsText {
    /// `params` as stored text.
    static func encode(_ params: [String: String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(params), as: UTF8.self)
    }

    /// The params of link `id` from stored text; `storage` when it does not read.
    static func decode(_ text: String, id: String) throws -> [String: String] {
        do { return try JSONDecoder().decode([String: String].self, from: Data(text.utf8)) } catch {
            throw LinkStoreError(.storage, "link \(id) has unreadable params")
        }
    }
}
