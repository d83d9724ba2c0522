public import Foundation
import GRDB
public import Logging

/// The embedded database on SQLite: links, revocations, API keys, key records, clicks and the audit log, for one
/// process. SQL only: the memory (record cache, revocation set) is `StoreFront`'s.
///
/// Writes are durable when they return (WAL, `synchronous=FULL`); new links are group-committed (`SQLiteGroupCommit`). Work runs on GRDB's own threads (`async`), never
/// on the caller's executor. No other instance shares the file: there is no change feed.
public final class SQLiteBackend: StoreBackend {
    /// The SQLite file.
    public let path: String
    let pool: DatabasePool
    private let keyLock = AsyncLock()
    /// New links: concurrent creations share one transaction and one fsync.
    let groupCommit: SQLiteGroupCommit

    /// Opens (creating and migrating if needed) the database at `path`. A store made by an earlier release is
    /// migrated one step at a time, each logged with `logger` as it begins and ends (one over a large table takes
    /// seconds to minutes, and the start waits for it).
    public init(path: String, logger: Logger = Logger(label: "linkd.store")) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // 512 KiB of page cache per connection instead of SQLite's 2 MB: the hot path reads memory (the link
            // cache, the revocation set), and the pages a miss needs are in the kernel's page cache anyway.
            try db.execute(sql: "PRAGMA cache_size = -512")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrate(pool, logger: logger)
        } catch {
            throw LinkStoreError(.storage, "cannot open the store at \(path): \(error)")
        }
        self.path = path
        groupCommit = SQLiteGroupCommit(pool: pool)
    }

    /// The file's path.
    public var description: String { path }

    /// Applies the migrations `pool` lacks: all at once and unlogged for a new file, logged one by one for a file an
    /// earlier release made.
    private static func migrate(_ pool: DatabasePool, logger: Logger) throws {
        let upgrading = try pool.read { db in try !Migrations.migrator(logging: nil).appliedIdentifiers(db).isEmpty }
        try Migrations.migrator(logging: upgrading ? logger : nil).migrate(pool)
    }

    /// The transactions new links were committed in, and the links they held.
    public var linkCommits: GroupCommitCounts { groupCommit.counts }

    /// Succeeds when the database answers.
    public func ping() async throws {
        _ = try await read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    /// Copies the database into the new file `path` (refused when it exists) from one read transaction, in one
    /// backup step: a snapshot as of the step's start, taken while writers go on (WAL). Runs on a thread of its own.
    public func backup(to path: String) async throws -> Int {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw LinkStoreError(.conflict, "\(path) exists: a backup never replaces a file")
        }
        let pool = self.pool
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    let copy = try DatabaseQueue(path: path)
                    try pool.backup(to: copy)
                    try copy.close()
                    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                    continuation.resume(returning: size)
                } catch {
                    try? FileManager.default.removeItem(atPath: path)
                    continuation.resume(throwing: LinkStoreError(.storage, "the backup to \(path) failed: \(error)"))
                }
            }
        }
    }

    /// Nothing to release: GRDB closes the pool with the backend.
    public func close() async {}

    // MARK: Links

    /// Inserts a new link. Throws `conflict` if the id exists.
    public func insertLink(_ record: LinkRecord) async throws {
        try await insertLink(record, events: [])
    }

    /// Inserts `record`'s row, on the writer inside the caller's transaction: a cached statement with the columns
    /// written as GRDB writes them (params as sorted JSON, dates as stored text, the campaign as its label), bound
    /// through SQLite's C API. Encoding the record through Codable was most of a bulk insert's time, and a ninth of
    /// the writer's time per creation.
    static func insertLinkRow(_ record: LinkRecord, in db: Database) throws {
        let params = try LinkParamsText.encode(record.params)
        try DirectStatement(db, sql: """
            INSERT INTO links (id, app, route, params, owner, title, created, expires, generation, status, campaign, short_id, path)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).run { row in
            row.add(record.id)
            row.add(record.app)
            row.add(record.route)
            row.add(params)
            row.add(record.owner)
            row.add(record.title)
            row.add(StoredDate.text(record.created))
            row.add(StoredDate.text(record.expires))
            row.add(record.generation)
            row.add(record.status.rawValue)
            row.add(record.campaign?.label)
            row.add(record.shortID)
            row.add(record.path)
        }
    }

    /// The stored link, nil when there is none.
    public func fetchLink(id: String) async throws -> LinkRecord? {
        try await read { db in try LinkRecord.fetchOne(db, key: id) }
    }

    /// The stored link with this short id, nil when there is none (the `links_short_id` index).
    public func fetchLink(shortID: String) async throws -> LinkRecord? {
        try await read { db in try LinkRecord.filter(Column("short_id") == shortID).fetchOne(db) }
    }

    /// The link of `app` holding `path` in any case (the `links_app_path` index).
    public func fetchLink(app: String, path: String) async throws -> LinkRecord? {
        try await read { db in
            try LinkRecord.fetchOne(db, sql: "SELECT * FROM links WHERE app = ? AND lower(path) = ?", arguments: [app, CustomPath.key(path)])
        }
    }

    /// The custom paths of `app`'s live links but those of the `outside` shapes, newest first, at most `limit`: from
    /// the partial covering index (the planner would walk every link of the app by `links_app_created`).
    public func liveCustomPaths(app: String, now: Date, limit: Int, outside: CustomPathShapes) async throws -> [String] {
        try await read { db in
            try String.fetchAll(db, sql: """
                SELECT path FROM links INDEXED BY links_app_custom_paths
                WHERE app = ? AND path IS NOT NULL AND status = 'active' AND expires > ? AND \(outside.sqlOutside(like: false))
                ORDER BY created DESC, id DESC LIMIT ?
                """, arguments: [app, StoredDate.text(now), limit])
        }
    }

    /// Revokes a link, with `audit` in the same transaction. The updated row, or nil if there is no such link.
    public func revokeLink(id: String, at date: Date, audit: AuditEntry?) async throws -> LinkRecord? {
        try await write { db -> LinkRecord? in
            guard var record = try LinkRecord.fetchOne(db, key: id) else { return nil }
            record.status = .revoked
            try record.update(db)
            try Self.insertRevocation(db, id: record.id, generation: record.generation, at: date)
            try audit?.insert(db)
            return record
        }
    }

    /// Revokes every active link of an owner in an app, with `audit` of the count in the same transaction; the
    /// (link id, generation) of each.
    public func revokeLinks(
        app: String, owner: String, at date: Date, audit: (@Sendable (_ revoked: Int) -> AuditEntry)?
    ) async throws -> [(String, Int)] {
        try await write { db -> [(String, Int)] in
            let records = try LinkRecord
                .filter(Column("app") == app && Column("owner") == owner && Column("status") == LinkRecordStatus.active.rawValue)
                .fetchAll(db)
            for var record in records {
                record.status = .revoked
                try record.update(db)
                try Self.insertRevocation(db, id: record.id, generation: record.generation, at: date)
            }
            try audit?(records.count).insert(db)
            return records.map { ($0.id, $0.generation) }
        }
    }

    /// Marks an active link deleted, with the entry `audit` makes of it in the same transaction. The updated row, or
    /// nil (and no audit entry) when there is no such link or it is not active.
    public func markLinkDeleted(id: String, audit: (@Sendable (LinkRecord) -> AuditEntry)?) async throws -> LinkRecord? {
        try await write { db -> LinkRecord? in
            guard var record = try LinkRecord.fetchOne(db, key: id), record.status == .active else { return nil }
            record.status = .deleted
            try record.update(db)
            try audit?(record).insert(db)
            return record
        }
    }

    private static func insertRevocation(_ db: Database, id: String, generation: Int, at date: Date) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO revocations (linkId, generation, revokedAt) VALUES (?, ?, ?)",
            arguments: [id, generation, StoredDate.text(date)]
        )
    }

    /// How many links are stored.
    public func countLinks() async throws -> Int {
        try await read { db in try LinkRecord.fetchCount(db) }
    }

    /// Streams the revocations table into `loader` through a cursor, after reserving room for its row count.
    public func streamRevocations(into loader: RevocationLoader) async throws {
        try await read { db in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM revocations") ?? 0
            loader.reserve(count)
            let rows = try Row.fetchCursor(db, sql: "SELECT linkId, generation FROM revocations")
            while let row = try rows.next() {
                loader.add(linkID: row[0], generation: row[1])
            }
        }
    }

    // MARK: Clicks

    /// The click statistics of a link (zero if never opened).
    public func fetchClicks(linkID: String) async throws -> LinkClicks {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT count, lastOpened FROM clicks WHERE linkId = ?", arguments: [linkID]) else {
                return LinkClicks(count: 0, lastOpened: nil)
            }
            return LinkClicks(count: row["count"], lastOpened: StoredDate.date(row["lastOpened"]))
        }
    }

    // MARK: API keys

    /// Inserts a new API key (its hash only), with `audit` in the same transaction.
    public func insertAPIKey(_ key: APIKeyRecord, audit: AuditEntry?) async throws {
        try await write { db in
            try key.insert(db)
            try audit?.insert(db)
        }
    }

    /// The API key with this secret hash, if it exists (revoked keys included; the caller checks).
    public func fetchAPIKey(secretHash: Data) async throws -> APIKeyRecord? {
        try await read { db in try APIKeyRecord.filter(Column("secretHash") == secretHash).fetchOne(db) }
    }

    /// Revokes an API key, with `audit` in the same transaction. Returns false (and writes no audit entry) when
    /// there is no such key.
    public func revokeAPIKey(id: String, at date: Date, audit: AuditEntry?) async throws -> Bool {
        try await write { db in
            guard var key = try APIKeyRecord.fetchOne(db, key: id) else { return false }
            key.revoked = key.revoked ?? date
            try key.update(db)
            try audit?.insert(db)
            return true
        }
    }

    /// All API keys of a kind, oldest first.
    public func fetchAPIKeys(kind: APIKeyKind) async throws -> [APIKeyRecord] {
        try await read { db in try APIKeyRecord.filter(Column("kind") == kind.rawValue).order(Column("created")).fetchAll(db) }
    }

    // MARK: Key records

    /// Every stored signing-key record.
    public func fetchKeyRecords() async throws -> [StoredKeyRecord] {
        try await read { db in try StoredKeyRecord.order(Column("app"), Column("kid")).fetchAll(db) }
    }

    /// Inserts or replaces signing-key records, with `audit`, in one transaction.
    public func saveKeyRecords(_ records: [StoredKeyRecord], audit: AuditEntry?) async throws {
        try await write { db in
            for record in records { try record.save(db) }
            try audit?.insert(db)
        }
    }

    /// Runs `body` under this process's key lock (no other process shares the file).
    public func withKeyLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await keyLock.run(body)
    }

    // MARK: Audit log

    /// Appends an audit entry.
    public func appendAudit(_ entry: AuditEntry) async throws {
        try await write { db in try entry.insert(db) }
    }

    /// The newest audit entries, newest first.
    public func fetchAuditLog(limit: Int) async throws -> [AuditEntry] {
        try await read { db in try AuditEntry.order(Column("seq").desc).limit(max(0, limit)).fetchAll(db) }
    }

    // MARK: No change feed

    /// None: no other instance shares an embedded store.
    public var schedule: FeedSchedule? { nil }

    /// Zero: no other instance shares an embedded store.
    public var propagationBound: Duration { .zero }

    /// Zero: there is no feed (not called).
    public func currentVersion() async throws -> Int64 { 0 }

    /// None: there is no feed (not called).
    public func changes(after version: Int64) async throws -> [StoreChange] { [] }

    /// Returns at once: no one announces anything (not called).
    public func listen(onListening: () async throws -> Void, onAnnouncement: () async throws -> Void) async throws {}

    /// Nothing to prune (not called).
    public func pruneChanges() async throws {}

    // MARK: Plumbing

    /// Runs `body` on a reader; a database error becomes `storage`.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do { return try await pool.read(body) } catch let error as LinkStoreError { throw error } catch {
            throw LinkStoreError(.storage, "read failed: \(error)")
        }
    }

    /// Runs `body` in a write transaction; a database error becomes `storage`.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do { return try await pool.write(body) } catch let error as LinkStoreError { throw error } catch {
            throw LinkStoreError(.storage, "write failed: \(error)")
        }
    }
}
