/// A small JSON writer that writes what `JSONEncoder` writes with `.sortedKeys` and `.withoutEscapingSlashes`:
/// objects, strings, string dictionaries; commas handled per nesting level. The caller writes members in key order
/// (`keyOrder`).
public struct JSONBytes: Sendable {
    /// An empty text.
    public init() {}

    /// The JSON text written so far.
    public var bytes: [UInt8] = []
    /// Per open object: whether a member was written (the next one needs a comma).
    private var hasMember: [Bool] = []

    /// The order JSONEncoder's `.sortedKeys` gives on Linux: by UTF-8 bytes (`"B" < "_x" < "a"`), no case folding.
    public static func keyOrder(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// `{`: an object begins.
    public mutating func open() {
        bytes.append(UInt8(ascii: "{"))
        hasMember.append(false)
    }

    /// `}`: the object ends.
    public mutating func close() {
        bytes.append(UInt8(ascii: "}"))
        hasMember.removeLast()
    }

    /// Writes `"name":`, with a comma before it when the object has members already.
    public mutating func key(_ name: String) {
        if hasMember[hasMember.count - 1] { bytes.append(UInt8(ascii: ",")) }
        hasMember[hasMember.count - 1] = true
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A string member; nothing when `value` is nil.
    public mutating func field(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    /// A string member, `null` when `value` is nil (for records whose every key is always written).
    public mutating func fieldOrNull(_ name: String, _ value: String?) {
        key(name)
        if let value { string(value) } else { raw("null".utf8) }
    }

    /// An object of string members, in key order.
    public mutating func dictionary(_ values: [String: String]) {
        open()
        for (name, value) in values.sorted(by: { Self.keyOrder($0.key, $1.key) }) {
            key(name)
            string(value)
        }
        close()
    }

    /// Text written as it is: a number, `true`, a bracket, a value another writer made.
    public mutating func raw(_ text: some Sequence<UInt8>) {
        bytes.append(contentsOf: text)
    }

    /// A JSON array of strings.
    public mutating func stringArray(_ values: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`-style or `\u00XX` escapes, `/` and
    /// non-ASCII written as they are (what JSONEncoder does with `.withoutEscapingSlashes`).
    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            bytes.append(UInt8(ascii: "\""))
            // Most strings need no escape: one copy.
            if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                bytes.append(contentsOf: utf8)
            } else {
                escaped(utf8)
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }

    private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
    }
}
