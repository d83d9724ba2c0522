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

    /// `LINKD_MASTER_KEY` (base64url) when set; otherwise the file at `path`, created (mode 0600, with its directory
    /// 0700) when missing. An existing file must be a regular file (not a symbolic link) of mode 0600 or stricter,
    /// and its directory must give group and others no access: otherwise `insecureFile`, naming the path and mode.
    public static func loadOrCreate(at path: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> MasterKey
    {
        if let text = environment["LINKD_MASTER_KEY"], !text.isEmpty {
            do { return try MasterKey(base64URL: text) } catch let error as TokenError {
                throw TokenError(.sealing, "LINKD_MASTER_KEY: \(error.message)")
            }
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try SecretFile.prepareDirectory(directory) }
        var status = stat()
        if lstat(path, &status) == 0 {
            let bytes = try SecretFile.read(path, maxBytes: 1024)
            do { return try MasterKey(base64URL: String(decoding: bytes, as: UTF8.self)) } catch let error as TokenError {
                throw TokenError(.sealing, "\(path): \(error.message)")
            }
        }
        let key = try MasterKey(bytes: SecureRandom.bytes(32))
        try SecretFile.create(Array((Base64URL.encode(key.bytes) + "\n").utf8), at: path)
        return key
    }

    /// `plaintext` sealed for storage (AES-256-GCM), bound to `name` (a sealed value copied under another name does
    /// not open): the ACME account key and certificate keys in the store.
    public func seal(_ plaintext: [UInt8], name: String) throws(TokenError) -> [UInt8] {
        do { return try AESGCM.seal(plaintext, key: bytes, aad: Self.sealingAAD(name: name)) } catch let error as TokenError {
            throw error
        } catch {
            throw TokenError(.sealing, "\(error)")
        }
    }

    /// Opens a value sealed by `seal(_:name:)`; `sealing` when the master key or the name differs.
    public func open(_ sealed: [UInt8], name: String) throws(TokenError) -> [UInt8] {
        do { return try AESGCM.open(sealed, key: bytes, aad: Self.sealingAAD(name: name)) } catch let error as TokenError {
            throw error
        } catch {
            throw TokenError(.sealing, "\(error)")
        }
    }

    private static func sealingAAD(name: String) -> [UInt8] {
        Array("linkd-sealed-value-v1\u{0}".utf8) + Array(name.utf8)
    }

    public var description: String { "MasterKey(redacted)" }
    public var debugDescription: String { description }
}
