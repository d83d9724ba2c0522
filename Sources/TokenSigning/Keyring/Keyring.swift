public import Foundation
import Synchronization

/// Keys per app and suite, token issuing and verification.
///
/// Thread-safe: an immutable snapshot of the prepared keys is swapped under a `Mutex`; verification is
/// synchronous and fails closed (an unknown kid is a rejection, never a fallback).
public final class Keyring: Sendable {
    /// Tokens whose expiry is up to this many seconds past still verify (clock skew).
    public static let expiryLeeway: UInt32 = 60
    /// The default and maximum token lifetime: 400 days.
    public static let maxTokenLifetimeCap: UInt32 = 400 * 86_400

    private let store: any KeyringStore
    private let masterKey: MasterKey
    private let snapshot: Mutex<Snapshot>
    private let writeLock = Mutex(())
    /// Checks the tag of a token whose key id is unknown (or of another suite), so that a rejection costs the same.
    private let decoys: DecoyVerifiers

    /// Loads every record from `store` and unseals it with `masterKey`.
    public init(store: any KeyringStore, masterKey: MasterKey) throws {
        self.store = store
        self.masterKey = masterKey
        self.snapshot = Mutex(try Snapshot(records: store.loadKeyRecords(), masterKey: masterKey))
        self.decoys = try DecoyVerifiers()
    }

    /// How many tags were checked with a decoy key (tokens of unknown key ids): for tests.
    var decoyVerifications: Int { decoys.uses.load(ordering: .relaxed) }

    /// Re-reads the store (another instance may have rotated).
    public func reload() throws {
        let fresh = try Snapshot(records: store.loadKeyRecords(), masterKey: masterKey)
        snapshot.withLock { $0 = fresh }
    }

    private var current: Snapshot { snapshot.withLock { $0 } }

    // MARK: key management

    /// Creates a key for `app`/`suite`; the first one becomes active, later ones are pending.
    @discardableResult
    public func generate(app: String, suite: TokenSuite, maxTokenLifetime: UInt32 = Keyring.maxTokenLifetimeCap,
                         now: Date = Date()) throws -> KeyInfo {
        try Self.checkApp(app)
        return try writeLock.withLock { _ in
            let records = try store.loadKeyRecords()
            let hasActive = records.contains { $0.app == app && $0.suite == suite && $0.state == .active }
            let record = try makeRecord(
                app: app, suite: suite, state: hasActive ? .pending : .active, records: records,
                maxTokenLifetime: maxTokenLifetime, now: now)
            try store.saveKeyRecord(record)
            try reload()
            return record.info
        }
    }

    /// Makes a new key active; the previous active key becomes verify-only until now + its max token lifetime.
    @discardableResult
    public func rotate(app: String, suite: TokenSuite, maxTokenLifetime: UInt32 = Keyring.maxTokenLifetimeCap,
                       now: Date = Date()) throws -> KeyInfo {
        try Self.checkApp(app)
        return try writeLock.withLock { _ in
            let records = try store.loadKeyRecords()
            let newRecord: KeyRecord
            if var pending = records.first(where: { $0.app == app && $0.suite == suite && $0.state == .pending }) {
                pending.state = .active
                pending.activatedAt = now
                newRecord = pending
            } else {
                newRecord = try makeRecord(
                    app: app, suite: suite, state: .active, records: records, maxTokenLifetime: maxTokenLifetime, now: now)
            }
            for var old in records where old.app == app && old.suite == suite && old.state == .active {
                old.state = .verifyOnly
                old.verifyUntil = now.addingTimeInterval(TimeInterval(old.maxTokenLifetime) + TimeInterval(Self.expiryLeeway))
                try store.saveKeyRecord(old)
            }
            try store.saveKeyRecord(newRecord)
            try reload()
            return newRecord.info
        }
    }

