/// An ACME account key: ECDSA P-256, signing requests as ES256. Keep `privateKeyPEM` secret (a `SecretFile`) and
/// load it again with `init(privateKeyPEM:)`: the CA knows the account by this key.
public struct ACMEAccountKey: Sendable {
    let key: P256Key
    /// The private key as unencrypted PKCS #8 PEM.
    public let privateKeyPEM: String
    /// The public key as a JWK (`{crv, kty, x, y}`), as sent in a `newAccount` request.
    public let jwk: JWK

    private init(key: P256Key) throws {
        self.key = key
        self.privateKeyPEM = try key.privateKeyPEM()
        let point = try key.publicCoordinates()
        self.jwk = JWK(x: point.x, y: point.y)
    }

    /// A fresh key.
    public static func generate() throws -> ACMEAccountKey {
        try ACMEAccountKey(key: P256Key.generate())
    }

    /// The key in a PEM private key (PKCS #8 or SEC 1 `EC PRIVATE KEY`); `invalidArgument` unless it is P-256.
    public init(privateKeyPEM: String) throws {
        try self.init(key: P256Key(pem: privateKeyPEM))
    }

    /// The RFC 7638 thumbprint of `jwk`, the account's part of every key authorization.
    public var thumbprint: String { jwk.thumbprint }

    /// The key authorization of a challenge token (RFC 8555 §8.1): `token.thumbprint`.
    public func keyAuthorization(token: String) -> String { token + "." + thumbprint }

    /// The ES256 signature of `message`: r || s, 64 bytes (RFC 7518 §3.4), as a JWS carries it.
    public func signES256(_ message: [UInt8]) throws -> [UInt8] {
        try key.signES256(message)
    }

    /// True when `signature` (r || s) is this key's ES256 signature of `message`.
    public func verifyES256(_ message: [UInt8], signature: [UInt8]) -> Bool {
        key.verifyES256(message, signature: signature)
    }
}
