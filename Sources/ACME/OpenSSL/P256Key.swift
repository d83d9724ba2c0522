internal import COpenSSL

/// An ECDSA P-256 private key (an OpenSSL `EVP_PKEY`), owned and freed here. Signing uses a fresh context per call,
/// so one key may sign from several threads.
final class P256Key: @unchecked Sendable {
    /// The `EVP_PKEY`.
    let pkey: OpaquePointer

    private init(owning pkey: OpaquePointer) { self.pkey = pkey }

    deinit { EVP_PKEY_free(pkey) }

    /// A fresh key (EVP_PKEY_generate on the P-256 group).
    static func generate() throws -> P256Key {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw OpenSSLCalls.error("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1 else { throw OpenSSLCalls.error("EVP_PKEY_keygen_init") }
        guard EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1 else { throw OpenSSLCalls.error("EVP_PKEY_CTX_set_group_name") }
        var generated: OpaquePointer?
        guard EVP_PKEY_generate(ctx, &generated) == 1, let pkey = generated else { throw OpenSSLCalls.error("EVP_PKEY_generate") }
        return P256Key(owning: pkey)
    }

    /// The key in a PEM private key (PKCS #8 or SEC 1); refuses any key that is not ECDSA P-256.
    convenience init(pem: String) throws {
        let read = try OpenSSLCalls.withMemoryBIO(Array(pem.utf8)) { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
        guard let pkey = read else {
            throw OpenSSLCalls.error("reading the PEM private key", code: .invalidArgument)
        }
        self.init(owning: pkey)
        guard EVP_PKEY_is_a(pkey, "EC") == 1, groupName() == "prime256v1" else {
            throw ACMEError(.invalidArgument, "the private key is not an ECDSA P-256 key (got \(groupName() ?? "a non-EC key"))")
        }
    }

    /// The curve's OpenSSL name (`prime256v1`), or nil for a key without one.
    private func groupName() -> String? {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pkey, &name, name.count, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The private key as unencrypted PKCS #8 PEM (`-----BEGIN PRIVATE KEY-----`).
    func privateKeyPEM() throws -> String {
        let bytes = try OpenSSLCalls.writeToMemory("PEM_write_bio_PrivateKey") { bio in
            PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The public point's coordinates, 32 big-endian bytes each.
    func publicCoordinates() throws -> (x: [UInt8], y: [UInt8]) {
        func coordinate(_ name: String) throws -> [UInt8] {
            var number: OpaquePointer?
            guard EVP_PKEY_get_bn_param(pkey, name, &number) == 1, let number else {
                throw OpenSSLCalls.error("EVP_PKEY_get_bn_param(\(name))")
            }
            defer { BN_free(number) }
            return try OpenSSLCalls.bytes(of: number, width: 32)
        }
        return (try coordinate(OSSL_PKEY_PARAM_EC_PUB_X), try coordinate(OSSL_PKEY_PARAM_EC_PUB_Y))
    }

    /// The ES256 signature of `message` as JWS wants it (RFC 7518 §3.4): SHA-256, ECDSA, then r and s as 32
    /// big-endian bytes each — OpenSSL's DER `ECDSA-Sig-Value` converted.
    func signES256(_ message: [UInt8]) throws -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw OpenSSLCalls.error("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, pkey) == 1 else { throw OpenSSLCalls.error("EVP_DigestSignInit") }
        var der = [UInt8](repeating: 0, count: 80)  // a P-256 DER signature is at most 72 bytes
        var length = der.count
        let signed = message.withUnsafeBufferPointer { m in
            der.withUnsafeMutableBufferPointer { s in
                EVP_DigestSign(ctx, s.baseAddress, &length, m.baseAddress ?? UnsafePointer(bitPattern: 1), m.count)
            }
        }
        guard signed == 1 else { throw OpenSSLCalls.error("EVP_DigestSign") }
        return try Self.rawSignature(fromDER: Array(der.prefix(length)))
    }

    /// r || s (32 bytes each) from a DER `ECDSA-Sig-Value`.
    static func rawSignature(fromDER der: [UInt8]) throws -> [UInt8] {
        let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature = decoded else { throw OpenSSLCalls.error("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(signature) }
        guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature) else {
            throw ACMEError(.crypto, "the ECDSA signature has no r or s")
        }
        return try OpenSSLCalls.bytes(of: r, width: 32) + OpenSSLCalls.bytes(of: s, width: 32)
    }

    /// True when `signature` (r || s) is this key's ES256 signature of `message`; for tests.
    func verifyES256(_ message: [UInt8], signature: [UInt8]) -> Bool {
        guard signature.count == 64, let sig = ECDSA_SIG_new() else { return false }
        defer { ECDSA_SIG_free(sig) }
        let r = signature.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = signature.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress.map { $0 + 32 }, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)  // BN_free takes nil; after a successful set0 the signature owns both
            BN_free(s)
            return false
        }
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(sig, &der)
        guard length > 0, let der else { return false }
        defer { CRYPTO_free(der, #fileID, #line) }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, pkey) == 1 else { return false }
        let ok = message.withUnsafeBufferPointer { m in
            EVP_DigestVerify(ctx, der, Int(length), m.baseAddress ?? UnsafePointer(bitPattern: 1), m.count)
        }
        ERR_clear_error()
        return ok == 1
    }
}