    /// Retires a key: it no longer signs or verifies.
    public func retire(app: String, keyID: UInt32, now: Date = Date()) throws {
        try writeLock.withLock { _ in
            guard var record = try store.loadKeyRecords().first(where: { $0.app == app && $0.kid == keyID }) else {
                throw TokenError(.keyNotFound, "no key \(keyID) for app \(app)")
            }
            record.state = .retired
            record.retiredAt = now
            try store.saveKeyRecord(record)
            try reload()
        }
    }

    /// Public views of the keys of `app` (all apps when nil), sorted by app and kid.
    public func keys(app: String?) -> [KeyInfo] {
        current.records.filter { app == nil || $0.app == app }.map(\.info)
            .sorted { ($0.app, $0.kid) < ($1.app, $1.kid) }
    }

    /// The JWK set of the app's Ed25519 keys that still verify.
    public func jwks(app: String) -> String {
        let keys = current.records.filter { $0.app == app && $0.suite == .ed25519 && $0.state != .retired }
            .sorted { $0.kid < $1.kid }
        let entries = keys.map {
            "{\"alg\":\"EdDSA\",\"crv\":\"Ed25519\",\"kid\":\"\($0.kid)\",\"kty\":\"OKP\",\"use\":\"sig\",\"x\":\"\(Base64URL.encode($0.publicKey))\"}"
        }
        return "{\"keys\":[" + entries.joined(separator: ",") + "]}"
    }

    private func makeRecord(app: String, suite: TokenSuite, state: KeyState, records: [KeyRecord],
                            maxTokenLifetime: UInt32, now: Date) throws -> KeyRecord {
        guard maxTokenLifetime > 0, maxTokenLifetime <= Self.maxTokenLifetimeCap else {
            throw TokenError(.invalidArgument, "max token lifetime must be 1 s … 400 days")
        }
        let kid = (records.filter { $0.app == app }.map(\.kid).max() ?? 0) &+ 1
        let secret: [UInt8]
        let publicKey: [UInt8]
        switch suite {
        case .hmacSHA256:
            secret = SecureRandom.bytes(32)
            publicKey = []
        case .ed25519:
            let generated = try Ed25519Key.generate()
            secret = generated.seed
            publicKey = generated.key.publicKey
        }
        let sealed = try AESGCM.seal(secret, key: masterKey.bytes, aad: KeyRecord.sealingAAD(app: app, kid: kid))
        return KeyRecord(
            app: app, kid: kid, suite: suite, state: state, createdAt: now, activatedAt: state == .active ? now : nil,
            maxTokenLifetime: maxTokenLifetime, publicKey: publicKey, sealedSecret: sealed)
    }

    static func checkApp(_ app: String) throws {
        let bytes = app.utf8
        guard !bytes.isEmpty, bytes.count <= 64,
              bytes.allSatisfy({ $0 >= 0x21 && $0 < 0x7F }) else {
            throw TokenError(.invalidArgument, "app must be 1–64 printable ASCII characters without spaces")
        }
    }

    // MARK: tokens

    /// Issues a token with the app's active key of `suite`.
    public func issue(app: String, suite: TokenSuite, linkID: LinkID, expiresAt: UInt32, generation: UInt32,
                      flags: UInt8, now: UInt32 = UInt32(clamping: Int(Date().timeIntervalSince1970))) throws -> String {
        guard let key = current.active[ActiveKey(app: app, suite: suite)] else {
            throw TokenError(.noActiveKey, "no active \(suite.name) key for app \(app)")
        }
        guard expiresAt > now else { throw TokenError(.invalidArgument, "expiry must be in the future") }
        guard expiresAt - now <= key.maxTokenLifetime else {
            throw TokenError(.invalidArgument, "token lifetime exceeds the key's maximum of \(key.maxTokenLifetime) s")
        }
        let claims = TokenClaims(suite: suite, keyID: key.kid, linkID: linkID, expiresAt: expiresAt,
                                 generation: generation, flags: flags)
        return try key.signer.sign(claims)
    }

