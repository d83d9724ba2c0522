/// The signature suite of a token: its first byte.
public enum TokenSuite: UInt8, Sendable, Codable, CaseIterable {
    /// HMAC-SHA256, 32-byte tag.
    case hmacSHA256 = 1
    /// Ed25519 (RFC 8032), 64-byte signature.
    case ed25519 = 2

    /// Length of the tag or signature in bytes.
    public var tagLength: Int { self == .hmacSHA256 ? 32 : 64 }
    /// Total decoded token length in bytes.
    public var tokenLength: Int { TokenLayout.headerLength + tagLength }
    /// Length of the token as text (unpadded base64url): 83 characters for HMAC-SHA256, 126 for Ed25519.
    public var encodedLength: Int { (tokenLength * 4 + 2) / 3 }
    /// Name used on the command line and in JSON: `hmac-sha256` or `ed25519`.
    public var name: String { self == .hmacSHA256 ? "hmac-sha256" : "ed25519" }
    /// Parses `hmac-sha256` / `ed25519`.
    public init?(name: String) {
        switch name {
        case "hmac-sha256": self = .hmacSHA256
        case "ed25519": self = .ed25519
        default: return nil
        }
    }
}

/// A link's 128-bit random identifier.
public struct LinkID: Hashable, Sendable, Codable {
    /// The 16 bytes.
    public let bytes: [UInt8]

    /// Wraps exactly 16 bytes; `nil` otherwise.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A fresh random link id (RAND_bytes).
    public static func random() -> LinkID { LinkID(unchecked: SecureRandom.bytes(16)) }

    init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Parses 32 hex characters (either case).
    public init?(hex: String) {
        let chars = Array(hex.utf8)
        guard chars.count == 32 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(16)
        var index = 0
        while index < 32 {
            guard let hi = Self.nibble(chars[index]), let lo = Self.nibble(chars[index + 1]) else { return nil }
            out.append(hi << 4 | lo)
            index += 2
        }
        self.bytes = out
    }

    /// 32 lowercase hex characters.
    public var hex: String { Hex.encode(bytes) }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = LinkID(hex: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "link id is not 32 hex characters")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

enum Hex {
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        var index = 0
        while index < chars.count {
            guard let hi = nibble(chars[index]), let lo = nibble(chars[index + 1]) else { return nil }
            out.append(hi << 4 | lo)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}

/// The signed fields of a token (everything but the tag).
public struct TokenClaims: Sendable, Equatable {
    /// The signature suite.
    public var suite: TokenSuite
    /// The key id that signed it.
    public var keyID: UInt32
    /// The link it points at.
    public var linkID: LinkID
    /// Expiry, unix seconds.
    public var expiresAt: UInt32
    /// The link's generation (bumped to invalidate older tokens of the same link).
    public var generation: UInt32
    /// Flags, reserved for the application.
    public var flags: UInt8

    /// Creates claims.
    public init(suite: TokenSuite, keyID: UInt32, linkID: LinkID, expiresAt: UInt32, generation: UInt32, flags: UInt8) {
        self.suite = suite
        self.keyID = keyID
        self.linkID = linkID
        self.expiresAt = expiresAt
        self.generation = generation
        self.flags = flags
    }
}

/// The byte layout: suite(1) kid(4 BE) linkID(16) expiry(4 BE) generation(4 BE) flags(1), then the tag.
/// `package` for the fuzz targets (Fuzz/FuzzTokenCodec).
package enum TokenLayout {
    /// The signed fields' length in bytes; the tag follows.
    package static let headerLength = 30
    static let domainPrefix: [UInt8] = Array("linkd-token-v1".utf8) + [0]
    /// Longest app name bound into the MAC input.
    static let maxAppLength = 255

    /// The 30 header bytes of `claims`.
    package static func header(_ claims: TokenClaims) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(headerLength)
        out.append(claims.suite.rawValue)
        appendBE(claims.keyID, to: &out)
        out.append(contentsOf: claims.linkID.bytes)
        appendBE(claims.expiresAt, to: &out)
        appendBE(claims.generation, to: &out)
        out.append(claims.flags)
        return out
    }

    /// `"linkd-token-v1\0" || UInt16BE(len(app)) || app`: the part of the signed input fixed per app.
    static func contextPrefix(app: String) -> [UInt8] {
        let appBytes = Array(app.utf8)
        return domainPrefix + [UInt8(truncatingIfNeeded: appBytes.count >> 8), UInt8(truncatingIfNeeded: appBytes.count)] + appBytes
    }

    /// Parses the 30 header bytes (suite byte already known to be valid by the caller or checked here).
    package static func parseHeader(_ b: UnsafeBufferPointer<UInt8>) -> TokenClaims? {
        guard b.count >= headerLength, let suite = TokenSuite(rawValue: b[0]) else { return nil }
        return TokenClaims(
            suite: suite,
            keyID: readBE(b, 1),
            linkID: LinkID(unchecked: Array(b[5..<21])),
            expiresAt: readBE(b, 21),
            generation: readBE(b, 25),
            flags: b[29]
        )
    }

    static func appendBE(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 24))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }

    static func readBE(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
}
