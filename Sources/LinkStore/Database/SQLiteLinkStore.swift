import Foundation
import GRDB

/// The embedded store on SQLite: links, revocations, API keys, key records, clicks and the audit log.
///
/// Writes are durable when they return (WAL, `synchronous=FULL`). Reads on the hot path (`link(id:)`,
/// `isRevoked`) come from memory: a bounded record cache and the revocation set, both kept current by every write.
/// Database work runs on GRDB's own threads (`async`), never on the caller's executor.
public final class SQLiteLinkStore: LinkStorage {
    private let pool: DatabasePool
    /// Revoked (link id, generation) pairs, loaded at open and updated on every revocation.
    public let revocations = RevocationSet()
    private let cache: LinkCache
    private let keyLock = AsyncLock()

    /// Opens (creating and migrating if needed) the store at `path`.
    /// - Parameters:
    ///   - path: the SQLite file.
    ///   - cacheCapacity: the most link records kept in memory.
    public init(path: String, cacheCapacity: Int = 100_000) throws {
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
            try Migrations.migrator.migrate(pool)
        } catch {
            throw LinkStoreError(.storage, "cannot open the store at \(path): \(error)")
        }
        cache = LinkCache(capacity: cacheCapacity)
        try loadRevocations()
    }

    /// Streams the revocations table into the in-memory set (a cursor, so a million rows are never all in memory
    /// as rows at once).
    private func loadRevocations() throws {
        try readNow { db in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM revocations") ?? 0
            revocations.reserve(count)
            var batch: [RevocationKey] = []
            batch.reserveCapacity(4096)
            let rows = try Row.fetchCursor(db, sql: "SELECT linkId, generation FROM revocations")
            while let row = try rows.next() {
                if let key = RevocationKey(hex: row[0], generation: UInt32(truncatingIfNeeded: row[1] as Int)) { batch.append(key) }
                if batch.count == 4096 {
                    revocations.insert(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            revocations.insert(batch)
        }
    }

    // MARK: Links

    /// Stores a new link. Throws `conflict` if the id exists.
    public func createLink(_ record: LinkRecord) async throws {
        try await write { db in
            if try LinkRecord.exists(db, key: record.id) {
                throw LinkStoreError(.conflict, "link \(record.id) exists")
            }
            try record.insert(db)
        }
        // Not cached here: the cache holds links being opened (a record is cached on its first read), not every
        // link made — most are opened rarely or never.
    }

    /// The link record (from the cache when present).
    public func link(id: String) async throws -> LinkRecord? {
        if let cached = cache.get(id) { return cached }
        guard let record = try await read({ db in try LinkRecord.fetchOne(db, key: id) }) else { return nil }
        cache.put(record)
        return record
    }

    /// The link record from memory only; nil when not cached (the caller then decides).
    public func cachedLink(id: String) -> LinkRecord? {
        cache.get(id)
    }

    /// Revokes a link. Returns the updated record, or nil if there is no such link.
    @discardableResult
    public func revokeLink(id: String, at date: Date) async throws -> LinkRecord? {
        let updated = try await write { db -> LinkRecord? in
            guard var record = try LinkRecord.fetchOne(db, key: id) else { return nil }
            record.status = .revoked
            try record.update(db)
            try Self.insertRevocation(db, id: record.id, generation: record.generation, at: date)
            return record
        }
        if let updated {
            cache.put(updated)
            revocations.insert(linkGenerations: [(updated.id, updated.generation)])
        }
        return updated
    }

    /// Revokes every active link of an owner in an app. Returns how many were revoked.
    public func revokeLinks(app: String, owner: String, at date: Date) async throws -> Int {
        let revoked = try await write { db -> [(String, Int)] in
            let records = try LinkRecord
                .filter(Column("app") == app && Column("owner") == owner && Column("status") == LinkRecordStatus.active.rawValue)
                .fetchAll(db)
            for var record in records {
                record.status = .revoked
                try record.update(db)
                try Self.insertRevocation(db, id: record.id, generation: record.generation, at: date)
            }
            return records.map { ($0.id, $0.generation) }
        }
        if !revoked.isEmpty {
            cache.removeAll()
            revocations.insert(linkGenerations: revoked)
        }
        return revoked.count
    }

    /// Marks an active link deleted. Returns the updated record, or nil when there is no such link or it is not
    /// active; either way the cache then holds the record as stored.
    public func markLinkDeleted(id: String) async throws -> LinkRecord? {
        let (updated, stored) = try await write { db -> (LinkRecord?, LinkRecord?) in
            guard var record = try LinkRecord.fetchOne(db, key: id) else { return (nil, nil) }
            guard record.status == .active else { return (nil, record) }
            record.status = .deleted
            try record.update(db)
            return (record, record)
        }
        if let stored { cache.put(stored) } else { cache.remove(id) }
        return updated
    }

    private static func insertRevocation(_ db: Database, id: String, generation: Int, at date: Date) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO revocations (linkId, generation, revokedAt) VALUES (?, ?, ?)",
            arguments: [id, generation, StoredDate.text(date)]
        )
    }

    /// How many links are stored.
    public func linkCount() async throws -> Int {
        try await read { db in try LinkRecord.fetchCount(db) }
    }

    /// Succeeds when the database answers.
    public func ping() async throws {
        _ = try await read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    // MARK: Clicks

    /// Adds counted clicks (called by the click flusher, off the request path).
    public func addClicks(_ clicks: [String: LinkClicks]) async throws {
        guard !clicks.isEmpty else { return }
        try await write { db in
            for (id, click) in clicks {
                try db.execute(
                    sql: """
                        INSERT INTO clicks (linkId, count, lastOpened) VALUES (?, ?, ?)
                        ON CONFLICT(linkId) DO UPDATE SET count = count + excluded.count,
                        lastOpened = MAX(COALESCE(lastOpened, excluded.lastOpened), excluded.lastOpened)
                        """,
                    arguments: [id, click.count, click.lastOpened.map(StoredDate.text)]
                )
            }
        }
    }

    /// The click statistics of a link (zero if never opened).
    public func clicks(linkID: String) async throws -> LinkClicks {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT count, lastOpened FROM clicks WHERE linkId = ?", arguments: [linkID]) else {
                return LinkClicks(count: 0, lastOpened: nil)
            }
            return LinkClicks(count: row["count"], lastOpened: StoredDate.date(row["lastOpened"]))
        }
    }

    // MARK: API keys

    /// Stores a new API key (its hash only).
    public func createAPIKey(_ key: APIKeyRecord) async throws {
        try await write { db in try key.insert(db) }
    }

    /// The API key with this secret hash, if it exists (revoked keys included; the caller checks).
    public func apiKey(secretHash: Data) async throws -> APIKeyRecord? {
        try await read { db in try APIKeyRecord.filter(Column("secretHash") == secretHash).fetchOne(db) }
    }

    /// Revokes an API key. Returns false when there is no such key.
    public func revokeAPIKey(id: String, at date: Date) async throws -> Bool {
        try await write { db in
            guard var key = try APIKeyRecord.fetchOne(db, key: id) else { return false }
            key.revoked = key.revoked ?? date
            try key.update(db)
            return true
        }
    }

    /// All API keys of a kind.
    public func apiKeys(kind: APIKeyKind) async throws -> [APIKeyRecord] {
        try await read { db in try APIKeyRecord.filter(Column("kind") == kind.rawValue).order(Column("created")).fetchAll(db) }
    }

    // MARK: Key records

    /// Every stored signing-key record.
    public func keyRecords() async throws -> [StoredKeyRecord] {
        try await read { db in try StoredKeyRecord.order(Column("app"), Column("kid")).fetchAll(db) }
    }

    /// Inserts or replaces signing-key records in one transaction.
    public func saveKeyRecords(_ records: [StoredKeyRecord]) async throws {
        try await write { db in
            for record in records { try record.save(db) }
        }
    }

    /// Runs `body` under this process's key lock (no other process shares the file).
    public func withKeyLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await keyLock.run(body)
    }

    // MARK: Other instances

    /// Zero: no other instance shares an embedded store.
    public var propagationBound: Duration { .zero }

    /// Nothing to follow: returns at once.
    public func synchronize(onKeysChanged: @escaping @Sendable () async -> Void) async throws {}

    /// None: no change feed.
    public var changeFeedVersion: Int64? { nil }

    /// Nothing to release: GRDB closes the pool with the store.
    public func close() async {}

    // MARK: Audit log

    /// Appends an audit entry.
    public func appendAudit(_ entry: AuditEntry) async throws {
        try await write { db in
            var entry = entry
            try entry.insert(db)
        }
    }

    /// The newest audit entries, newest first.
    public func auditLog(limit: Int) async throws -> [AuditEntry] {
        try await read { db in try AuditEntry.order(Column("seq").desc).limit(max(0, limit)).fetchAll(db) }
    }

    // MARK: Plumbing

    private func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do { return try await pool.read(body) } catch let error as LinkStoreError { throw error } catch {
            throw LinkStoreError(.storage, "read failed: \(error)")
        }
    }

    private func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do { return try await pool.write(body) } catch let error as LinkStoreError { throw error } catch {
            throw LinkStoreError(.storage, "write failed: \(error)")
        }
    }

    /// Blocking read, for `init` only.
    private func readNow<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try pool.read(body) } catch let error as LinkStoreError { throw error } catch {
            throw LinkStoreError(.storage, "read failed: \(error)")
        }
    }
}
