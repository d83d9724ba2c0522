import Foundation
import HTTPTypes
import Hummingbird
import LinkStore
import TokenSigning

/// Who made an authenticated request.
struct Caller: Sendable {
    /// The API key id (appears in the audit log).
    let keyID: String
    /// Client or admin.
    let kind: APIKeyKind
    /// The app a client key is scoped to.
    let app: String?
}

/// API keys: made here, stored as SHA-256 digests only, checked on every authenticated request.
///
/// A key is `lkd_` + 43 base64url characters (256 random bits); only its digest is stored, and the digest found by
/// lookup is compared again in constant time. Failed attempts are limited per client address (`failures`, a token
/// bucket: `authFailuresPerMinute`, burst 10): while it is empty the caller gets 429 before any lookup, even with a
/// valid key, until it refills.
struct APIKeyAuthenticator: Sendable {
    let store: StoreFront
    let failures: RateLimiter

    /// Failed authentications an address may make at once before `authFailuresPerMinute` applies.
    static let failureBurst: Double = 10

    /// The longest `Authorization` value considered.
    static let maxHeaderBytes = 256

    /// Makes a new key; returns the record to store and the secret to show once.
    static func makeKey(kind: APIKeyKind, app: String?, label: String, now: Date = Date()) -> (APIKeyRecord, String) {
        let secret = "lkd_" + Base64URL.encode(SecureRandom.bytes(32))
        let id = "key_" + LinkID.random().hex.prefix(12)
        let record = APIKeyRecord(
            id: id, kind: kind, app: app, label: label, secretHash: Data(SecretDigest.sha256(Array(secret.utf8))), created: now
        )
        return (record, secret)
    }

    /// The caller of `request`, or 401 / 429 (`Retry-After`: when the failure bucket has a token again), or 503
    /// when the store cannot be asked.
    func authenticate(_ request: Request, client: String) async throws -> Caller {
        guard failures.peek(client) else {
            let seconds = failures.secondsUntilAvailable(client)
            throw APIError.rateLimited(
                "too many failed authentications from this address; retry in \(seconds) s", retryAfterSeconds: seconds)
        }
        guard let header = request.headers[.authorization], header.utf8.count <= Self.maxHeaderBytes,
              header.hasPrefix("Bearer ")
        else {
            _ = failures.allow(client)
            throw APIError(.unauthorized, .unauthorized, "send an API key as 'Authorization: Bearer <key>'")
        }
        let secret = header.dropFirst("Bearer ".count).trimmingCharacters(in: .whitespaces)
        let digest = SecretDigest.sha256(Array(secret.utf8))
        let record: APIKeyRecord?
        do {
            record = try await store.apiKey(secretHash: Data(digest))
        } catch {
            throw APIError(.serviceUnavailable, .storeUnavailable, "the store does not answer; retry later")
        }
        guard let record, ConstantTime.equals([UInt8](record.secretHash), digest), record.revoked == nil else {
            _ = failures.allow(client)
            throw APIError(.unauthorized, .unauthorized, "the API key is unknown or revoked")
        }
        return Caller(keyID: record.id, kind: record.kind, app: record.app)
    }

    /// An admin caller, or 401 / 403.
    func admin(_ request: Request, client: String) async throws -> Caller {
        let caller = try await authenticate(request, client: client)
        guard caller.kind == .admin else {
            throw APIError(.forbidden, .forbidden, "this endpoint needs an admin key")
        }
        return caller
    }

    /// A caller allowed to manage links of `app`: that app's client key, or an admin key.
    static func check(_ caller: Caller, mayManage app: String) throws {
        guard caller.kind == .admin || caller.app == app else {
            throw APIError(.forbidden, .forbidden, "this key is scoped to another app")
        }
    }
}
