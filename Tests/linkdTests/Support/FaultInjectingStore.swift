import Foundation
import LinkStore
import Synchronization

/// A store that forwards every call to a real one until told to fail: then every call that may touch the database
/// throws, as a store whose database went away does (memory-only reads go on). Lets the API tests provoke the
/// answers of a failing store — 503 `store_unavailable`, `/readyz` 503 — and a link-id collision (409).
final class FaultInjectingStore: LinkStorage {
    /// What the store does on calls that touch the database.
    enum Fault: Sendable {
        /// Forward (the real store answers).
        case none
        /// Throw a storage error, as when the database does not answer.
        case unavailable
        /// `createLink` throws `conflict` (the link id exists), everything else forwards.
        case linkIDCollision
    }

    /// The real store.
    let base: any LinkStorage
    private let current = Mutex<Fault>(.none)

    /// Wraps `base`; no fault at first.
    init(_ base: any LinkStorage) { self.base = base }

    /// The fault in force from now on.
    var fault: Fault {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    private func check() throws {
        if case .unavailable = fault { throw LinkStoreError(.storage, "injected: the database does not answer") }
    }

    var revocations: RevocationSet { base.revocations }
    func createLink(_ record: LinkRecord) async throws {
        if case .linkIDCollision = fault { throw LinkStoreError(.conflict, "injected: link \(record.id) exists") }
        try check()
        try await base.createLink(record)
    }
    func link(id: String) async throws -> LinkRecord? { try check(); return try await base.link(id: id) }
    func cachedLink(id: String) -> LinkRecord? { base.cachedLink(id: id) }
    func isRevoked(linkID: String, generation: UInt32) -> Bool { base.isRevoked(linkID: linkID, generation: generation) }
    func revokeLink(id: String, at date: Date) async throws -> LinkRecord? { try check(); return try await base.revokeLink(id: id, at: date) }
    func revokeLinks(app: String, owner: String, at date: Date) async throws -> Int {
        try check()
        return try await base.revokeLinks(app: app, owner: owner, at: date)
    }
    func markLinkDeleted(id: String) async throws -> LinkRecord? { try check(); return try await base.markLinkDeleted(id: id) }
    func linkCount() async throws -> Int { try check(); return try await base.linkCount() }
    func ping() async throws { try check(); try await base.ping() }
    func addClicks(_ clicks: [String: LinkClicks]) async throws { try check(); try await base.addClicks(clicks) }
    func clicks(linkID: String) async throws -> LinkClicks { try check(); return try await base.clicks(linkID: linkID) }
    func createAPIKey(_ key: APIKeyRecord) async throws { try check(); try await base.createAPIKey(key) }
    func apiKey(secretHash: Data) async throws -> APIKeyRecord? { try check(); return try await base.apiKey(secretHash: secretHash) }
    func revokeAPIKey(id: String, at date: Date) async throws -> Bool { try check(); return try await base.revokeAPIKey(id: id, at: date) }
    func apiKeys(kind: APIKeyKind) async throws -> [APIKeyRecord] { try check(); return try await base.apiKeys(kind: kind) }
    func keyRecords() async throws -> [StoredKeyRecord] { try check(); return try await base.keyRecords() }
    func saveKeyRecords(_ records: [StoredKeyRecord]) async throws { try check(); try await base.saveKeyRecords(records) }
    func withKeyLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try check()
        return try await base.withKeyLock(body)
    }
    func appendAudit(_ entry: AuditEntry) async throws { try check(); try await base.appendAudit(entry) }
    func auditLog(limit: Int) async throws -> [AuditEntry] { try check(); return try await base.auditLog(limit: limit) }
    var propagationBound: Duration { base.propagationBound }
    func synchronize(onKeysChanged: @escaping @Sendable () async -> Void) async throws {
        try await base.synchronize(onKeysChanged: onKeysChanged)
    }
    var changeFeedVersion: Int64? { base.changeFeedVersion }
    func close() async { await base.close() }
}
