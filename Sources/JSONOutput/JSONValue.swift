/// A JSON value built by hand and written in one pass (through `JSONBytes`), for answers with many small objects (a
/// year of stats days), where `JSONEncoder`'s cost per value dominates. It writes the bytes `JSONEncoder` writes with
/// `.sortedKeys` and `.withoutEscapingSlashes` for the same value: object members sorted by key, whatever order they
/// were given in.
public indirect enum JSONValue: Sendable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    case array([JSONValue])
    /// Members in any order; written sorted by key. A key given twice is written twice: the caller's error.
    case object([(String, JSONValue)])
    /// A JSON text written as it is (a date as the API's `JSONEncoder` writes it, say).
    case encoded([UInt8])

    /// An object of the members whose value is not nil: what `JSONEncoder` writes for a type's optional properties
    /// (absent, not `null`).
    public static func object(omittingNil members: [(String, JSONValue?)]) -> JSONValue {
        .object(members.compactMap { key, value in value.map { (key, $0) } })
    }

    /// The JSON text.
    public var bytes: [UInt8] {
        var out = JSONBytes()
        out.bytes.reserveCapacity(256)
        write(into: &out)
        return out.bytes
    }

    /// Writes the value at the writer's position (after a `key`, in an array, or alone).
    public func write(into out: inout JSONBytes) {
        switch self {
        case .string(let text): out.string(text)
        case .int(let number): out.raw(String(number).utf8)
        case .bool(let flag): out.raw((flag ? "true" : "false").utf8)
        case .null: out.raw("null".utf8)
        case .encoded(let text): out.raw(text)
        case .array(let values):
            out.raw(CollectionOfOne(UInt8(ascii: "[")))
            for (index, value) in values.enumerated() {
                if index > 0 { out.raw(CollectionOfOne(UInt8(ascii: ","))) }
                value.write(into: &out)
            }
            out.raw(CollectionOfOne(UInt8(ascii: "]")))
        case .object(let members):
            out.open()
            for (key, value) in members.sorted(by: { JSONBytes.keyOrder($0.0, $1.0) }) {
                out.key(key)
                value.write(into: &out)
            }
            out.close()
        }
    }
}
