public import Foundation
import Synchronization

/// The signing keys as one immutable value, made from key records and the master key: it verifies tokens, issues
/// them, lists the keys and exports the JWK set. It holds no store and never changes: a rotation, a generation or
/// a retirement is a function over key records (`KeyRotation`) whose records the caller persists and makes the
/// next keyring from (`replacing(records:)`), which the caller then uses in place of this one.
///
/// Verification is synchronous, decodes the token on the stack, and fails closed: an unknown key id,
/// another app's key, a key of another suite, a key past its verify-until and an expired token are each a
/// rejection, never a fallback; the tag of a token whose key is unknown is checked against a decoy key anyway.
///
/// A `final class` of `let`s rather than a struct: the server keeps the keyring in force behind one handle and
/// every request reads it from there, which retains one reference, where a struct of these fields would retain
/// four; and nothing about it can change, so it is `Sendable` without a lock and has no identity worth asking
/// about. Only the keys' prepared OpenSSL contexts are shared, and they are made for concurrent use.
public final class Keyring: Sendable {
    /// Tokens whose expiry is up to this many seconds past still verify (clock skew).
    public static let expiryLeeway: UInt32 = 60
    /// The default and maximum token lifetime: 400 days.
    public static let maxTokenLifetimeCap: UInt32 = 400 * 86_400

    /// The records it was made from, in their order: what the next `KeyRotation` step starts from.
    public let records: [KeyRecord]
    /// What the records' secrets are sealed with: a keyring made by `replacing(records:)` opens them with it too.
    private let masterKey: MasterKey
    /// Every key that verifies (all but the retired), by app and key id.
    private let verifiers: [VerifierKey: PreparedKey]
    /// The signing key of each app and suite.
    private let active: [ActiveKey: PreparedKey]
    /// Checks the tag of a token whose key id is unknown (or of another suite), so that a rejection costs the same.
    private let decoys: DecoyVerifiers

    /// Opens every record's secret with `masterKey` and prepares it; `sealing` when one does not open.
    public convenience init(records: [KeyRecord], masterKey: MasterKey) throws {
        try self.init(records: records, masterKey: masterKey, decoys: DecoyVerifiers())
    }

    private init(records: [KeyRecord], masterKey: MasterKey, decoys: DecoyVerifiers) throws {
        var verifiers: [VerifierKey: PreparedKey] = [:]
        var active: [ActiveKey: PreparedKey] = [:]
        for record in records where record.state != .retired {
            let prepared = try PreparedKey(record: record, masterKey: masterKey)
            verifiers[VerifierKey(app: record.app, kid: record.kid)] = prepared
            if record.state == .active { active[ActiveKey(app: record.app, suite: record.suite)] = prepared }
        }
        self.records = records
        self.masterKey = masterKey
        self.verifiers = verifiers
        self.active = active
        self.decoys = decoys
    }

    /// A keyring of `records` under the same master key (and the same decoys): what a change's records make.
    public func replacing(records: [KeyRecord]) throws -> Keyring {
        try Keyring(records: records, masterKey: masterKey, decoys: decoys)
    }

    /// How many tags were checked with a decoy key (tokens of unknown key ids), across every keyring made from
    /// this one by `replacing(records:)`: for tests.
    var decoyVerifications: Int { decoys.uses.load(ordering: .relaxed) }

    #if DEBUG
    /// How many token tags were checked (with a key or a decoy), across every keyring made from this one by
    /// `replacing(records:)`: the tests hold a request to one check with it. Debug builds only, so the release
    /// build's hot path writes no counter that every event loop shares.
    package var tagChecks: Int { decoys.tagChecks.load(ordering: .relaxed) }
    #endif

    // MARK: keys

    /// Public views of the keys of `app` (all apps when nil), sorted by app and kid.
    public func keys(app: String?) -> [KeyInfo] {
        KeyInfo.list(records, app: app)
    }

    /// The JWK set of the app's Ed25519 keys that still verify.
    public func jwks(app: String) -> String {
        let keys = records.filter { $0.app == app && $0.suite == .ed25519 && $0.state != .retired }
            .sorted { $0.kid < $1.kid }
        let entries = keys.map {
            "{\"alg\":\"EdDSA\",\"crv\":\"Ed25519\",\"kid\":\"\($0.kid)\",\"kty\":\"OKP\",\"use\":\"sig\",\"x\":\"\(Base64URL.encode($0.publicKey))\"}"
        }
        return "{\"keys\":[" + entries.joined(separator: ",") + "]}"
    }

    // MARK: tokens

    /// Issues a token with the app's active key of `suite`.
    public func issue(app: String, suite: TokenSuite, linkID: LinkID, expiresAt: UInt32, generation: UInt32,
                      flags: UInt8, now: UInt32 = UInt32(clamping: Int(Date().timeIntervalSince1970))) throws -> String {
        guard let key = active[ActiveKey(app: app, suite: suite)] else {
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
        let key = verifiers[VerifierKey(app: app, kid: kid)]
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
        #if DEBUG
        decoys.tagChecks.add(1, ordering: .relaxed)
        #endif
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
