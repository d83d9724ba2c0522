public import Foundation
import Logging
import PostgresNIO

// Imports on PostgreSQL: a batch in one transaction of a few statements whatever its size — the ids, paths and
// short ids already held are read with `= ANY(…)`, and the links written with one multi-row INSERT — so a batch of
// a thousand links costs a handful of round trips, not a thousand.
extension PostgresBackend {
    /// The rows one INSERT writes at most (13 parameters each: PostgreSQL takes at most 65,535 per statement).
    static let importInsertRows = 1000

    /// Writes `records` (all of one app) in one transaction (rolled back with `dryRun`); one outcome per record.
    public func importLinks(_ records: [LinkRecord], dryRun: Bool, at now: Date) async throws -> [ImportedLink] {
        guard let app = records.first?.app else { return [] }
        guard records.allSatisfy({ $0.app == app }) else {
            throw LinkStoreError(.unsupported, "an import batch holds the links of one app")
        }
        return try await run("import links", timeout: .seconds(60)) { [client, logger] in
            do {
                return try await client.withTransaction(logger: logger) { connection -> [ImportedLink] in
                    let outcomes = try await Self.importBatch(records, app: app, now: now, on: connection, logger: logger)
                    if dryRun { throw ImportDryRun(outcomes: outcomes) }
                    return outcomes
                }
            } catch let error as PostgresTransactionError {
                if let dry = error.closureError as? ImportDryRun { return dry.outcomes }
                if let refused = error.closureError as? LinkStoreError { throw refused }
                throw LinkStoreError(.storage, "import failed: \(Self.describe(error.closureError ?? error.commitError ?? error.beginError ?? error))")
            }
        }
    }

    /// The outcomes of a dry run, thrown to roll its transaction back.
    private struct ImportDryRun: Error {
        let outcomes: [ImportedLink]
    }

    private static func importBatch(
        _ records: [LinkRecord], app: String, now: Date, on connection: PostgresConnection, logger: Logger
    ) async throws -> [ImportedLink] {
        var present: [String: String] = [:]
        let ids = records.map(\.id)
        for try await (id, owner) in try await connection.query("SELECT id, app FROM links WHERE id = ANY(\(ids))", logger: logger)
            .decode((String, String).self) {
            present[id] = owner
        }
        var holders: [String: CustomPathTaken] = [:]
        let keys = records.compactMap { $0.path.map(CustomPath.key) }
        if !keys.isEmpty {
            try await connection.query("""
                UPDATE links SET path = NULL WHERE app = \(app) AND lower(path) = ANY(\(keys))
                AND (status <> 'active' OR expires <= \(now))
                """, logger: logger)
            let rows = try await connection.query(
                "SELECT id, path FROM links WHERE app = \(app) AND lower(path) = ANY(\(keys))", logger: logger)
            for try await (id, path) in rows.decode((String, String).self) {
                holders[CustomPath.key(path)] = CustomPathTaken(linkID: id, path: path)
            }
        }
        var takenShortIDs: Set<String> = []
        let shortIDs = records.compactMap(\.shortID)
        for try await shortID in try await connection.query(
            "SELECT short_id FROM links WHERE short_id = ANY(\(shortIDs))", logger: logger).decode(String.self) {
            takenShortIDs.insert(shortID)
        }
        var outcomes: [ImportedLink] = []
        var inserts: [LinkRecord] = []
        for var record in records {
            if let owner = present[record.id] {
                outcomes.append(owner == app ? .alreadyPresent : .idTaken(app: owner))
            } else if let path = record.path, let holder = holders[CustomPath.key(path)] {
                outcomes.append(.pathTaken(holder))
            } else {
                if let shortID = record.shortID, takenShortIDs.contains(shortID) { record.shortID = ShortID.generate() }
                outcomes.append(.inserted(shortID: record.shortID))
                inserts.append(record)
            }
        }
        var start = 0
        while start < inserts.count {
            let slice = inserts[start..<min(start + importInsertRows, inserts.count)]
            let written = try await insertRows(slice, on: connection, logger: logger)
            guard written == slice.count else {
                throw LinkStoreError(.conflict, "a link with one of this batch's ids, short ids or paths was made meanwhile; run the import again")
            }
            start += importInsertRows
        }
        return outcomes
    }

    /// One multi-row INSERT; how many rows it wrote (a conflict on any unique key skips its row).
    private static func insertRows(_ rows: ArraySlice<LinkRecord>, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        var binds = PostgresBindings(capacity: rows.count * 13)
        var sql = "INSERT INTO links (id, app, route, params, owner, title, created, expires, generation, status, campaign, short_id, path) VALUES "
        for (index, record) in rows.enumerated() {
            let base = index * 13
            sql += (index == 0 ? "(" : ",(") + (1...13).map { "$\(base + $0)" }.joined(separator: ",") + ")"
            binds.append(record.id)
            binds.append(record.app)
            binds.append(record.route)
            binds.append(try LinkParamsText.encode(record.params))
            binds.append(record.owner)
            binds.append(record.title)
            binds.append(record.created)
            binds.append(record.expires)
            binds.append(Int64(record.generation))
            binds.append(record.status.rawValue)
            binds.append(record.campaign?.label)
            binds.append(record.shortID)
            binds.append(record.path)
        }
        sql += " ON CONFLICT DO NOTHING RETURNING id"
        let inserted = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        return try await inserted.collect().count
    }
}
