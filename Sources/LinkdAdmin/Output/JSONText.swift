import Foundation

/// A JSON object's fields as text for tables: strings as they are, numbers written out, absent or null as nil.
public struct JSONText: Sendable {
    private let text: [String: String]
    private let objects: [String: [String: String]]

    /// Reads `object`'s scalar fields, and one level of nested objects of scalars (a link's `params`).
    public init(_ object: [String: Any]) {
        var text: [String: String] = [:], objects: [String: [String: String]] = [:]
        for (key, value) in object {
            if let scalar = Self.scalar(value) { text[key] = scalar }
            if let nested = value as? [String: Any] { objects[key] = nested.compactMapValues(Self.scalar) }
        }
        self.text = text
        self.objects = objects
    }

    /// The field `key` as text, nil when absent or null.
    public subscript(_ key: String) -> String? { text[key] }

    /// The nested object `key` as `name=value` pairs, sorted by name, comma-separated; nil when absent.
    public func pairs(_ key: String) -> String? {
        objects[key].map { $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") }
    }

    /// The objects of the array field `key` of `object` (empty when absent).
    public static func items(_ key: String, of object: [String: Any]) -> [[String: Any]] {
        object[key] as? [[String: Any]] ?? []
    }

    private static func scalar(_ value: Any) -> String? {
        switch value {
        case let text as String: return text
        case is NSNull: return nil
        case let number as NSNumber: return number.stringValue  // the admin API's answers hold no booleans
        default: return nil
        }
    }
}

extension TextTable {
    /// A table of JSON objects: one row per object, one column per (title, field) pair; an absent field shows `-`.
    public init(_ objects: [[String: Any]], columns: KeyValuePairs<String, String>) {
        self.init(
            columns: columns.map(\.key),
            rows: objects.map(JSONText.init).map { object in columns.map { object[$0.value] ?? "-" } })
    }
}