    /// Verifies a token for `app` at `now` (unix seconds). Fails closed.
    public func verify(_ token: String, app: String, now: UInt32) -> Result<TokenClaims, TokenError> {
        var token = token
        return token.withUTF8 { utf8 in
            guard utf8.count == 83 || utf8.count == 126 else { return .failure(TokenError(.malformed, "not a token")) }
            // Decoded on the stack: the longest token (Ed25519, 126 chars) is 94 bytes.
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 96) { buffer in
                guard let length = Base64URL.decode(utf8: utf8, into: buffer) else {
                    return .failure(TokenError(.malformed, "not a token"))
                }
                return verify(decoded: UnsafeBufferPointer(rebasing: buffer[..<length]), app: app, now: now)
            }
        }
    }

    private func verify(decoded b: UnsafeBufferPointer<UInt8>, app: String, now: UInt32) -> Result<TokenClaims, TokenError> {
        guard let suite = TokenSuite(rawValue: b[0]), b.count == suite.tokenLength else {
            return .failure(TokenError(.malformed, "unknown suite or wrong length"))
        }
        let kid = TokenLayout.readBE(b, 1)
        let key = current.verifiers[VerifierKey(app: app, kid: kid)]
        let raw = UnsafeRawBufferPointer(b)
        let header = UnsafeRawBufferPointer(rebasing: raw[0..<TokenLayout.headerLength])
        let tag = UnsafeRawBufferPointer(rebasing: raw[TokenLayout.headerLength...])
        // The tag is checked before anything is said about the key: with a decoy key of the token's suite when the
        // key id is unknown (or of another suite), so how long a rejection takes does not tell which key ids exist.
        let tagVerifies: Bool
        if let key, key.suite == suite {
            tagVerifies = key.verifier.verify(header: header, tag: tag)
        } else {
            tagVerifies = decoys.verify(suite: suite, header: header, tag: tag)
        }
        guard let key else { return .failure(TokenError(.unknownKey, "unknown key id")) }
        guard key.suite == suite else { return .failure(TokenError(.suiteMismatch, "suite does not match the key")) }
        if let until = key.verifyUntil, now > until {
            return .failure(TokenError(.retiredKey, "key no longer verifies"))
        }
        guard tagVerifies else { return .failure(TokenError(.badSignature, "bad signature")) }
        let expiresAt = TokenLayout.readBE(b, 21)
        if UInt64(now) > UInt64(expiresAt) + UInt64(Self.expiryLeeway) {
            return .failure(TokenError(.expired, "token expired"))
        }
        if UInt64(expiresAt) > UInt64(now) + UInt64(key.maxTokenLifetime) + UInt64(Self.expiryLeeway) {
            return .failure(TokenError(.notYetValid, "token lifetime exceeds its key's maximum"))
        }
        guard let claims = TokenLayout.parseHeader(b) else { return .failure(TokenError(.malformed, "bad header")) }
        return .success(claims)
    }
}

// MARK: - snapshot

/// One verifier per suite with a random key no token is signed with: a token of an unknown key id has its tag
/// checked against it (always failing), so its rejection does the work a known key's does.
final class DecoyVerifiers: Sendable {
    private let hmac: TokenVerifier
    private let ed25519: TokenVerifier
    /// How many tags were checked here.
    let uses = Atomic<Int>(0)

    init() throws {
        let prefix = TokenLayout.contextPrefix(app: "linkd-decoy")
        hmac = .hmac(try HMACSHA256(key: SecureRandom.bytes(32), prefix: prefix))
        ed25519 = .ed25519(try Ed25519Key.generate().key, prefix: prefix)
    }

    /// Checks `tag` as a key of `suite` would; the answer is false but for a 2^-256 chance, and the caller drops it.
    func verify(suite: TokenSuite, header: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer) -> Bool {
        uses.add(1, ordering: .relaxed)
        switch suite {
        case .hmacSHA256: return hmac.verify(header: header, tag: tag)
        case .ed25519: return ed25519.verify(header: header, tag: tag)
        }
    }
}

