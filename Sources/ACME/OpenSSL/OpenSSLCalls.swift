internal import COpenSSL
internal import TokenSigning

/// OpenSSL's error queue and memory BIOs, for the key, CSR and certificate code.
enum OpenSSLCalls {
    /// Drains OpenSSL's error queue into an `ACMEError` (code `crypto` unless given).
    static func error(_ operation: String, code: ACMEError.Code = .crypto) -> ACMEError {
        ACMEError(code, "\(operation) failed\(OpenSSLErrorQueue.drainedDetail())")
    }

    /// Everything written to a fresh memory BIO by `write` (which returns OpenSSL's success value, 1).
    static func writeToMemory(_ operation: String, _ write: (OpaquePointer) -> Int32) throws -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw error("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw error(operation) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
            if count <= 0 { break }
            out.append(contentsOf: chunk[0..<Int(count)])
        }
        return out
    }

    /// Calls `body` with a read-only memory BIO over `bytes`.
    static func withMemoryBIO<T>(_ bytes: [UInt8], _ body: (OpaquePointer) throws -> T) throws -> T {
        try bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { throw error("BIO_new_mem_buf") }
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }

    /// A big number as exactly `width` big-endian bytes.
    static func bytes(of number: OpaquePointer, width: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width)
        let written = out.withUnsafeMutableBufferPointer { BN_bn2binpad(number, $0.baseAddress, Int32(width)) }
        guard written == Int32(width) else { throw error("BN_bn2binpad") }
        return out
    }
}
