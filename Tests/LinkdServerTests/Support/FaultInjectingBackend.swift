import Foundation
import LinkStore
import Synchronization

/// A backend that forwards every call to a real one until told to fail: then every database call throws, as a
/// backend whose database went away does (the memory of the `StoreFront` over it goes on: cached records, the
/// revocation set). Lets the API tests provoke the answers of a failing store — 503 `store_unavailable`, `/readyz`
/// 503 — and a link-id collision (409). Wrap it in a front: `StoreFront(backend: FaultInjectingBackend(real))`.
final class FaultInjectingBackend: StoreBackend {
    /// What the backend does on calls that touch the database.
    enum Fault: Sendable {
        /// Forward (the real backend answers).
        case none
        /// Throw a storage error, as when the database does not answer.
        case unavailable
        /// `insertLink` throws `conflict` (the link id exists), everything else forwards.
        case linkIDCollision
        /// `importLinks` writes this many batches, then throws a storage error on every later one.
        case failImportAfter(batches: Int)
    }

    /// The real backend.
    let base: any StoreBackend
    private let current = Mutex<Fault>(.none)
    private let pingCount = Mutex(0)
    private let challengeReadCount = Mutex(0)
    private let linkReadCount = Mutex(0)
    private let shortIDReadCount = Mutex(0)
    private let pathReadCount = Mutex(0)
    private let revocationsHeld = Mutex(false)
    let importBatchCount = Mutex(0)

    /// Wraps `base`; no fault at first.
    init(_ base: any StoreBackend) { self.base = base }

    /// The fault in force from now on.
    var fault: Fault {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// While true, `streamRevocations` waits: the front's load of the revocation set has not finished.
    var holdsRevocations: Bool {
        get { revocationsHeld.withLock { $0 } }
        set { revocationsHeld.withLock { $0 = newValue } }
    }

    func check() throws {
        if case .unavailable = fault { throw LinkStoreError(.storage, "injected: the database does not answer") }
    }

    var description: String { base.description }
    /// How many times an ACME challenge's answer was looked for in the store.
    var challengeReads: Int { challengeReadCount.withLock { $0 } }
    /// How many times a link record was read from the store.
    var linkReads: Int { linkReadCount.withLock { $0 } }
    /// How many times a link record was looked for by its short id.
    var shortIDReads: Int { shortIDReadCount.withLock { $0 } }
    /// How many times a link was read by its custom path.
    var pathReads: Int { pathReadCount.withLock { $0 } }
    /// How many times the store was pinged (readiness checks).
    var pings: Int { pingCount.withLock { $0 } }

    func backup(to path: String) async throws -> Int {
        try check(); return try await base.backup(to: path)
    }
    func ping() async throws {
        pingCount.withLock { $0 += 1 }
        try check()
        try await base.ping()
    }
    func close() async { await base.close() }

    // LinkTable
    func insertLink(_ record: LinkRecord) async throws {
        if case .linkIDCollision = fault { throw LinkStoreError(.conflict, "injected: link \(record.id) exists") }
        try check()
        try await base.insertLink(record)
    }
    func fetchLink(id: String) async throws -> LinkRecord? {
        linkReadCount.withLock { $0 += 1 }
        try check()
        return try await base.fetchLink(id: id)
    }
    func fetchLink(shortID: String) async throws -> LinkRecord? {
        shortIDReadCount.withLock { $0 += 1 }
        try check()
        return try await base.fetchLink(shortID: shortID)
    }
    func fetchLink(app: String, path: String) async throws -> LinkRecord? {
        pathReadCount.withLock { $0 += 1 }
        try check()
        return try await base.fetchLink(app: app, path: path)
    }
    func liveCustomPaths(app: String, now: Date, limit: Int, outside: CustomPathShapes) async throws -> [String] {
        try check()
        return try await base.liveCustomPaths(app: app, now: now, limit: limit, outside: outside)
    }
    func revokeLink(id: String, at date: Date, audit: AuditEntry?) async throws -> LinkRecord? {
        try check()
        return try await base.revokeLink(id: id, at: date, audit: audit)
    }
    func revokeLinks(
        app: String, owner: String, at date: Date, audit: (@Sendable (_ revoked: Int) -> AuditEntry)?
    ) async throws -> [(String, Int)] {
        try check()
        return try await base.revokeLinks(app: app, owner: owner, at: date, audit: audit)
    }
    func markLinkDeleted(id: String, audit: (@Sendable (LinkRecord) -> AuditEntry)?) async throws -> LinkRecord? {
        try check()
        return try await base.markLinkDeleted(id: id, audit: audit)
    }
    func countLinks() async throws -> Int { try check(); return try await base.countLinks() }
    func fetchClicks(linkID: String) async throws -> LinkClicks { try check(); return try await base.fetchClicks(linkID: linkID) }
    func streamRevocations(into loader: RevocationLoader) async throws {
        while holdsRevocations { try await Task.sleep(for: .milliseconds(10)) }
        try check()
        try await base.streamRevocations(into: loader)
    }

    // LinkListing
    func listLinks(_ query: LinkListQuery) async throws -> [ListedLink] { try check(); return try await base.listLinks(query) }

    // SigningKeyTable
    func fetchKeyRecords() async throws -> [StoredKeyRecord] { try check(); return try await base.fetchKeyRecords() }
    func saveKeyRecords(_ records: [StoredKeyRecord], audit: AuditEntry?) async throws {
        try check()
        try await base.saveKeyRecords(records, audit: audit)
    }
    func withKeyLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try check()
        return try await base.withKeyLock(body)
    }

