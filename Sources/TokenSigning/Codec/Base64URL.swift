/// Strict base64url (RFC 4648 §5) without padding: url-safe alphabet only, no `=`, zero trailing bits.
///
/// Foundation's decoder accepts non-canonical input, so tokens use this one.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes as base64url without padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            index += 3
        }
        let rest = input.count - index
        if rest == 1 {
            let n = UInt32(input[index]) << 16
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
        } else if rest == 2 {
            let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes canonical base64url without padding; `nil` for any other input.
    public static func decode(_ string: String) -> [UInt8]? {
        var copy = string
        return copy.withUTF8 { decode(utf8: $0) }
    }

    /// Decodes canonical base64url from UTF-8 bytes; `nil` for any non-canonical input.
    static func decode(utf8 input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let capacity = input.count * 3 / 4
        var length = 0
        let out = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            length = decode(utf8: input, into: buffer) ?? -1
            initialized = max(length, 0)
        }
        return length < 0 ? nil : out
    }

    /// Decodes canonical base64url from UTF-8 bytes into `out` (which must hold `input.count * 3 / 4` bytes);
    /// the decoded length, or `nil` for non-canonical input or a short `out`. Allocates nothing.
    static func decode(utf8 input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        let count = input.count
        if count % 4 == 1 || out.count < count * 3 / 4 { return nil }
        var written = 0
        var index = 0
        return reverse.withUnsafeBufferPointer { table -> Int? in
            while index + 4 <= count {
                let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                let c = table[Int(input[index + 2])], d = table[Int(input[index + 3])]
                if (a | b | c | d) & 0xC0 != 0 { return nil }
                let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                out[written] = UInt8(truncatingIfNeeded: n >> 16)
                out[written + 1] = UInt8(truncatingIfNeeded: n >> 8)
                out[written + 2] = UInt8(truncatingIfNeeded: n)
                written += 3
                index += 4
            }
            let rest = count - index
            if rest == 2 {
                let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                if (a | b) & 0xC0 != 0 || b & 0x0F != 0 { return nil }
                out[written] = a << 2 | b >> 4
                written += 1
            } else if rest == 3 {
                let a = table[Int(input[index])], b = table[Int(input[index + 1])], c = table[Int(input[index + 2])]
                if (a | b | c) & 0xC0 != 0 || c & 0x03 != 0 { return nil }
                out[written] = a << 2 | b >> 4
                out[written + 1] = b << 4 | c >> 2
                written += 2
            }
            return written
        }
    }
}
