public import Foundation
import PostgresNIO

// The TLS listener's values and the ordering lease on PostgreSQL (`TLSSchema`), shared by every instance.
extension PostgresBackend {
    public func tlsSecrets(prefix: String) async throws -> [StoredTLSSecret] {
        try await run("read TLS values") { [client] in
            let rows = try await client.query("""
                SELECT name, value, not_after, updated FROM tls_secrets WHERE starts_with(name, \(prefix)) ORDER BY name
                """)
            var out: [StoredTLSSecret] = []
            for try await (name, value, notAfter, updated) in rows.decode((String, Data, Date?, Date).self) {
                out.append(StoredTLSSecret(name: name, value: value, notAfter: notAfter, updated: updated))
            }
            return out
        }
    }

    public func saveTLSSecret(_ secret: StoredTLSSecret) async throws {
        try await run("write a TLS value") { [client] in
            try await client.query("""
                INSERT INTO tls_secrets (name, value, not_after, updated) VALUES (\(secret.name), \(secret.value), \(secret.notAfter), \(secret.updated))
                ON CONFLICT (name) DO UPDATE SET value = excluded.value, not_after = excluded.not_after, updated = excluded.updated
                """)
        }
    }

    public func deleteTLSSecret(name: String) async throws {
        try await run("delete a TLS value") { [client] in
            try await client.query("DELETE FROM tls_secrets WHERE name = \(name)")
        }
    }

    public func acquireLease(name: String, holder: String, until: Date, now: Date) async throws -> Bool {
        try await run("take a lease") { [client] in
            let rows = try await client.query("""
                INSERT INTO leases (name, holder, until) VALUES (\(name), \(holder), \(until))
                ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
                WHERE leases.until <= \(now) OR leases.holder = excluded.holder
                RETURNING holder
                """)
            return try await rows.collect().count == 1
        }
    }

    public func releaseLease(name: String, holder: String) async throws {
        try await run("give up a lease") { [client] in
            try await client.query("DELETE FROM leases WHERE name = \(name) AND holder = \(holder)")
        }
    }
}
