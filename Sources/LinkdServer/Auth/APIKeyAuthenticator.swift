import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
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
/// A key is `lkd_` + 43 base64url characters (256 random bits); only its digest is stored, and the digest found is
/// compared again in constant time. Keys are recognised from memory (`APIKeyDirectory`); a digest memory does not
/// know is looked up in the store.
///
/// Failed attempts are limited per client address (`failures`, a token bucket: burst 10, refilled at
/// `authFailuresPerMinute`). While an address's bucket is empty, a request from it with a key this instance knows
/// is still served — one prankster behind a shared address locks nobody else out — and every other attempt is
/// answered 429 (`Retry-After`) at once, without a store lookup.
struct APIKeyAuthenticator: Sendable {
    let store: StoreFront
    let failures: RateLimiter
    let directory: APIKeyDirectory

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

    /// The caller of `request`; 401 for a missing, unknown or revoked key, 429 (`Retry-After`: when the failure
    /// bucket has a token again) for any but a valid key while the address is locked out, 503 when the store
    /// cannot be asked.
    func authenticate(_ request: Request, client: String) async throws -> Caller {
        guard let header = request.headers[.authorization], header.utf8.count <= Self.maxHeaderBytes,
              header.hasPrefix("Bearer ")
        else {
            throw failed(client, lockedOut: !failures.peek(client), APIError(.unauthorized, .unauthorized, "send an API key as 'Authorization: Bearer <key>'"))
        }
        // HTTP's optional whitespace around the key, trimmed as bytes (through Foundation's `NSString` it was 4 % of
        // a link creation's handling).
        return try await authenticate(secret: String(HTTPWhitespace.trimmed(header.dropFirst("Bearer ".count))), client: client)
    }

    /// The caller whose key is `secret` (the header's, or the one typed into the console's sign-in form), with the
    /// same lockout, the same failure charge and the same errors.
    func authenticate(secret: String, client: String) async throws -> Caller {
        let lockedOut = !failures.peek(client)
        guard !secret.isEmpty, secret.utf8.count <= Self.maxHeaderBytes else {
            throw failed(client, lockedOut: lockedOut, APIError(.unauthorized, .unauthorized, "the API key is unknown or revoked"))
        }
        let digest = SecretDigest.sha256(Array(secret.utf8))
        var record = directory.record(digest: Data(digest))
        if record == nil, !lockedOut {
            // A store failure answers 503 `store_unavailable` (`APIError.answering`).
            record = try await store.apiKey(secretHash: Data(digest))
            if let record { directory.remember(record) }
        }
        guard let record, ConstantTime.equals([UInt8](record.secretHash), digest), record.revoked == nil else {
            throw failed(client, lockedOut: lockedOut, APIError(.unauthorized, .unauthorized, "the API key is unknown or revoked"))
        }
        return Caller(keyID: record.id, kind: record.kind, app: record.app)
    }

    /// The error of a failed attempt: `error` (charging the address's failure bucket), or 429 while it is locked out.
    private func failed(_ client: String, lockedOut: Bool, _ error: APIError) -> APIError {
        guard lockedOut else {
            failures.charge(client, cost: 1)
            return error
        }
        let seconds = failures.secondsUntilAvailable(client)
        return APIError.rateLimited(
            "too many failed authentications from this address; retry in \(seconds) s", retryAfterSeconds: seconds)
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
