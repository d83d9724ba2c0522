public import Foundation

// What the admin console asks of the store, passed through to the backend (nothing of it is cached: sessions
// must end everywhere at once, and the other reads are rare).
extension StoreFront {
    /// Stores a new console session, with `audit` (the sign-in) in the same transaction.
    public func createSession(_ session: AdminSessionRecord, audit: AuditEntry? = nil) async throws {
        try await backend.insertSession(session, audit: audit)
    }

    /// The console session whose id has this digest.
    public func session(idHash: Data) async throws -> AdminSessionRecord? {
        try await backend.fetchSession(idHash: idHash)
    }

    /// Records a session's use.
    public func touchSession(idHash: Data, at date: Date) async throws {
        try await backend.touchSession(idHash: idHash, at: date)
    }

    /// Ends a session, with `audit` (the sign-out) in the same transaction; false when there was none.
    @discardableResult
    public func endSession(idHash: Data, audit: AuditEntry? = nil) async throws -> Bool {
        try await backend.deleteSession(idHash: idHash, audit: audit)
    }

    /// Deletes the sessions idle since before `idleBefore` or opened before `createdBefore`.
    @discardableResult
    public func pruneSessions(idleBefore: Date, createdBefore: Date) async throws -> Int {
        try await backend.deleteSessions(idleBefore: idleBefore, createdBefore: createdBefore)
    }

    /// The newest audit entries matching `filter`, newest first.
    public func auditLog(filter: AuditFilter, limit: Int) async throws -> [AuditEntry] {
        try await backend.fetchAuditLog(filter: filter, limit: limit)
    }

    /// How many active links `owner` has in `app`.
    public func activeLinkCount(app: String, owner: String) async throws -> Int {
        try await backend.countActiveLinks(app: app, owner: owner)
    }

    /// Writes this instance's heartbeat.
    public func heartbeat(_ heartbeat: InstanceHeartbeat) async throws {
        try await backend.writeHeartbeat(heartbeat)
    }

    /// The instances seen since `since`, most recent first.
    public func instances(seenSince since: Date) async throws -> [InstanceHeartbeat] {
        try await backend.fetchInstances(seenSince: since)
    }
}
