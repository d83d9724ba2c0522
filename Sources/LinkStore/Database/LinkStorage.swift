import Foundation

/// What linkd needs from a store, whatever the database behind it.
///
/// Hot-path reads (`cachedLink`, `isRevoked`, `revocations`) answer from memory; everything else may touch the
/// database and is `async`. Two implementations: `SQLiteLinkStore` (embedded, one process) and
/// `PostgresLinkStore` (shared by many instances, which learn of each other's changes through `synchronize`).
public protocol LinkStorage: AnyObject, Sendable {
    /// Revoked (link id, generation) pairs, kept current by every revocation.
    var revocations: RevocationSet { get }

    /// Stores a new link. Throws `conflict` if the id exists.
    func createLink(_ record: LinkRecord) async throws
    /// The link record (from the cache when present), nil when there is none.
    func link(id: String) async throws -> LinkRecord?
    /// The link record from memory only; nil when not cached.
    func cachedLink(id: String) -> LinkRecord?
    /// Whether this generation of the link is revoked (memory only).
    func isRevoked(linkID: String, generation: UInt32) -> Bool
    /// Revokes a link; the updated record, or nil if there is no such link.
    @discardableResult
    func revokeLink(id: String, at date: Date) async throws -> LinkRecord?
    /// Revokes every active link of an owner in an app; how many were revoked.
    func revokeLinks(app: String, owner: String, at date: Date) async throws -> Int
    /// Marks an active link `deleted` for good (its origin says the item is gone) and keeps the cached record
    /// current; the updated record, or nil when nothing changed: no such link, or it is not active (already
    /// deleted, or revoked). Only one call per link ever returns a record, on any number of instances.
    func markLinkDeleted(id: String) async throws -> LinkRecord?
    /// How many links are stored.
    func linkCount() async throws -> Int
    /// Succeeds when the database answers (readiness).
    func ping() async throws

    /// Adds counted clicks (batched, off the request path).
    func addClicks(_ clicks: [String: LinkClicks]) async throws
    /// The stored click statistics of a link (zero if never opened).
    func clicks(linkID: String) async throws -> LinkClicks

    /// Stores a new API key (its hash only).
    func createAPIKey(_ key: APIKeyRecord) async throws
    /// The API key with this secret hash (revoked keys included; the caller checks).
    func apiKey(secretHash: Data) async throws -> APIKeyRecord?
    /// Revokes an API key; false when there is no such key.
    func revokeAPIKey(id: String, at date: Date) async throws -> Bool
    /// All API keys of a kind, oldest first.
    func apiKeys(kind: APIKeyKind) async throws -> [APIKeyRecord]

    /// Every stored signing-key record.
    func keyRecords() async throws -> [StoredKeyRecord]
    /// Inserts or replaces signing-key records, all or none; other instances learn of it through the change feed.
    func saveKeyRecords(_ records: [StoredKeyRecord]) async throws
    /// Runs `body` holding the store-wide key lock, so that two instances never change keys at once
    /// (PostgreSQL: an advisory lock; SQLite: one process, so only this process's own lock).
    func withKeyLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T

    /// Appends an audit entry.
    func appendAudit(_ entry: AuditEntry) async throws
    /// The newest audit entries, newest first.
    func auditLog(limit: Int) async throws -> [AuditEntry]

    /// The longest time a change made on another instance takes to be in force here while the database answers
    /// (zero for a store no other instance shares).
    var propagationBound: Duration { get }
    /// Keeps this instance current with changes made by other instances (revocations, signing keys) until the
    /// task is cancelled; calls `onKeysChanged` after another instance changed signing keys. Returns at once for
    /// a store no other instance shares.
    func synchronize(onKeysChanged: @escaping @Sendable () async -> Void) async throws
    /// The change-feed version applied here (nil for a store no other instance shares).
    var changeFeedVersion: Int64? { get }
    /// Releases connections; the store answers no more calls after it.
    func close() async
}

extension LinkStorage {
    /// Whether this generation of the link is revoked (memory only).
    public func isRevoked(linkID: String, generation: UInt32) -> Bool {
        guard let key = RevocationKey(hex: linkID, generation: generation) else { return false }
        return revocations.contains(key)
    }

    /// Revokes a link now.
    @discardableResult
    public func revokeLink(id: String) async throws -> LinkRecord? { try await revokeLink(id: id, at: Date()) }
    /// Revokes every active link of an owner in an app, now.
    public func revokeLinks(app: String, owner: String) async throws -> Int {
        try await revokeLinks(app: app, owner: owner, at: Date())
    }
    /// Revokes an API key now.
    public func revokeAPIKey(id: String) async throws -> Bool { try await revokeAPIKey(id: id, at: Date()) }
}
