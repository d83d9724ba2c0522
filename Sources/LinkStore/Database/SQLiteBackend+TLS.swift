public import Foundation
import GRDB

// The TLS listener's values and the ordering lease on SQLite (`TLSSchema`). Times are whole seconds since 1970.
extension SQLiteBackend {
    public func tlsSecrets(prefix: String) async throws -> [StoredTLSSecret] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT name, value, notAfter, updated FROM tls_secrets WHERE substr(name, 1, ?) = ? ORDER BY name",
                arguments: [prefix.count, prefix]
            ).map { row in
                StoredTLSSecret(
                    name: row["name"], value: row["value"], notAfter: (row["notAfter"] as Int64?).map { Self.date($0) },
                    updated: Self.date(row["updated"]))
            }
        }
    }

    public func saveTLSSecret(_ secret: StoredTLSSecret) async throws {
        try await write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO tls_secrets (name, value, notAfter, updated) VALUES (?, ?, ?, ?)",
                arguments: [secret.name, secret.value, secret.notAfter.map { Self.seconds($0) }, Self.seconds(secret.updated)])
        }
    }

    public func deleteTLSSecret(name: String) async throws {
        try await write { db in try db.execute(sql: "DELETE FROM tls_secrets WHERE name = ?", arguments: [name]) }
    }

    public func acquireLease(name: String, holder: String, until: Date, now: Date) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO leases (name, holder, until) VALUES (?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
                    WHERE leases.until <= ? OR leases.holder = excluded.holder
                    """,
                arguments: [name, holder, Self.seconds(until), Self.seconds(now)])
            return try String.fetchOne(db, sql: "SELECT holder FROM leases WHERE name = ?", arguments: [name]) == holder
        }
    }

    public func releaseLease(name: String, holder: String) async throws {
        try await write { db in try db.execute(sql: "DELETE FROM leases WHERE name = ? AND holder = ?", arguments: [name, holder]) }
    }
}
