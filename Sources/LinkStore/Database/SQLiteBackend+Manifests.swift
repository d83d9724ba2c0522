public import Foundation
internal import GRDB

// The published manifests of the SQLite backend (`ManifestTable`). One process owns the file, so the optimistic
// check of a publish is the write transaction itself.
extension SQLiteBackend {
    /// The columns of `app_manifests`, in `ManifestVersion`'s order.
    static let manifestColumns = "app, version, hash, source, publishedAt, publishedBy, retired"

    /// The newest version of every app.
    public func fetchCurrentManifests() async throws -> [ManifestVersion] {
        try await read { db in
            try Self.manifestRows(db, sql: """
                SELECT \(Self.manifestColumns) FROM app_manifests AS m
                WHERE version = (SELECT max(version) FROM app_manifests WHERE app = m.app) ORDER BY app
                """)
        }
    }

    /// Every version of `app`, newest first.
    public func fetchManifestVersions(app: String) async throws -> [ManifestVersion] {
        try await read { db in
            try Self.manifestRows(db, sql: "SELECT \(Self.manifestColumns) FROM app_manifests WHERE app = ? ORDER BY version DESC", [app])
        }
    }

    /// Writes the version if it follows the newest one, moves the links, writes `audit`: all or none.
    public func publishManifest(_ record: ManifestVersion, moves: [LinkMove], audit: AuditEntry?) async throws -> [String] {
        try await write { db -> [String] in
            let newest = try Int.fetchOne(db, sql: "SELECT max(version) FROM app_manifests WHERE app = ?", arguments: [record.app]) ?? 0
            guard newest == record.version - 1 else {
                throw LinkStoreError(.conflict, "\(record.app) is at version \(newest) now, not \(record.version - 1)")
            }
            try db.execute(
                sql: "INSERT INTO app_manifests (\(Self.manifestColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [record.app, record.version, record.hash, record.source, StoredDate.text(record.publishedAt),
                            record.publishedBy, record.retired])
            var moved: [String] = []
            let now = StoredDate.text(record.publishedAt)
            for move in moves {
                let rows = try Row.fetchAll(db, sql: """
                    SELECT id, params FROM links WHERE app = ? AND route = ? AND status = 'active' AND expires > ? ORDER BY id
                    """, arguments: [record.app, move.from, now])
                for row in rows {
                    let id: String = row["id"]
                    let params = LinkMove.renamed(try LinkParamsText.decode(row["params"], id: id), by: move.params)
                    try db.execute(sql: "UPDATE links SET route = ?, params = ? WHERE id = ?",
                                   arguments: [move.to, try LinkParamsText.encode(params), id])
                    moved.append(id)
                }
            }
            try audit?.insert(db)
            return moved
        }
    }

    /// The live links of `app` per route, with a sample of ids.
    public func liveLinksByRoute(app: String, now: Date) async throws -> [RouteLiveLinks] {
        try await read { db in
            let cutoff = StoredDate.text(now)
            let counts = try Row.fetchAll(db, sql: """
                SELECT route, count(*) AS n FROM links WHERE app = ? AND status = 'active' AND expires > ? GROUP BY route ORDER BY route
                """, arguments: [app, cutoff])
            return try counts.map { row in
                let route: String = row["route"]
                let sample = try String.fetchAll(db, sql: """
                    SELECT id FROM links WHERE app = ? AND route = ? AND status = 'active' AND expires > ? ORDER BY id LIMIT ?
                    """, arguments: [app, route, cutoff, RouteLiveLinks.sampleSize])
                return RouteLiveLinks(route: route, count: row["n"], sample: sample)
            }
        }
    }

    private static func manifestRows(_ db: Database, sql: String, _ arguments: StatementArguments = []) throws -> [ManifestVersion] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            ManifestVersion(
                app: row["app"], version: row["version"], hash: row["hash"], source: row["source"],
                publishedAt: StoredDate.date(row["publishedAt"]) ?? .distantPast, publishedBy: row["publishedBy"],
                retired: row["retired"])
        }
    }

}

extension LinkMove {
    /// `params` with the names this move renames renamed (a name not mentioned keeps its name).
    static func renamed(_ params: [String: String], by renames: [String: String]) -> [String: String] {
        guard !renames.isEmpty else { return params }
        var result: [String: String] = [:]
        for (name, value) in params { result[renames[name] ?? name] = value }
        return result
    }
}
