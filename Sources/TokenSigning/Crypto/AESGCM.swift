internal import COpenSSL

/// AES-256-GCM sealing of private key material: `nonce(12) || ciphertext || tag(16)`.
enum AESGCM {
    static func seal(_ plaintext: [UInt8], key: [UInt8], aad: [UInt8]) throws -> [UInt8] {
        guard key.count == 32 else { throw TokenError(.sealing, "master key must be 32 bytes") }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw OpenSSL.error("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let nonce = SecureRandom.bytes(12)
        guard EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1 else { throw OpenSSL.error("EVP_EncryptInit_ex") }
        var outLength: Int32 = 0
        if !aad.isEmpty {
            guard EVP_EncryptUpdate(ctx, nil, &outLength, aad, Int32(aad.count)) == 1 else { throw OpenSSL.error("GCM AAD") }
        }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var total: Int32 = 0
        let updated = ciphertext.withUnsafeMutableBufferPointer { c in
            EVP_EncryptUpdate(ctx, c.baseAddress, &total, plaintext, Int32(plaintext.count))
        }
        guard updated == 1 else { throw OpenSSL.error("EVP_EncryptUpdate") }
        let finished = ciphertext.withUnsafeMutableBufferPointer { c in
            EVP_EncryptFinal_ex(ctx, c.baseAddress! + Int(total), &outLength)
        }
        guard finished == 1 else { throw OpenSSL.error("EVP_EncryptFinal_ex") }
        ciphertext.removeLast(ciphertext.count - Int(total + outLength))
        var tag = [UInt8](repeating: 0, count: 16)
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, &tag) == 1 else { throw OpenSSL.error("GCM get tag") }
        return nonce + ciphertext + tag
    }

    static func open(_ sealed: [UInt8], key: [UInt8], aad: [UInt8]) throws -> [UInt8] {
        guard key.count == 32 else { throw TokenError(.sealing, "master key must be 32 bytes") }
        guard sealed.count >= 28 else { throw TokenError(.sealing, "sealed key material is truncated") }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw OpenSSL.error("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let nonce = Array(sealed[0..<12])
        let ciphertext = Array(sealed[12..<(sealed.count - 16)])
        var tag = Array(sealed[(sealed.count - 16)...])
        guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1 else { throw OpenSSL.error("EVP_DecryptInit_ex") }
        var outLength: Int32 = 0
        if !aad.isEmpty {
            guard EVP_DecryptUpdate(ctx, nil, &outLength, aad, Int32(aad.count)) == 1 else { throw OpenSSL.error("GCM AAD") }
        }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var total: Int32 = 0
        let updated = plaintext.withUnsafeMutableBufferPointer { p in
            EVP_DecryptUpdate(ctx, p.baseAddress, &total, ciphertext, Int32(ciphertext.count))
        }
        guard updated == 1 else { throw OpenSSL.error("EVP_DecryptUpdate") }
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, &tag) == 1 else { throw OpenSSL.error("GCM set tag") }
        let finished = plaintext.withUnsafeMutableBufferPointer { p in
            EVP_DecryptFinal_ex(ctx, p.baseAddress! + Int(total), &outLength)
        }
        guard finished == 1 else {
            OpenSSL.clearErrors()
            throw TokenError(.sealing, "cannot unseal key material: wrong master key or corrupted record")
        }
        plaintext.removeLast(plaintext.count - Int(total + outLength))
        return plaintext
    }
}
