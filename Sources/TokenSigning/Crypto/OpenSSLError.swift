internal import COpenSSL

/// OpenSSL's per-thread error queue, read for messages: the one place linkd turns it into text (TokenSigning and ACME).
public enum OpenSSLErrorQueue {
    /// Empties the queue, oldest first, as OpenSSL's reason strings (`error:0A000086:SSL routines::…`).
    public static func drain() -> [String] {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return reasons
    }

    /// `" (reason; reason)"`, or `""` when the queue is empty — for the end of an error message. Empties the queue.
    public static func drainedDetail() -> String {
        let reasons = drain()
        return reasons.isEmpty ? "" : " (\(reasons.joined(separator: "; ")))"
    }
}

enum OpenSSL {
    /// Drains OpenSSL's error queue into a `TokenError` with code `crypto`.
    static func error(_ operation: String) -> TokenError {
        TokenError(.crypto, "\(operation) failed\(OpenSSLErrorQueue.drainedDetail())")
    }

    static func clearErrors() { ERR_clear_error() }
}

/// Random bytes from OpenSSL's CSPRNG (RAND_bytes).
public enum SecureRandom {
    /// `count` random bytes. Traps only if the system CSPRNG is broken (never on input).
    public static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        if ok != 1 { fatalError("RAND_bytes failed: no secure randomness available") }
        return out
    }
}

/// Constant-time comparison (CRYPTO_memcmp).
public enum ConstantTime {
    /// True when both arrays have the same length and contents; time depends only on the length.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 } }
    }

    static func equals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        return CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
    }
}

/// SHA-256 digests (for hashing API keys).
public enum SecretDigest {
    /// SHA-256 of the bytes.
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let input = Array(bytes)
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = input.withUnsafeBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                EVP_Digest(inp.baseAddress, inp.count, o.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        if ok != 1 { fatalError("EVP_Digest(SHA-256) failed") }
        return out
    }
}
