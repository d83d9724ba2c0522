public import Foundation
internal import GRDB

// Imports on SQLite: a batch in one transaction on GRDB's writer, each link checked and inserted with cached
// statements (no group commit: a batch is its own transaction already, and no webhook event is queued).
extension SQLiteBackend {
    /// Writes `records` in one transaction (rolled back with `dryRun`); one outcome per record, in order.
    public func importLinks(_ records: [LinkRecord], dryRun: Bool, at now: Date) async throws -> [ImportedLink] {
        do {
            return try await pool.writeWithoutTransaction { db in
                var outcomes: [ImportedLink] = []
                outcomes.reserveCapacity(records.count)
                try db.inTransaction {
                    for record in records { outcomes.append(try Self.importLink(record, in: db, now: now)) }
                    return dryRun ? .rollback : .commit
                }
                return outcomes
            }
        } catch let error as LinkStoreError {
            throw error
        } catch {
            throw LinkStoreError(.storage, "import failed: \(error)")
        }
    }

    /// One link of an import's batch: present already, its path held, or inserted (its short id drawn again when
    /// another link holds it).
    private static func importLink(_ record: LinkRecord, in db: Database, now: Date) throws -> ImportedLink {
        if let app = try String.fetchOne(db.cachedStatement(sql: "SELECT app FROM links WHERE id = ?"), arguments: [record.id]) {
            return app == record.app ? .alreadyPresent : .idTaken(app: app)
        }
        var record = record
        if let path = record.path {
            // As at creation: a revoked, deleted or expired holder lets the path go; a live one keeps it.
            try db.cachedStatement(sql: "UPDATE links SET path = NULL WHERE app = ? AND lower(path) = ? AND (status <> 'active' OR expires <= ?)")
                .execute(arguments: [record.app, CustomPath.key(path), StoredDate.text(now)])
            if let holder = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT id, path FROM links WHERE app = ? AND lower(path) = ?"),
                arguments: [record.app, CustomPath.key(path)]) {
                return .pathTaken(CustomPathTaken(linkID: holder[0], path: holder[1]))
            }
        }
        if var shortID = record.shortID {
            let taken = try db.cachedStatement(sql: "SELECT 1 FROM links WHERE short_id = ?")
            while try Bool.fetchOne(taken, arguments: [shortID]) == true { shortID = ShortID.generate() }
            record.shortID = shortID
        }
        try insertLinkRow(record, in: db)
        return .inserted(shortID: record.shortID)
    }
}
