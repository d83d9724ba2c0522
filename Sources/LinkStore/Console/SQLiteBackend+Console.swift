public import Foundation
import GRDB

/// The console's tables in SQLite (`console-v1`): sessions, instance heartbeats, and the audit log's `app` column.
enum ConsoleMigration {
    static func apply(_ db: Database) throws {
        try db.create(table: "admin_sessions") { t in
            t.primaryKey("idHash", .blob)
            t.column("keyId", .text).notNull()
            t.column("created", .datetime).notNull()
            t.column("lastSeen", .datetime).notNull()
        }
        try db.create(table: "instances") { t in
            t.primaryKey("id", .text)
            t.column("host", .text).notNull()
            t.column("started", .datetime).notNull()
            t.column("lastSeen", .datetime).notNull()
        }
        try db.alter(table: "audit_log") { t in t.add(column: "app", .text) }
        try db.create(index: "audit_log_actor", on: "audit_log", columns: ["actor", "seq"])
        try db.create(index: "audit_log_app", on: "audit_log", columns: ["app", "seq"])
        try db.create(index: "links_owner_status", on: "links", columns: ["app", "owner", "status"])
    }
}

// The console's queries on SQLite.
extension SQLiteBackend {
    /// Stores a new session, with `audit` in the same transaction.
    public func insertSession(_ session: AdminSessionRecord, audit: AuditEntry?) async throws {
        try await write { db in
            try audit?.insert(db)
            try db.execute(
                sql: "INSERT INTO admin_sessions (idHash, keyId, created, lastSeen) VALUES (?, ?, ?, ?)",
                arguments: [session.idHash, session.keyID, StoredDate.text(session.created), StoredDate.text(session.lastSeen)])
        }
    }

    /// The session whose id has this digest.
    public func fetchSession(idHash: Data) async throws -> AdminSessionRecord? {
        try await read { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT keyId, created, lastSeen FROM admin_sessions WHERE idHash = ?", arguments: [idHash])
            else { return nil }
            guard let created = StoredDate.date(row["created"]), let lastSeen = StoredDate.date(row["lastSeen"]) else {
                return nil
            }
            return AdminSessionRecord(idHash: idHash, keyID: row["keyId"], created: created, lastSeen: lastSeen)
        }
    }

    /// Sets a session's last use.
    public func touchSession(idHash: Data, at date: Date) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE admin_sessions SET lastSeen = ? WHERE idHash = ?", arguments: [StoredDate.text(date), idHash])
        }
    }

    /// Deletes a session, with `audit` in the same transaction when there was one.
    public func deleteSession(idHash: Data, audit: AuditEntry?) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM admin_sessions WHERE idHash = ?", arguments: [idHash])
            guard db.changesCount > 0 else { return false }
            try audit?.insert(db)
            return true
        }
    }

    /// Deletes the expired sessions.
    public func deleteSessions(idleBefore: Date, createdBefore: Date) async throws -> Int {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM admin_sessions WHERE lastSeen < ? OR created < ?",
                arguments: [StoredDate.text(idleBefore), StoredDate.text(createdBefore)])
            return db.changesCount
        }
    }

    /// The newest matching audit entries, newest first.
    public func fetchAuditLog(filter: AuditFilter, limit: Int) async throws -> [AuditEntry] {
        try await read { db in
            var request = AuditEntry.order(Column("seq").desc)
            if let actor = filter.actor { request = request.filter(Column("actor") == actor) }
            if let action = filter.action { request = request.filter(Column("action") == action) }
            if let app = filter.app { request = request.filter(Column("app") == app) }
            return try request.limit(max(0, limit)).fetchAll(db)
        }
    }

    /// How many active links `owner` has in `app`.
    public func countActiveLinks(app: String, owner: String) async throws -> Int {
        try await read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM links WHERE app = ? AND owner = ? AND status = 'active'",
                arguments: [app, owner]) ?? 0
        }
    }

    /// Writes this instance's heartbeat.
    public func writeHeartbeat(_ heartbeat: InstanceHeartbeat) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO instances (id, host, started, lastSeen) VALUES (?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET lastSeen = excluded.lastSeen
                    """,
                arguments: [heartbeat.id, heartbeat.host, StoredDate.text(heartbeat.started), StoredDate.text(heartbeat.lastSeen)])
        }
    }

    /// The instances seen since `since`.
    public func fetchInstances(seenSince since: Date) async throws -> [InstanceHeartbeat] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, host, started, lastSeen FROM instances WHERE lastSeen >= ? ORDER BY lastSeen DESC",
                arguments: [StoredDate.text(since)]
            ).compactMap { row in
                guard let started = StoredDate.date(row["started"]), let lastSeen = StoredDate.date(row["lastSeen"]) else { return nil }
                return InstanceHeartbeat(id: row["id"], host: row["host"], started: started, lastSeen: lastSeen)
            }
        }
    }
}
