public import Foundation

/// The life-cycle state of a signing key.
public enum KeyState: String, Codable, Sendable {
    /// Created, not yet signing; verifies (so other instances can learn it before it signs).
    case pending
    /// The one signing key for its app and suite.
    case active
    /// Rotated out: verifies until `verifyUntil`, never signs.
    case verifyOnly
    /// Neither signs nor verifies.
    case retired
}

/// A stored key: metadata plus the sealed private material. `description` never shows the secret.
public struct KeyRecord: Codable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The app the key belongs to.
    public var app: String
    /// The key id (unique per app).
    public var kid: UInt32
    /// The suite.
    public var suite: TokenSuite
    /// The state.
    public var state: KeyState
    /// Creation time.
    public var createdAt: Date
    /// When it became active.
    public var activatedAt: Date?
    /// For `verifyOnly`: the last instant tokens of this key verify.
    public var verifyUntil: Date?
    /// When it was retired.
    public var retiredAt: Date?
    /// The longest lifetime a token of this key may have, in seconds.
    public var maxTokenLifetime: UInt32
    /// The Ed25519 public key (empty for HMAC).
    public var publicKey: [UInt8]
    /// AES-256-GCM sealed secret (HMAC key or Ed25519 seed); AAD = "linkd-key-v1\0" app "\0" kid.
    public var sealedSecret: [UInt8]

    /// Creates a record.
    public init(
        app: String, kid: UInt32, suite: TokenSuite, state: KeyState, createdAt: Date, activatedAt: Date? = nil,
        verifyUntil: Date? = nil, retiredAt: Date? = nil, maxTokenLifetime: UInt32, publicKey: [UInt8],
        sealedSecret: [UInt8]
    ) {
        self.app = app
        self.kid = kid
        self.suite = suite
        self.state = state
        self.createdAt = createdAt
        self.activatedAt = activatedAt
        self.verifyUntil = verifyUntil
        self.retiredAt = retiredAt
        self.maxTokenLifetime = maxTokenLifetime
        self.publicKey = publicKey
        self.sealedSecret = sealedSecret
    }

    /// The public view.
    public var info: KeyInfo {
        KeyInfo(
            app: app, kid: kid, suite: suite, state: state, createdAt: createdAt, activatedAt: activatedAt,
            verifyUntil: verifyUntil, retiredAt: retiredAt, maxTokenLifetime: maxTokenLifetime)
    }

    /// Puts this record in `records`: in place of the record of its app and kid, else at the end.
    public func place(in records: inout [KeyRecord]) {
        if let index = records.firstIndex(where: { $0.app == app && $0.kid == kid }) {
            records[index] = self
        } else {
            records.append(self)
        }
    }

    public var description: String { "KeyRecord(\(app)/\(kid) \(suite.name) \(state.rawValue), secret redacted)" }
    public var debugDescription: String { description }

    /// The additional authenticated data binding sealed material to its app and kid.
    static func sealingAAD(app: String, kid: UInt32) -> [UInt8] {
        var aad = Array("linkd-key-v1".utf8) + [0] + Array(app.utf8) + [0]
        TokenLayout.appendBE(kid, to: &aad)
        return aad
    }
}

/// The public view of a key: no secret material.
public struct KeyInfo: Codable, Sendable, Equatable {
    /// The public views of the keys of `app` among `records` (all apps when nil), sorted by app and kid.
    public static func list(_ records: [KeyRecord], app: String?) -> [KeyInfo] {
        records.filter { app == nil || $0.app == app }.map(\.info).sorted { ($0.app, $0.kid) < ($1.app, $1.kid) }
    }

    /// The app.
    public var app: String
    /// The key id.
    public var kid: UInt32
    /// The suite.
    public var suite: TokenSuite
    /// The state.
    public var state: KeyState
    /// Creation time.
    public var createdAt: Date
    /// Activation time.
    public var activatedAt: Date?
    /// Verify-until for rotated-out keys.
    public var verifyUntil: Date?
    /// Retirement time.
    public var retiredAt: Date?
    /// Longest token lifetime, seconds.
    public var maxTokenLifetime: UInt32
}

/// A JSON file of key records — the offline keyring's `keys.json` — mode 0600, replaced whole and atomically
/// (`SecretFile.replace`), read only when private (`SecretFile.read`). Not a store a keyring holds: the caller
/// loads the records, makes a `Keyring` of them or a `KeyRotation` change, and saves the change's records.
public struct KeyRecordFile: Sendable {
    /// The file path.
    public let path: String

    /// The file at `path`; the directory is created with mode 0700 when missing, and refused when others may read it.
    public init(path: String) throws {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try SecretFile.prepareDirectory(directory) }
    }

    /// Every record in the file; none when there is no file.
    public func load() throws -> [KeyRecord] {
        var status = stat()
        guard lstat(path, &status) == 0 else { return [] }
        let data = Data(try SecretFile.read(path, maxBytes: 16 << 20))
        do {
            return try JSONDecoder.keyring.decode([KeyRecord].self, from: data)
        } catch {
            throw TokenError(.storage, "keyring file \(path) is not valid: \(error)")
        }
    }

    /// Replaces the file's records with `records`.
    public func save(_ records: [KeyRecord]) throws {
        let data = try JSONEncoder.keyring.encode(records)
        try SecretFile.replace(Array(data), at: path)
    }
}

extension JSONEncoder {
    static var keyring: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        encoder.dataEncodingStrategy = .base64
        return encoder
    }
}

extension JSONDecoder {
    static var keyring: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
