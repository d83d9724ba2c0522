public import Foundation

/// The 32-byte key that seals private key material at rest. Never printed.
public struct MasterKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let bytes: [UInt8]

    /// Wraps 32 bytes.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == 32 else { throw TokenError(.sealing, "master key must be 32 bytes, got \(bytes.count)") }
        self.bytes = bytes
    }

    /// Parses base64url (43 characters, no padding).
    public init(base64URL text: String) throws {
        guard let bytes = Base64URL.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32 else {
            throw TokenError(.sealing, "master key must be 32 bytes as base64url without padding (43 characters)")
        }
        self.bytes = bytes
    }

    /// `LINKD_MASTER_KEY` (base64url) when set; otherwise the file at `path`, created (mode 0600) when missing.
    public static func loadOrCreate(at path: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> MasterKey
    {
        if let text = environment["LINKD_MASTER_KEY"], !text.isEmpty {
            do { return try MasterKey(base64URL: text) } catch let error as TokenError {
                throw TokenError(.sealing, "LINKD_MASTER_KEY: \(error.message)")
            }
        }
        if FileManager.default.fileExists(atPath: path) {
            guard let data = FileManager.default.contents(atPath: path), data.count < 1024 else {
                throw TokenError(.sealing, "cannot read master key file \(path)")
            }
            do { return try MasterKey(base64URL: String(decoding: data, as: UTF8.self)) } catch let error as TokenError {
                throw TokenError(.sealing, "\(path): \(error.message)")
            }
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try FileSystem.makeDirectory(directory) }
        let key = try MasterKey(bytes: SecureRandom.bytes(32))
        try FileSystem.writeAtomically(Data((Base64URL.encode(key.bytes) + "\n").utf8), to: path)
        return key
    }

    public var description: String { "MasterKey(redacted)" }
    public var debugDescription: String { description }
}
