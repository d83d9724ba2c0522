import TokenSigning

/// The public half of an ECDSA P-256 account key as a JSON Web Key (RFC 7518 §6.2): the members RFC 7638 hashes.
public struct JWK: Sendable, Equatable, Codable {
    /// The curve: `P-256`.
    public let crv: String
    /// The key type: `EC`.
    public let kty: String
    /// The public point's x coordinate, 32 bytes, base64url.
    public let x: String
    /// The public point's y coordinate, 32 bytes, base64url.
    public let y: String

    /// A P-256 JWK from the coordinates (32 big-endian bytes each).
    init(x: [UInt8], y: [UInt8]) {
        self.crv = "P-256"
        self.kty = "EC"
        self.x = Base64URL.encode(x)
        self.y = Base64URL.encode(y)
    }

    /// The RFC 7638 thumbprint: base64url of the SHA-256 of the required members in lexicographic order.
    public var thumbprint: String {
        JWKThumbprint.compute(members: ["crv": crv, "kty": kty, "x": x, "y": y])
    }
}

/// JWK thumbprints (RFC 7638 §3) over any key type's required members.
public enum JWKThumbprint {
    /// base64url(SHA-256(`{"m1":"v1",…}`)) with the members sorted by name (their UTF-16 code units, which is byte
    /// order for the ASCII names JWKs use) and no white space.
    public static func compute(members: [String: String]) -> String {
        Base64URL.encode(SHA256Digest.hash(Array(canonicalJSON(members).utf8)))
    }

    /// The JSON object RFC 7638 hashes.
    static func canonicalJSON(_ members: [String: String]) -> String {
        let sorted = members.sorted { Array($0.key.utf16).lexicographicallyPrecedes(Array($1.key.utf16)) }
        return "{" + sorted.map { "\(jsonString($0.key)):\(jsonString($0.value))" }.joined(separator: ",") + "}"
    }

    /// A JSON string literal, escaping what JSON requires.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
