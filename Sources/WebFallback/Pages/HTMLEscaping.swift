/// HTML escaping exactly as swift-mustache's `String.htmlEscape` does it for `{{x}}`: each *character* (grapheme
/// cluster) that is `<`, `>`, `&`, `"` or `'` becomes `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&#39;`; everything else is
/// kept. A special character that a combining mark joins (`&\u{301}`) is another character and is kept, as Mustache
/// keeps it. Tested equal to Mustache over every ASCII character and every Unicode scalar, and with each special
/// character at every place of strings up to 40 bytes long.
enum HTMLEscaping {
    /// The most bytes one byte of text becomes escaped: `"` is six bytes as `&quot;`.
    static let maxGrowth = 6

    /// Writes `text`, escaped, at the start of `output` (room for `maxGrowth` bytes per byte of text); the bytes
    /// written. Strings without a special byte are copied as they are; ASCII strings are escaped byte by byte (no two
    /// ASCII scalars but `\r\n` form one character); the rest go character by character, as Mustache goes.
    static func write(_ text: String, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var contiguous = text
        return contiguous.withUTF8 { bytes in
            let (special, ascii) = scan(bytes)
            guard special else { return output.initialize(fromContentsOf: bytes) }
            guard ascii else {
                var escaped = ""
                appendByCharacter(text, to: &escaped)
                return escaped.withUTF8 { output.initialize(fromContentsOf: $0) }
            }
            var count = 0
            for byte in bytes {
                guard let replacement = replacement(for: byte) else {
                    output.initializeElement(at: count, to: byte)
                    count += 1
                    continue
                }
                for replacementByte in replacement.utf8 {
                    output.initializeElement(at: count, to: replacementByte)
                    count += 1
                }
            }
            return count
        }
    }

    /// Whether `bytes` hold one of the five special characters, and whether they are all ASCII; eight bytes at a
    /// time (a byte equal to `c` is a zero byte of `word ^ c·0x01…01`), then the rest one by one.
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> (special: Bool, ascii: Bool) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        var special = false
        var high: UInt64 = 0
        var offset = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while offset + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                high |= word
                if !special {
                    special = hasZeroByte(word ^ (ones &* 0x3C)) || hasZeroByte(word ^ (ones &* 0x3E))
                        || hasZeroByte(word ^ (ones &* 0x26)) || hasZeroByte(word ^ (ones &* 0x22))
                        || hasZeroByte(word ^ (ones &* 0x27))
                }
                offset += 8
            }
        }
        var ascii = high & highs == 0
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte >= 0x80 {
                ascii = false
            } else if replacement(for: byte) != nil {
                special = true
            }
            offset += 1
        }
        return (special, ascii)
    }

    /// `text`, escaped (through `write`).
    static func escaped(_ text: String) -> String {
        let bytes = [UInt8](unsafeUninitializedCapacity: maxGrowth * text.utf8.count) { output, count in
            count = write(text, into: output)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What an ASCII byte is escaped to, if it is one of the five.
    private static func replacement(for byte: UInt8) -> String? {
        switch byte {
        case UInt8(ascii: "<"): "&lt;"
        case UInt8(ascii: ">"): "&gt;"
        case UInt8(ascii: "&"): "&amp;"
        case UInt8(ascii: "\""): "&quot;"
        case UInt8(ascii: "'"): "&#39;"
        default: nil
        }
    }

    /// Mustache's own loop: characters compared as `Character`s (canonical equivalence, as its dictionary looks
    /// them up).
    private static func appendByCharacter(_ text: String, to output: inout String) {
        for character in text {
            switch character {
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "&": output += "&amp;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.append(character)
            }
        }
    }
}
