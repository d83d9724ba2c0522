internal import COpenSSL
import Synchronization

/// A prepared HMAC-SHA256 key (EVP_MAC) with an optional fixed message prefix.
///
/// Keyed contexts are kept in a small mutex-guarded pool: a call pops one (or duplicates the keyed template
/// when the pool is empty), re-initialises it with `EVP_MAC_init(ctx, NULL, 0, NULL)` — OpenSSL 3's HMAC then
/// restarts from the precomputed key schedule instead of re-hashing the key — absorbs `prefix || message` in
/// one update, finalises, and pushes the context back. A context is only ever used by one caller at a time.
final class HMACSHA256: @unchecked Sendable {
    /// Most contexts kept for reuse per key; extra ones made under contention are freed after use.
    static let poolCapacity = 16
    /// Longest prefix + message absorbed through the stack buffer; longer input takes two updates.
    private static let stackInputLimit = 512

    /// The keyed template every pooled context is duplicated from; never used for MAC computations itself.
    private let template: OpaquePointer
    private let prefix: [UInt8]
    private let pool: Mutex<[PooledContext]>

    /// An EVP_MAC_CTX owned by the pool; handed to one caller at a time, so it may cross threads.
    private struct PooledContext: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// - Parameters:
    ///   - key: the MAC key (any length; keys longer than the block size are hashed, as HMAC specifies).
    ///   - prefix: bytes absorbed ahead of every message.
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
        self.template = ctx
        self.prefix = prefix
        var contexts = [PooledContext]()
        contexts.reserveCapacity(Self.poolCapacity)
        self.pool = Mutex(contexts)
    }

    deinit {
        pool.withLock { contexts in
            for ctx in contexts { EVP_MAC_CTX_free(ctx.pointer) }
            contexts.removeAll()
        }
        EVP_MAC_CTX_free(template)
    }

    /// Number of contexts currently parked in the pool (for tests).
    var pooledContexts: Int { pool.withLock { $0.count } }

    private func checkOut() -> OpaquePointer? {
        if let ctx = pool.withLock({ $0.popLast() }) { return ctx.pointer }
        return EVP_MAC_CTX_dup(template)
    }

    private func checkIn(_ ctx: OpaquePointer) {
        let pooled = PooledContext(pointer: ctx)
        let kept = pool.withLock { contexts -> Bool in
            guard contexts.count < Self.poolCapacity else { return false }
            contexts.append(pooled)
            return true
        }
        if !kept { EVP_MAC_CTX_free(ctx) }
    }

    /// Writes the 32-byte tag of `prefix || message` into `tag`; false if OpenSSL fails.
    func authenticate(_ message: UnsafeRawBufferPointer, into tag: UnsafeMutableRawBufferPointer) -> Bool {
        guard tag.count >= 32, let ctx = checkOut() else { return false }
        // Re-keying from the stored schedule; a context that fails is dropped rather than reused.
        guard EVP_MAC_init(ctx, nil, 0, nil) == 1, absorb(message, into: ctx) else {
            EVP_MAC_CTX_free(ctx)
            return false
        }
        var length = 0
        let finished = EVP_MAC_final(ctx, tag.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, 32) == 1
        guard finished else {
            EVP_MAC_CTX_free(ctx)
            return false
        }
        checkIn(ctx)
        return length == 32
    }

    /// Feeds `prefix || message`: one update through a stack buffer when it fits, else two.
    private func absorb(_ message: UnsafeRawBufferPointer, into ctx: OpaquePointer) -> Bool {
        let total = prefix.count + message.count
        if total <= Self.stackInputLimit {
            return withUnsafeTemporaryAllocation(byteCount: Self.stackInputLimit, alignment: 8) { buffer in
                prefix.withUnsafeBytes { buffer.copyMemory(from: $0) }
                if message.count > 0 {
                    UnsafeMutableRawBufferPointer(rebasing: buffer[prefix.count..<total]).copyMemory(from: message)
                }
                return EVP_MAC_update(ctx, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), total) == 1
            }
        }
        let prefixed = prefix.withUnsafeBufferPointer { EVP_MAC_update(ctx, $0.baseAddress, $0.count) == 1 }
        return prefixed && EVP_MAC_update(ctx, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count) == 1
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

    /// HMAC-SHA256 with the key schedule prepared once and pooled contexts re-initialised per call
    /// (EVP_MAC_init(NULL key) + update + final): the same OpenSSL call sequence as the token path, so the
    /// fair baseline for it.
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
