internal import COpenSSL

/// SHA-256 (EVP_Digest), for JWK thumbprints.
enum SHA256Digest {
    /// The 32-byte digest of `bytes`.
    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { EVP_Digest(input.baseAddress, input.count, $0.baseAddress, &length, EVP_sha256(), nil) }
        }
        if ok != 1 { fatalError("EVP_Digest(SHA-256) failed: OpenSSL cannot hash") }  // never on input
        return out
    }
}
