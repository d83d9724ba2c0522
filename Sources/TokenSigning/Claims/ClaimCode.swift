/// A one-time claim code of a deferred deep link: 128 random bits, written as 22 base64url characters.
///
/// The store never holds the code. It holds `lookupKey` (SHA-256 of the code under a domain prefix), by which a
/// claim finds its row, and the link's share token sealed (AES-256-GCM) under a key derived from the code under
/// another prefix: a copy of the database alone neither names a live code nor yields the token behind it.
public struct ClaimCode: Sendable, Equatable {
    /// The code as the person and the app see it (22 base64url characters).
    public let text: String
    private let bytes: [UInt8]

    /// Random bytes in a code.
    public static let byteCount = 16
    /// Characters of a code's text.
    public static let textLength = 22

    private init(bytes: [UInt8]) {
        self.bytes = bytes
        self.text = Base64URL.encode(bytes)
    }

    /// A fresh code from OpenSSL's CSPRNG.
    public static func generate() -> ClaimCode {
        ClaimCode(bytes: SecureRandom.bytes(byteCount))
    }

    /// The code `text` spells; nil unless it is exactly 22 canonical base64url characters.
    public init?(text: String) {
        guard text.utf8.count == Self.textLength, let bytes = Base64URL.decode(text), bytes.count == Self.byteCount else {
            return nil
        }
        self.init(bytes: bytes)
    }

    /// What the store keys a code's row by: SHA-256 of a domain prefix and the code's bytes.
    public var lookupKey: [UInt8] { SecretDigest.sha256(Array("linkd claim lookup v1\0".utf8) + bytes) }

    private var sealingKey: [UInt8] { SecretDigest.sha256(Array("linkd claim seal v1\0".utf8) + bytes) }
    private static let aad = Array("linkd claim token".utf8)

    /// `secret` sealed under a key only this code gives.
    public func seal(_ secret: [UInt8]) -> [UInt8] {
        // AES-GCM with a 32-byte key fails only when OpenSSL itself does; then nothing can be claimed from the row.
        (try? AESGCM.seal(secret, key: sealingKey, aad: Self.aad)) ?? []
    }

    /// What `seal` sealed under this code; nil when it was sealed under another or altered.
    public func open(_ sealed: [UInt8]) -> [UInt8]? {
        try? AESGCM.open(sealed, key: sealingKey, aad: Self.aad)
    }
}
