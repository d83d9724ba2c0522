internal import COpenSSL

/// A prepared HMAC-SHA256 context (EVP_MAC) for one key, optionally with a fixed message prefix absorbed.
///
/// Each call duplicates the prepared context, so the key schedule and prefix are computed once and
/// concurrent calls never share mutable state.
final class HMACSHA256: @unchecked Sendable {
    private let context: OpaquePointer

    /// - Parameters:
    ///   - key: the MAC key (any length; keys longer than the block size are hashed, as HMAC specifies).
    ///   - prefix: bytes absorbed once, ahead of every message.
    init(key: [UInt8], prefix: [UInt8] = []) throws {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { throw OpenSSL.error("EVP_MAC_fetch(HMAC)") }
        defer { EVP_MAC_free(mac) }
        guard let ctx = EVP_MAC_CTX_new(mac) else { throw OpenSSL.error("EVP_MAC_CTX_new") }
        let initialised: Int32 = "SHA256".withCString { digestName in
            "digest".withCString { paramName in
                var params = [
                    OSSL_PARAM_construct_utf8_string(paramName, UnsafeMutablePointer(mutating: digestName), 0),
                    OSSL_PARAM_construct_end(),
                ]
                return key.withUnsafeBufferPointer { k in
                    params.withUnsafeMutableBufferPointer { p in
                        EVP_MAC_init(ctx, k.baseAddress ?? UnsafePointer(bitPattern: 1), k.count, p.baseAddress)
                    }
                }
            }
        }
        guard initialised == 1 else {
            EVP_MAC_CTX_free(ctx)
            throw OpenSSL.error("EVP_MAC_init")
        }
        if !prefix.isEmpty {
            let updated = prefix.withUnsafeBufferPointer { EVP_MAC_update(ctx, $0.baseAddress, $0.count) }
            guard updated == 1 else {
                EVP_MAC_CTX_free(ctx)
                throw OpenSSL.error("EVP_MAC_update")
            }
        }
        self.context = ctx
    }

    deinit { EVP_MAC_CTX_free(context) }

    /// Writes the 32-byte tag of `prefix || message` into `tag`; false if OpenSSL fails.
    func authenticate(_ message: UnsafeRawBufferPointer, into tag: UnsafeMutableRawBufferPointer) -> Bool {
        guard tag.count >= 32, let ctx = EVP_MAC_CTX_dup(context) else { return false }
        defer { EVP_MAC_CTX_free(ctx) }
        guard EVP_MAC_update(ctx, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count) == 1 else {
            return false
        }
        var length = 0
        return EVP_MAC_final(ctx, tag.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, 32) == 1 && length == 32
    }

    /// The 32-byte tag of `prefix || message`.
    func authenticate(_ message: [UInt8]) throws -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: 32)
        let ok = message.withUnsafeBytes { m in tag.withUnsafeMutableBytes { authenticate(m, into: $0) } }
        guard ok else { throw OpenSSL.error("HMAC-SHA256") }
        return tag
    }

    /// Verifies a 32-byte tag in constant time.
    func verify(_ message: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer) -> Bool {
        guard tag.count == 32 else { return false }
        return withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { computed in
            authenticate(message, into: computed) && ConstantTime.equals(UnsafeRawBufferPointer(computed), tag)
        }
    }
}

/// Low-level primitives exposed for benchmarks and interoperability tests.
public enum RawCrypto {
    /// One-shot HMAC-SHA256 through OpenSSL's EVP_MAC (no prepared context): the baseline the token path is
    /// measured against.
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) throws -> [UInt8] {
        try HMACSHA256(key: key).authenticate(message)
    }

    /// HMAC-SHA256 with the key schedule prepared once (EVP_MAC_init once, EVP_MAC_CTX_dup per call): the
    /// fair baseline for the token path, which uses the same technique.
    public final class PreparedHMACSHA256: Sendable {
        private let mac: HMACSHA256

        /// Prepares `key`.
        public init(key: [UInt8]) throws { mac = try HMACSHA256(key: key) }

        /// Writes the 32-byte tag of `message` into `tag`; false if OpenSSL fails or `tag` is short.
        public func authenticate(_ message: [UInt8], into tag: inout [UInt8]) -> Bool {
            message.withUnsafeBytes { m in tag.withUnsafeMutableBytes { mac.authenticate(m, into: $0) } }
        }
    }
}
