internal import COpenSSL

/// An Ed25519 key (EVP_PKEY); a private key signs and verifies, a public-only key only verifies.
final class Ed25519Key: @unchecked Sendable {
    private let pkey: OpaquePointer
    /// The 32-byte public key.
    let publicKey: [UInt8]

    /// A fresh key pair (EVP_PKEY_keygen).
    static func generate() throws -> (key: Ed25519Key, seed: [UInt8]) {
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else { throw OpenSSL.error("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1 else { throw OpenSSL.error("EVP_PKEY_keygen_init") }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen(ctx, &generated) == 1, let pkey = generated else { throw OpenSSL.error("EVP_PKEY_keygen") }
        var seed = [UInt8](repeating: 0, count: 32)
        var length = 32
        let ok = seed.withUnsafeMutableBufferPointer { EVP_PKEY_get_raw_private_key(pkey, $0.baseAddress, &length) }
        guard ok == 1, length == 32 else {
            EVP_PKEY_free(pkey)
            throw OpenSSL.error("EVP_PKEY_get_raw_private_key")
        }
        return (try Ed25519Key(owning: pkey), seed)
    }

    /// A key from its 32-byte private seed (RFC 8032 secret key).
    convenience init(seed: [UInt8]) throws {
        guard seed.count == 32 else { throw TokenError(.invalidArgument, "Ed25519 private key must be 32 bytes") }
        let made = seed.withUnsafeBufferPointer { EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32) }
        guard let pkey = made else { throw OpenSSL.error("EVP_PKEY_new_raw_private_key") }
        try self.init(owning: pkey)
    }

    /// A verify-only key from its 32-byte public key.
    convenience init(publicKey: [UInt8]) throws {
        guard publicKey.count == 32 else { throw TokenError(.invalidArgument, "Ed25519 public key must be 32 bytes") }
        let made = publicKey.withUnsafeBufferPointer { EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32) }
        guard let pkey = made else { throw OpenSSL.error("EVP_PKEY_new_raw_public_key") }
        try self.init(owning: pkey)
    }

    private init(owning pkey: OpaquePointer) throws {
        self.pkey = pkey
        var pub = [UInt8](repeating: 0, count: 32)
        var length = 32
        let ok = pub.withUnsafeMutableBufferPointer { EVP_PKEY_get_raw_public_key(pkey, $0.baseAddress, &length) }
        guard ok == 1, length == 32 else {
            EVP_PKEY_free(pkey)
            throw OpenSSL.error("EVP_PKEY_get_raw_public_key")
        }
        self.publicKey = pub
    }

    deinit { EVP_PKEY_free(pkey) }

    /// The 64-byte signature of `message`.
    func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw OpenSSL.error("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestSignInit(ctx, nil, nil, nil, pkey) == 1 else { throw OpenSSL.error("EVP_DigestSignInit") }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        let ok = message.withUnsafeBufferPointer { m in
            signature.withUnsafeMutableBufferPointer { s in
                EVP_DigestSign(ctx, s.baseAddress, &length, m.baseAddress ?? UnsafePointer(bitPattern: 1), m.count)
            }
        }
        guard ok == 1, length == 64 else { throw OpenSSL.error("EVP_DigestSign") }
        return signature
    }

    /// True when `signature` is a valid signature of `message`.
    func verify(_ message: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == 64, let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, nil, nil, pkey) == 1 else {
            OpenSSL.clearErrors()
            return false
        }
        let ok = EVP_DigestVerify(
            ctx,
            signature.baseAddress?.assumingMemoryBound(to: UInt8.self), 64,
            message.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(bitPattern: 1), message.count
        )
        if ok != 1 { OpenSSL.clearErrors() }
        return ok == 1
    }

    func verify(_ message: [UInt8], signature: [UInt8]) -> Bool {
        message.withUnsafeBytes { m in signature.withUnsafeBytes { verify(m, signature: $0) } }
    }
}
