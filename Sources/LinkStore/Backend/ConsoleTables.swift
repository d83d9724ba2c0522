public import Foundation

/// What the admin console needs of a database, beside the tables every backend has: its sessions (in the store, so
/// that every instance on a shared store knows a session whichever instance opened it), a filtered audit log, the
/// count of an owner's active links (shown before "disable user"), and instance heartbeats.
public protocol ConsoleTables: Sendable {
    /// Stores a new session and writes the `audit` entry (the sign-in), all or none.
    func insertSession(_ session: AdminSessionRecord, audit: AuditEntry?) async throws
    /// The session whose id has this digest, nil when there is none.
    func fetchSession(idHash: Data) async throws -> AdminSessionRecord?
    /// Sets a session's last use.
    func touchSession(idHash: Data, at date: Date) async throws
    /// Deletes a session and writes the `audit` entry (the sign-out), all or none; false (nothing written) when
    /// there was none.
    func deleteSession(idHash: Data, audit: AuditEntry?) async throws -> Bool
    /// Deletes every session last used before `idleBefore` or opened before `createdBefore`; how many.
    func deleteSessions(idleBefore: Date, createdBefore: Date) async throws -> Int
    /// The newest audit entries that match `filter`, newest first, at most `limit`.
    func fetchAuditLog(filter: AuditFilter, limit: Int) async throws -> [AuditEntry]
    /// How many active links `owner` has in `app` (what revoking all of them will revoke).
    func countActiveLinks(app: String, owner: String) async throws -> Int
    /// Writes this instance's heartbeat (inserted or updated).
    func writeHeartbeat(_ heartbeat: InstanceHeartbeat) async throws
    /// The instances whose last heartbeat is not older than `since`, most recent first.
    func fetchInstances(seenSince since: Date) async throws -> [InstanceHeartbeat]
}
