import Foundation
import LinkStore
import TokenSigning

/// The admin console's sessions, kept in the store so that every instance behind a load balancer knows them and a
/// sign-out ends a session everywhere at once.
///
/// A session id is 256 random bits, base64url, in the `linkd_admin` cookie only; the store keeps its SHA-256. A
/// session ends when unused for `idle`, `maximum` after sign-in, at sign-out, or when its admin key is revoked.
/// Its CSRF token is derived from the id (SHA-256 over a label and the id): known to whoever holds the cookie's
/// value, which script cannot read (`HttpOnly`) and other sites cannot send (`SameSite=Strict`), and never stored.
struct ConsoleSessions: Sendable {
    let store: StoreFront
    /// The API keys in memory: a session whose key is revoked is over.
    let directory: APIKeyDirectory
    /// How long an unused session lasts.
    let idle: TimeInterval
    /// How long any session lasts.
    let maximum: TimeInterval

    /// The session cookie's name.
    static let cookieName = "linkd_admin"
    /// The sign-in form's cookie (its CSRF token, double-submitted: there is no session yet to bind it to).
    static let signInCookieName = "linkd_admin_signin"
    /// A session's last use is written at most this often (a page view is not a write each time).
    static let touchInterval: TimeInterval = 30

    /// A signed-in session.
    struct Session: Sendable {
        /// SHA-256 of the id (the store's key).
        let idHash: Data
        /// The admin key acting: every action is audited as this key.
        let caller: Caller
        /// The token every form of this session carries.
        let csrfToken: String
    }

    /// Opens a session for `caller` (an admin key just checked); its id for the cookie. Sessions expired by now are
    /// deleted on the way.
    func open(for caller: Caller, now: Date = Date()) async throws -> (id: String, session: Session) {
        let id = Base64URL.encode(SecureRandom.bytes(32))
        let hash = Self.hash(id)
        _ = try? await store.pruneSessions(idleBefore: now.addingTimeInterval(-idle), createdBefore: now.addingTimeInterval(-maximum))
        try await store.createSession(
            AdminSessionRecord(idHash: hash, keyID: caller.keyID, created: now, lastSeen: now),
            audit: AuditEntry(at: now, actor: caller.keyID, action: AuditAction.consoleSignIn.rawValue, detail: "a console session opened"))
        return (id, Session(idHash: hash, caller: caller, csrfToken: Self.csrfToken(sessionID: id)))
    }

    /// The live session the cookie value `id` names; nil when there is none, it expired (then it is deleted), or
    /// its key is revoked or no longer an admin key.
    func current(id: String, now: Date = Date()) async throws -> Session? {
        guard id.utf8.count == 43, Base64URL.decode(id) != nil else { return nil }
        let hash = Self.hash(id)
        guard let record = try await store.session(idHash: hash) else { return nil }
        let expired = now.timeIntervalSince(record.lastSeen) > idle || now.timeIntervalSince(record.created) > maximum
        guard !expired, let key = try await key(id: record.keyID), key.revoked == nil, key.kind == .admin else {
            try await store.endSession(idHash: hash)
            return nil
        }
        if now.timeIntervalSince(record.lastSeen) >= Self.touchInterval {
            try await store.touchSession(idHash: hash, at: now)
        }
        return Session(idHash: hash, caller: Caller(keyID: key.id, kind: .admin, app: nil), csrfToken: Self.csrfToken(sessionID: id))
    }

    /// The API key `id`: from memory, else — a key made on another instance of a shared store within the
    /// directory's refresh interval — from the store.
    private func key(id: String) async throws -> APIKeyRecord? {
        if let known = directory.record(id: id) { return known }
        guard let stored = try await store.allAPIKeys().first(where: { $0.id == id }) else { return nil }
        directory.remember(stored)
        return stored
    }

        /// Ends a session (sign-out), audited as its key.
    func end(_ session: Session) async throws {
        try await store.endSession(idHash: session.idHash, audit: AuditEntry(
            at: Date(), actor: session.caller.keyID, action: AuditAction.consoleSignOut.rawValue, detail: "a console session ended"))
    }

    static func hash(_ id: String) -> Data {
        Data(SecretDigest.sha256(Array(id.utf8)))
    }

    /// The CSRF token of session `id`.
    static func csrfToken(sessionID id: String) -> String {
        Base64URL.encode(SecretDigest.sha256(Array("linkd console csrf\u{0}\(id)".utf8)))
    }

    /// Whether `given` is `expected`, in constant time.
    static func tokensMatch(_ given: String?, _ expected: String) -> Bool {
        guard let given, given.utf8.count == expected.utf8.count else { return false }
        return ConstantTime.equals(Array(given.utf8), Array(expected.utf8))
    }
}
