public import Foundation
import Logging
import PostgresNIO

/// The console's tables in PostgreSQL (`console-v1`): sessions (shared, so any instance behind the load balancer
/// knows a session), instance heartbeats, and the audit log's `app` column.
enum PostgresConsoleMigration {
    static let statements = [
        """
        CREATE TABLE admin_sessions (idhash bytea PRIMARY KEY, keyid text NOT NULL, created timestamptz NOT NULL,
          lastseen timestamptz NOT NULL)
        """,
        "CREATE TABLE instances (id text PRIMARY KEY, host text NOT NULL, started timestamptz NOT NULL, lastseen timestamptz NOT NULL)",
        "ALTER TABLE audit_log ADD COLUMN app text",
        "CREATE INDEX audit_log_actor ON audit_log (actor, seq)",
        "CREATE INDEX audit_log_app ON audit_log (app, seq)",
        "CREATE INDEX links_owner_status ON links (app, owner, status)",
    ]
}

// The console's queries on PostgreSQL.
extension PostgresBackend {
    static let auditColumns = "seq, at, actor, action, detail, app"

    static func decodeAudit(_ rows: PostgresRowSequence) async throws -> [AuditEntry] {
        var entries: [AuditEntry] = []
        for try await (seq, at, actor, action, detail, app) in rows.decode((Int64, Date, String, String, String, String?).self) {
            entries.append(AuditEntry(seq: seq, at: at, actor: actor, action: action, detail: detail, app: app))
        }
        return entries
    }

    /// Stores a new session, with `audit` in the same transaction.
    public func insertSession(_ session: AdminSessionRecord, audit: AuditEntry?) async throws {
        try await run("open a console session") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("""
                    INSERT INTO admin_sessions (idhash, keyid, created, lastseen)
                    VALUES (\(session.idHash), \(session.keyID), \(session.created), \(session.lastSeen))
                    """, logger: logger)
                try await Self.insertAudit(audit, connection, logger: logger)
            }
        }
    }

    /// The session whose id has this digest.
    public func fetchSession(idHash: Data) async throws -> AdminSessionRecord? {
        try await run("read a console session") { [client] in
            let rows = try await client.query("SELECT keyid, created, lastseen FROM admin_sessions WHERE idhash = \(idHash)")
            for try await (keyID, created, lastSeen) in rows.decode((String, Date, Date).self) {
                return AdminSessionRecord(idHash: idHash, keyID: keyID, created: created, lastSeen: lastSeen)
            }
            return nil
        }
    }

    /// Sets a session's last use.
    public func touchSession(idHash: Data, at date: Date) async throws {
        try await run("touch a console session") { [client] in
            try await client.query("UPDATE admin_sessions SET lastseen = \(date) WHERE idhash = \(idHash)")
        }
    }

    /// Deletes a session, with `audit` in the same transaction when there was one.
    public func deleteSession(idHash: Data, audit: AuditEntry?) async throws -> Bool {
        try await run("end a console session") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> Bool in
                let rows = try await connection.query(
                    "DELETE FROM admin_sessions WHERE idhash = \(idHash) RETURNING keyid", logger: logger)
                guard try await rows.collect().count > 0 else { return false }
                try await Self.insertAudit(audit, connection, logger: logger)
                return true
            }
        }
    }

    /// Deletes the expired sessions.
    public func deleteSessions(idleBefore: Date, createdBefore: Date) async throws -> Int {
        try await run("prune console sessions") { [client] in
            let rows = try await client.query(
                "DELETE FROM admin_sessions WHERE lastseen < \(idleBefore) OR created < \(createdBefore) RETURNING keyid")
            return try await rows.collect().count
        }
    }

    /// The newest matching audit entries, newest first.
    public func fetchAuditLog(filter: AuditFilter, limit: Int) async throws -> [AuditEntry] {
        try await run("read the audit log") { [client] in
            // A nil filter field matches every row: `$n IS NULL OR column = $n`, bound, never spliced in.
            let rows = try await client.query("""
                SELECT \(unescaped: Self.auditColumns) FROM audit_log
                WHERE (\(filter.actor)::text IS NULL OR actor = \(filter.actor))
                  AND (\(filter.action)::text IS NULL OR action = \(filter.action))
                  AND (\(filter.app)::text IS NULL OR app = \(filter.app))
                ORDER BY seq DESC LIMIT \(Int64(max(0, limit)))
                """)
            return try await Self.decodeAudit(rows)
        }
    }

    /// How many active links `owner` has in `app`.
    public func countActiveLinks(app: String, owner: String) async throws -> Int {
        try await run("count an owner's links") { [client] in
            let rows = try await client.query(
                "SELECT count(*) FROM links WHERE app = \(app) AND owner = \(owner) AND status = 'active'")
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    /// Writes this instance's heartbeat.
    public func writeHeartbeat(_ heartbeat: InstanceHeartbeat) async throws {
        try await run("write the instance heartbeat") { [client] in
            try await client.query("""
                INSERT INTO instances (id, host, started, lastseen)
                VALUES (\(heartbeat.id), \(heartbeat.host), \(heartbeat.started), \(heartbeat.lastSeen))
                ON CONFLICT (id) DO UPDATE SET lastseen = excluded.lastseen
                """)
        }
    }

    /// The instances seen since `since`.
    public func fetchInstances(seenSince since: Date) async throws -> [InstanceHeartbeat] {
        try await run("read the instances") { [client] in
            let rows = try await client.query(
                "SELECT id, host, started, lastseen FROM instances WHERE lastseen >= \(since) ORDER BY lastseen DESC")
            var instances: [InstanceHeartbeat] = []
            for try await (id, host, started, lastSeen) in rows.decode((String, String, Date, Date).self) {
                instances.append(InstanceHeartbeat(id: id, host: host, started: started, lastSeen: lastSeen))
            }
            return instances
        }
    }
}