    // APIKeyTable
    func insertAPIKey(_ key: APIKeyRecord, audit: AuditEntry?) async throws { try check(); try await base.insertAPIKey(key, audit: audit) }
    func fetchAPIKey(secretHash: Data) async throws -> APIKeyRecord? { try check(); return try await base.fetchAPIKey(secretHash: secretHash) }
    func revokeAPIKey(id: String, at date: Date, audit: AuditEntry?) async throws -> Bool {
        try check()
        return try await base.revokeAPIKey(id: id, at: date, audit: audit)
    }
    func fetchAPIKeys(kind: APIKeyKind) async throws -> [APIKeyRecord] { try check(); return try await base.fetchAPIKeys(kind: kind) }

    // AuditTable
    func appendAudit(_ entry: AuditEntry) async throws { try check(); try await base.appendAudit(entry) }
    func fetchAuditLog(limit: Int) async throws -> [AuditEntry] { try check(); return try await base.fetchAuditLog(limit: limit) }

    // ChangeFeed
    var schedule: FeedSchedule? { base.schedule }
    var propagationBound: Duration { base.propagationBound }
    func currentVersion() async throws -> Int64 { try check(); return try await base.currentVersion() }
    func changes(after version: Int64) async throws -> [StoreChange] { try check(); return try await base.changes(after: version) }
    func listen(onListening: () async throws -> Void, onAnnouncement: () async throws -> Void) async throws {
        try check()
        try await base.listen(onListening: onListening, onAnnouncement: onAnnouncement)
    }
    func pruneChanges() async throws { try check(); try await base.pruneChanges() }
}

// The admin console's tables, forwarded the same way.
extension FaultInjectingBackend {
    func insertSession(_ session: AdminSessionRecord, audit: AuditEntry?) async throws {
        try check()
        try await base.insertSession(session, audit: audit)
    }
    func fetchSession(idHash: Data) async throws -> AdminSessionRecord? { try check(); return try await base.fetchSession(idHash: idHash) }
    func touchSession(idHash: Data, at date: Date) async throws { try check(); try await base.touchSession(idHash: idHash, at: date) }
    func deleteSession(idHash: Data, audit: AuditEntry?) async throws -> Bool {
        try check()
        return try await base.deleteSession(idHash: idHash, audit: audit)
    }
    func deleteSessions(idleBefore: Date, createdBefore: Date) async throws -> Int {
        try check()
        return try await base.deleteSessions(idleBefore: idleBefore, createdBefore: createdBefore)
    }
    func fetchAuditLog(filter: AuditFilter, limit: Int) async throws -> [AuditEntry] {
        try check()
        return try await base.fetchAuditLog(filter: filter, limit: limit)
    }
    func countActiveLinks(app: String, owner: String) async throws -> Int {
        try check()
        return try await base.countActiveLinks(app: app, owner: owner)
    }
    func writeHeartbeat(_ heartbeat: InstanceHeartbeat) async throws { try check(); try await base.writeHeartbeat(heartbeat) }
    func fetchInstances(seenSince since: Date) async throws -> [InstanceHeartbeat] {
        try check()
        return try await base.fetchInstances(seenSince: since)
    }
}

// The published manifests, forwarded the same way.
extension FaultInjectingBackend {
    func fetchCurrentManifests() async throws -> [ManifestVersion] { try check(); return try await base.fetchCurrentManifests() }
    func fetchManifestVersions(app: String) async throws -> [ManifestVersion] {
        try check()
        return try await base.fetchManifestVersions(app: app)
    }
    func publishManifest(_ record: ManifestVersion, moves: [LinkMove], audit: AuditEntry?) async throws -> [String] {
        try check()
        return try await base.publishManifest(record, moves: moves, audit: audit)
    }
    func liveLinksByRoute(app: String, now: Date) async throws -> [RouteLiveLinks] {
        try check()
        return try await base.liveLinksByRoute(app: app, now: now)
    }

    func tlsSecrets(prefix: String) async throws -> [StoredTLSSecret] {
        if prefix.hasPrefix("challenge/") { challengeReadCount.withLock { $0 += 1 } }
        try check(); return try await base.tlsSecrets(prefix: prefix)
    }
    func saveTLSSecret(_ secret: StoredTLSSecret) async throws {
        try check(); try await base.saveTLSSecret(secret)
    }
    func deleteTLSSecret(name: String) async throws {
        try check(); try await base.deleteTLSSecret(name: name)
    }
    func acquireLease(name: String, holder: String, until: Date, now: Date) async throws -> Bool {
        try check(); return try await base.acquireLease(name: name, holder: holder, until: until, now: now)
    }
    func releaseLease(name: String, holder: String) async throws {
        try check(); try await base.releaseLease(name: name, holder: holder)
    }
}

// LinkImportTable
extension FaultInjectingBackend {
    func importLinks(_ records: [LinkRecord], dryRun: Bool, at now: Date) async throws -> [ImportedLink] {
        try check()
        if case .failImportAfter(let batches) = fault {
            let count = importBatchCount.withLock { count -> Int in
                count += 1
                return count
            }
            if count > batches { throw LinkStoreError(.storage, "injected: the database went away during the import") }
        }
        return try await base.importLinks(records, dryRun: dryRun, at: now)
    }
}
