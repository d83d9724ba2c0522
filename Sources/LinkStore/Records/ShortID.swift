/// A link's short id: 11 base62 characters (`0-9`, `A-Z`, `a-z`), each drawn uniformly from the system's CSPRNG,
/// so 62^11 ≈ 2^65.5 ids — more than 64 bits of randomness. A share token is at least 80 base64url characters, so
/// the share path tells the two apart by their length alone.
public enum ShortID {
    /// Every short id has exactly this many characters.
    public static let length = 11

    /// The base62 alphabet, in this order.
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// A new random short id from the kernel's CSPRNG (`SystemRandomNumberGenerator`), drawn eight bytes at a time
    /// (one system call each, where `random(in:)` made one a character): a byte below 248 (4 × 62) picks the
    /// character `byte % 62`, without bias; a byte from 248 up is thrown away.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        while bytes.count < length {
            var word = generator.next()
            for _ in 0..<8 where bytes.count < length {
                let byte = UInt8(truncatingIfNeeded: word)
                word >>= 8
                if byte < 248 { bytes.append(alphabet[Int(byte % 62)]) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `text` has a short id's shape: exactly `length` ASCII letters and digits.
    public static func isShape(_ text: some StringProtocol) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy(isShapeByte)
    }

    /// `isShape` for a `String`, over its contiguous UTF-8 (every share request asks; the generic form is not
    /// specialised across modules).
    public static func isShape(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.count == length && $0.allSatisfy(isShapeByte) }
    }

    private static func isShapeByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
