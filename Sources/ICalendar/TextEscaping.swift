/// Byte-level decoding of TEXT escapes (RFC 5545 §3.3.11) and parameter escapes (RFC 6868).
enum TextEscaping {
    /// Unescapes `\\ \; \, \n \N`; any other backslash pair is kept as written.
    static func unescapeText(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b == UInt8(ascii: "\\"), i + 1 < n {
                let next = bytes[i + 1]
                switch next {
                case UInt8(ascii: "n"), UInt8(ascii: "N"): out.append(0x0A)
                case UInt8(ascii: "\\"), UInt8(ascii: ";"), UInt8(ascii: ","): out.append(next)
                default: out.append(b); out.append(next)
                }
                i += 2
            } else {
                out.append(b)
                i += 1
            }
        }
        return out
    }

    /// Decodes RFC 6868 `^n` (newline), `^^` (`^`), `^'` (`"`); any other `^` is kept as written.
    static func decodeParameter(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b == UInt8(ascii: "^"), i + 1 < n {
                switch bytes[i + 1] {
                case UInt8(ascii: "n"): out.append(0x0A); i += 2; continue
                case UInt8(ascii: "^"): out.append(UInt8(ascii: "^")); i += 2; continue
                case UInt8(ascii: "'"): out.append(UInt8(ascii: "\"")); i += 2; continue
                default: break
                }
            }
            out.append(b)
            i += 1
        }
        return out
    }

    /// Splits a TEXT list on commas not escaped by a backslash, unescaping each part.
    static func splitAndUnescape(_ bytes: [UInt8]) -> [String] {
        bytes.withUnsafeBufferPointer { buffer in
            var parts: [String] = []
            var start = 0
            var i = 0
            while i < buffer.count {
                if buffer[i] == UInt8(ascii: "\\") {
                    i += 2
                    continue
                }
                if buffer[i] == UInt8(ascii: ",") {
                    let part = UnsafeBufferPointer(rebasing: buffer[start..<i])
                    parts.append(String(decoding: unescapeText(part), as: UTF8.self))
                    start = i + 1
                }
                i += 1
            }
            let end = min(buffer.count, max(start, i))
            let part = UnsafeBufferPointer(rebasing: buffer[start..<end])
            parts.append(String(decoding: unescapeText(part), as: UTF8.self))
            return parts
        }
    }
}