struct VerifierKey: Hashable {
    let app: String
    let kid: UInt32
}

struct ActiveKey: Hashable {
    let app: String
    let suite: TokenSuite
}

/// A prepared signer/verifier for one key of one app.
final class PreparedKey: Sendable {
    let kid: UInt32
    let suite: TokenSuite
    let maxTokenLifetime: UInt32
    /// Unix seconds after which it no longer verifies (nil: no limit).
    let verifyUntil: UInt32?
    let verifier: TokenVerifier
    let signer: TokenSigner

    init(record: KeyRecord, masterKey: MasterKey) throws {
        kid = record.kid
        suite = record.suite
        maxTokenLifetime = record.maxTokenLifetime
        verifyUntil = record.state == .verifyOnly
            ? UInt32(clamping: Int((record.verifyUntil ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970)) : nil
        let secret = try AESGCM.open(record.sealedSecret, key: masterKey.bytes,
                                     aad: KeyRecord.sealingAAD(app: record.app, kid: record.kid))
        let prefix = TokenLayout.contextPrefix(app: record.app)
        switch record.suite {
        case .hmacSHA256:
            let mac = try HMACSHA256(key: secret, prefix: prefix)
            verifier = .hmac(mac)
            signer = TokenSigner(prefix: prefix, algorithm: .hmac(mac))
        case .ed25519:
            let key = try Ed25519Key(seed: secret)
            guard key.publicKey == record.publicKey else {
                throw TokenError(.sealing, "key \(record.app)/\(record.kid): public key does not match the sealed seed")
            }
            verifier = .ed25519(key, prefix: prefix)
            signer = TokenSigner(prefix: prefix, algorithm: .ed25519(key))
        }
    }
}

enum TokenVerifier: Sendable {
    case hmac(HMACSHA256)
    case ed25519(Ed25519Key, prefix: [UInt8])

    func verify(header: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer) -> Bool {
        switch self {
        case .hmac(let mac):
            return mac.verify(header, tag: tag)
        case .ed25519(let key, let prefix):
            let total = prefix.count + header.count
            return withUnsafeTemporaryAllocation(byteCount: total, alignment: 1) { message in
                prefix.withUnsafeBytes { message.copyMemory(from: $0) }
                UnsafeMutableRawBufferPointer(rebasing: message[prefix.count...]).copyMemory(from: header)
                return key.verify(UnsafeRawBufferPointer(message), signature: tag)
            }
        }
    }
}

struct TokenSigner: Sendable {
    enum Algorithm: Sendable {
        case hmac(HMACSHA256)
        case ed25519(Ed25519Key)
    }
    let prefix: [UInt8]
    let algorithm: Algorithm

    func sign(_ claims: TokenClaims) throws -> String {
        let header = TokenLayout.header(claims)
        let tag: [UInt8]
        switch algorithm {
        case .hmac(let mac): tag = try mac.authenticate(header)
        case .ed25519(let key): tag = try key.sign(prefix + header)
        }
        return Base64URL.encode(header + tag)
    }
}

/// Immutable; a class so that taking the current snapshot retains one reference, not three.
final class Snapshot: Sendable {
    let records: [KeyRecord]
    let verifiers: [VerifierKey: PreparedKey]
    let active: [ActiveKey: PreparedKey]

    init(records: [KeyRecord], masterKey: MasterKey) throws {
        var verifiers: [VerifierKey: PreparedKey] = [:]
        var active: [ActiveKey: PreparedKey] = [:]
        for record in records where record.state != .retired {
            let prepared = try PreparedKey(record: record, masterKey: masterKey)
            verifiers[VerifierKey(app: record.app, kid: record.kid)] = prepared
            if record.state == .active { active[ActiveKey(app: record.app, suite: record.suite)] = prepared }
        }
        self.records = records
        self.verifiers = verifiers
        self.active = active
    }
}
