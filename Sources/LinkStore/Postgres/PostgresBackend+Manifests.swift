public import Foundation
import Logging
import PostgresNIO

// The published manifests of the PostgreSQL backend (`ManifestTable`), shared by every instance: a publish locks
// its app's name for the transaction, checks it follows the newest version, and announces `manifest` on the
// change feed, so every instance puts the new version in force within the feed's bound.
extension PostgresBackend {
    /// The columns of `app_manifests`, in `ManifestVersion`'s order.
    static let manifestColumns = "app, version, hash, source, published_at, published_by, retired"

    /// The newest version of every app.
    public func fetchCurrentManifests() async throws -> [ManifestVersion] {
        try await run("read the manifests") { [client] in
            try await Self.decodeManifests(client.query("""
                SELECT DISTINCT ON (app) \(unescaped: Self.manifestColumns) FROM app_manifests ORDER BY app, version DESC
                """))
        }
    }

    /// Every version of `app`, newest first.
    public func fetchManifestVersions(app: String) async throws -> [ManifestVersion] {
        try await run("read the manifest versions") { [client] in
            try await Self.decodeManifests(client.query(
                "SELECT \(unescaped: Self.manifestColumns) FROM app_manifests WHERE app = \(app) ORDER BY version DESC"))
        }
    }

    /// Writes the version if it follows the newest one, moves the links, writes `audit` and the change: all or none.
    public func publishManifest(_ record: ManifestVersion, moves: [LinkMove], audit: AuditEntry?) async throws -> [String] {
        try await run("publish a manifest", timeout: .seconds(60)) { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> [String] in
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\("manifest:" + record.app)))", logger: logger)
                var newest: Int64 = 0
                for try await value in try await connection.query(
                    "SELECT coalesce(max(version), 0) FROM app_manifests WHERE app = \(record.app)", logger: logger
                ).decode(Int64.self) { newest = value }
                guard newest == Int64(record.version - 1) else {
                    throw LinkStoreError(.conflict, "\(record.app) is at version \(newest) now, not \(record.version - 1)")
                }
                try await connection.query("""
                    INSERT INTO app_manifests (\(unescaped: Self.manifestColumns))
                    VALUES (\(record.app), \(Int64(record.version)), \(record.hash), \(record.source), \(record.publishedAt),
                      \(record.publishedBy), \(record.retired))
                    """, logger: logger)
                var moved: [String] = []
                for move in moves {
                    var rows: [(String, String)] = []
                    for try await row in try await connection.query("""
                        SELECT id, params FROM links WHERE app = \(record.app) AND route = \(move.from) AND status = 'active'
                          AND expires > \(record.publishedAt) ORDER BY id FOR UPDATE
                        """, logger: logger).decode((String, String).self) { rows.append(row) }
                    for (id, text) in rows {
                        let params = LinkMove.renamed(try LinkParamsText.decode(text, id: id), by: move.params)
                        try await connection.query(
                            "UPDATE links SET route = \(move.to), params = \(try LinkParamsText.encode(params)) WHERE id = \(id)",
                            logger: logger)
                        moved.append(id)
                    }
                }
                try await Self.insertAudit(audit, connection, logger: logger)
                let version = try await Self.nextVersion(connection, logger: logger)
                try await connection.query("""
                    INSERT INTO changes (version, kind, app, subject, generation)
                    VALUES (\(version), 'manifest', \(record.app), \(record.app), \(Int64(record.version)))
                    """, logger: logger)
                try await Self.announce(version, connection, logger: logger)
                return moved
            }
        }
    }

    /// The live links of `app` per route, with a sample of ids.
    public func liveLinksByRoute(app: String, now: Date) async throws -> [RouteLiveLinks] {
        try await run("count the live links by route") { [client] in
            var counts: [(String, Int64)] = []
            for try await row in try await client.query("""
                SELECT route, count(*) FROM links WHERE app = \(app) AND status = 'active' AND expires > \(now)
                GROUP BY route ORDER BY route
                """).decode((String, Int64).self) { counts.append(row) }
            var result: [RouteLiveLinks] = []
            for (route, count) in counts {
                var sample: [String] = []
                for try await id in try await client.query("""
                    SELECT id FROM links WHERE app = \(app) AND route = \(route) AND status = 'active' AND expires > \(now)
                    ORDER BY id LIMIT \(Int64(RouteLiveLinks.sampleSize))
                    """).decode(String.self) { sample.append(id) }
                result.append(RouteLiveLinks(route: route, count: Int(count), sample: sample))
            }
            return result
        }
    }

    private static func decodeManifests(_ rows: PostgresRowSequence) async throws -> [ManifestVersion] {
        var versions: [ManifestVersion] = []
        for try await (app, version, hash, source, at, by, retired) in rows.decode((String, Int64, String, String, Date, String, Bool).self) {
            versions.append(ManifestVersion(
                app: app, version: Int(version), hash: hash, source: source, publishedAt: at, publishedBy: by, retired: retired))
        }
        return versions
    }
}
