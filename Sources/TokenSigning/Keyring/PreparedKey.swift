import Foundation
import Synchronization

// The prepared keys a `Keyring` is made of: per key a verifier and a signer (the secret opened once), and the
// decoys that check the tags of tokens whose key is unknown.

/// One verifier per suite with a random key no token is signed with: a token of an unknown key id has its tag
/// checked against it (always failing), so its rejection does the work a known key's does.
final class DecoyVerifiers: Sendable {
    private let hmac: TokenVerifier
    private let ed25519: TokenVerifier
    /// How many tags were checked here.
    let uses = Atomic<Int>(0)
    #if DEBUG
    /// How many tags were checked by the keyrings sharing these decoys, with a key or a decoy (debug builds only).
    let tagChecks = Atomic<Int>(0)
    #endif

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

/// A verifying key's place in a keyring: its app and key id.
struct VerifierKey: Hashable {
    let app: String
    let kid: UInt32
}

/// A signing key's place in a keyring: its app and suite.
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
