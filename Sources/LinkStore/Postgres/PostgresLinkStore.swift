import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The shared store on PostgreSQL, for many linkd instances behind one load balancer.
///
/// It keeps what the SQLite store keeps, in the same shape, and answers the hot path from memory the same way
/// (revocation set, bounded record cache). What one instance changes that others hold in memory — revocations,
/// signing keys, links marked deleted — is written with a row in `changes` under a commit-ordered version and
/// announced with `NOTIFY linkd_changes`. `synchronize` listens for the announcements and, as the safety net, polls
/// the feed every `syncInterval` and reloads everything every `fullResyncInterval` and after a lost connection.
///
/// Every database call gives up after `operationTimeout` with a `storage` error (the API answers 503), so a lost
/// database never hangs a request; the client reconnects by itself.
public final class PostgresLinkStore: LinkStorage {
    /// Revoked (link id, generation) pairs: loaded at open, kept current by this instance's writes and the feed.
    public let revocations = RevocationSet()
    /// Where the database is (no password).
    public let location: PostgresLocation
    /// How often the change feed is polled when no notification comes.
    public let syncInterval: Duration
    /// How often everything is reloaded regardless of the feed.
    public let fullResyncInterval: Duration
    /// The longest a database call may take before it fails.
    public let operationTimeout: Duration

    private let client: PostgresClient
    private let clientTask: Task<Void, Never>
    private let cache: LinkCache
    private let logger: Logger
    private let keyLock = AsyncLock()
    private let syncLock = AsyncLock()
    /// The highest change version applied here.
    private let seenVersion = Mutex<Int64>(0)
    /// After a lost connection or a timeout, calls fail at once until then (the feed's poll keeps probing), so a
    /// database that is away costs requests nothing but a 503.
    private let failFastUntil = Mutex<ContinuousClock.Instant?>(nil)
    /// How long calls fail fast after the database was found away.
    static let failFastWindow: Duration = .seconds(1)

    /// The channel of change announcements.
    static let channel = "linkd_changes"
    /// The advisory lock held while keys change.
    static let keyLockID: Int64 = 0x6C69_6E6B_6400_0002
    /// Changes older than this are pruned; an instance away longer reloads everything when it comes back.
    static let changeRetention: TimeInterval = 3600

    private init(
        location: PostgresLocation, client: PostgresClient, clientTask: Task<Void, Never>, cacheCapacity: Int,
        syncInterval: Duration, fullResyncInterval: Duration, operationTimeout: Duration, logger: Logger
    ) {
        self.location = location
        self.client = client
        self.clientTask = clientTask
        self.cache = LinkCache(capacity: cacheCapacity)
        self.syncInterval = syncInterval
        self.fullResyncInterval = fullResyncInterval
        self.operationTimeout = operationTimeout
        self.logger = logger
    }

    /// Connects, migrates the schema and loads the revocation set.
    /// - Parameters:
    ///   - url: a `postgres://` URL (see `PostgresLocation`).
    ///   - cacheCapacity: the most link records kept in memory.
    ///   - syncInterval: how often the change feed is polled besides notifications.
    public static func open(
        url: String, cacheCapacity: Int = 100_000, syncInterval: Duration = .seconds(2),
        fullResyncInterval: Duration = .seconds(300), operationTimeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "linkd.postgres")
    ) async throws -> PostgresLinkStore {
        let location = try PostgresLocation(url: url)
        // postgres-nio logs every failed reconnection attempt at info; linkd says it once, as a warning, itself.
        var driverLogger = logger
        driverLogger.logLevel = max(logger.logLevel, .warning)
        let client = PostgresClient(configuration: location.clientConfiguration, backgroundLogger: driverLogger)
        let task = Task { await client.run() }
        let store = PostgresLinkStore(
            location: location, client: client, clientTask: task, cacheCapacity: cacheCapacity, syncInterval: syncInterval,
            fullResyncInterval: fullResyncInterval, operationTimeout: operationTimeout, logger: logger)
        do {
            try await store.run("open the store at \(location)", timeout: .seconds(30)) {
                try await PostgresMigrations.migrate(client, logger: logger)
            }
            try await store.reloadRevocations()
        } catch {
            task.cancel()
            throw error
        }
        return store
    }

    /// Stops the connection pool.
    public func close() async {
        clientTask.cancel()
        _ = await clientTask.value
    }

    // MARK: Links

    /// Stores a new link. Throws `conflict` if the id exists.
    public func createLink(_ record: LinkRecord) async throws {
        let params = try Self.encodeParams(record.params)
        let inserted = try await run("create a link") { [client] in
            let rows = try await client.query("""
                INSERT INTO links (id, app, route, params, owner, title, created, expires, generation, status)
                VALUES (\(record.id), \(record.app), \(record.route), \(params), \(record.owner), \(record.title),
                \(record.created), \(record.expires), \(Int64(record.generation)), \(record.status.rawValue))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """)
            return try await rows.collect().count == 1
        }
        guard inserted else { throw LinkStoreError(.conflict, "link \(record.id) exists") }
        // Not cached here: the cache holds links being opened (a record is cached on its first read), not every
        // link made — most are opened rarely or never.
    }

    /// The link record (from the cache when present).
    public func link(id: String) async throws -> LinkRecord? {
        if let cached = cache.get(id) { return cached }
        let record = try await run("read a link") { [client] in
            let rows = try await client.query("SELECT \(unescaped: Self.linkColumns) FROM links WHERE id = \(id)")
            return try await Self.decodeLinks(rows).first
        }
        if let record { cache.put(record) }
        return record
    }

    /// The link record from memory only.
    public func cachedLink(id: String) -> LinkRecord? {
        cache.get(id)
    }

    /// Revokes a link and announces it. Returns the updated record, or nil if there is no such link.
    @discardableResult
    public func revokeLink(id: String, at date: Date) async throws -> LinkRecord? {
        let updated = try await run("revoke a link") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> LinkRecord? in
                let rows = try await connection.query(
                    "UPDATE links SET status = 'revoked' WHERE id = \(id) RETURNING \(unescaped: Self.linkColumns)",
                    logger: logger)
                guard let record = try await Self.decodeLinks(rows).first else { return nil }
                try await connection.query("""
                    INSERT INTO revocations (linkid, generation, revokedat) VALUES (\(record.id), \(Int64(record.generation)), \(date))
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
                try await Self.recordChange("revocation", of: record, connection, logger: logger)
                return record
            }
        }
        if let updated {
            cache.put(updated)
            revocations.insert(linkGenerations: [(updated.id, updated.generation)])
        }
        return updated
    }

    /// Revokes every active link of an owner in an app, announces it, and returns how many were revoked.
    public func revokeLinks(app: String, owner: String, at date: Date) async throws -> Int {
        let revoked = try await run("revoke an owner's links") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> [(String, Int)] in
                let version = try await Self.nextVersion(connection, logger: logger)
                let rows = try await connection.query("""
                    WITH revoked AS (
                      UPDATE links SET status = 'revoked' WHERE app = \(app) AND owner = \(owner) AND status = 'active'
                      RETURNING id, generation),
                    listed AS (
                      INSERT INTO revocations (linkid, generation, revokedat) SELECT id, generation, \(date) FROM revoked
                      ON CONFLICT DO NOTHING)
                    INSERT INTO changes (version, kind, app, subject, generation)
                    SELECT \(version), 'revocation', \(app), id, generation FROM revoked RETURNING subject, generation
                    """, logger: logger)
                var pairs: [(String, Int)] = []
                for try await (id, generation) in rows.decode((String, Int64).self) { pairs.append((id, Int(generation))) }
                if !pairs.isEmpty { try await Self.announce(version, connection, logger: logger) }
                return pairs
            }
        }
        if !revoked.isEmpty {
            for (id, _) in revoked { cache.remove(id) }
            revocations.insert(linkGenerations: revoked)
        }
        return revoked.count
    }

    /// Marks an active link deleted and announces it (other instances drop their cached record). Returns the
    /// updated record, or nil when there is no such link or it is not active (then the cached record is dropped, so
    /// the next read takes the stored one).
    public func markLinkDeleted(id: String) async throws -> LinkRecord? {
        let updated = try await run("mark a link deleted") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> LinkRecord? in
                let rows = try await connection.query(
                    "UPDATE links SET status = 'deleted' WHERE id = \(id) AND status = 'active' RETURNING \(unescaped: Self.linkColumns)",
                    logger: logger)
                guard let record = try await Self.decodeLinks(rows).first else { return nil }
                try await Self.recordChange("deletion", of: record, connection, logger: logger)
                return record
            }
        }
        if let updated { cache.put(updated) } else { cache.remove(id) }
        return updated
    }

    /// How many links are stored.
    public func linkCount() async throws -> Int {
        try await run("count links") { [client] in
            for try await count in try await client.query("SELECT count(*) FROM links").decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    /// Succeeds when the database answers, within 2 s (readiness).
    public func ping() async throws {
        try await run("ping", timeout: .seconds(2)) { [client] in _ = try await client.query("SELECT 1").collect() }
    }

    // MARK: Clicks

    /// Adds counted clicks; instances add to the same rows, so their counts sum exactly.
    public func addClicks(_ clicks: [String: LinkClicks]) async throws {
        guard !clicks.isEmpty else { return }
        try await run("add clicks") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                for (id, click) in clicks.sorted(by: { $0.key < $1.key }) {
                    try await connection.query("""
                        INSERT INTO clicks (linkid, count, lastopened) VALUES (\(id), \(Int64(click.count)), \(click.lastOpened))
                        ON CONFLICT (linkid) DO UPDATE SET count = clicks.count + excluded.count,
                        lastopened = GREATEST(clicks.lastopened, excluded.lastopened)
                        """, logger: logger)
                }
            }
        }
    }

    /// The click statistics of a link (zero if never opened).
    public func clicks(linkID: String) async throws -> LinkClicks {
        try await run("read clicks") { [client] in
            let rows = try await client.query("SELECT count, lastopened FROM clicks WHERE linkid = \(linkID)")
            for try await (count, last) in rows.decode((Int64, Date?).self) { return LinkClicks(count: Int(count), lastOpened: last) }
            return LinkClicks(count: 0, lastOpened: nil)
        }
    }

    // MARK: API keys

    /// Stores a new API key (its hash only). Other instances read keys from the database, so it is in force
    /// everywhere once this returns.
    public func createAPIKey(_ key: APIKeyRecord) async throws {
        try await run("create an API key") { [client] in
            try await client.query("""
                INSERT INTO api_keys (id, kind, app, label, secrethash, created, revoked)
                VALUES (\(key.id), \(key.kind.rawValue), \(key.app), \(key.label), \(key.secretHash), \(key.created), \(key.revoked))
                """)
        }
    }

    /// The API key with this secret hash (revoked keys included; the caller checks).
    public func apiKey(secretHash: Data) async throws -> APIKeyRecord? {
        try await run("read an API key") { [client] in
            try await Self.decodeAPIKeys(client.query("SELECT \(unescaped: Self.apiKeyColumns) FROM api_keys WHERE secrethash = \(secretHash)")).first
        }
    }

    /// Revokes an API key. Returns false when there is no such key.
    public func revokeAPIKey(id: String, at date: Date) async throws -> Bool {
        try await run("revoke an API key") { [client] in
            let rows = try await client.query("UPDATE api_keys SET revoked = COALESCE(revoked, \(date)) WHERE id = \(id) RETURNING id")
            return try await rows.collect().count == 1
        }
    }

    /// All API keys of a kind, oldest first.
    public func apiKeys(kind: APIKeyKind) async throws -> [APIKeyRecord] {
        try await run("list API keys") { [client] in
            try await Self.decodeAPIKeys(client.query(
                "SELECT \(unescaped: Self.apiKeyColumns) FROM api_keys WHERE kind = \(kind.rawValue) ORDER BY created, id"))
        }
    }

    // MARK: Key records

    /// Every stored signing-key record.
    public func keyRecords() async throws -> [StoredKeyRecord] {
        try await run("read key records") { [client] in
            var records: [StoredKeyRecord] = []
            for try await (app, kid, record) in try await client.query("SELECT app, kid, record FROM key_records ORDER BY app, kid")
                .decode((String, Int64, Data).self)
            {
                records.append(StoredKeyRecord(app: app, kid: kid, record: record))
            }
            return records
        }
    }

    /// Inserts or replaces signing-key records in one transaction and announces the change to other instances.
    public func saveKeyRecords(_ records: [StoredKeyRecord]) async throws {
        guard !records.isEmpty else { return }
        try await run("save key records") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                let version = try await Self.nextVersion(connection, logger: logger)
                for record in records {
                    try await connection.query("""
                        INSERT INTO key_records (app, kid, record) VALUES (\(record.app), \(record.kid), \(record.record))
                        ON CONFLICT (app, kid) DO UPDATE SET record = excluded.record
                        """, logger: logger)
                    try await connection.query("""
                        INSERT INTO changes (version, kind, app, subject, generation)
                        VALUES (\(version), 'keys', \(record.app), \(String(record.kid)), 0)
                        """, logger: logger)
                }
                try await Self.announce(version, connection, logger: logger)
            }
        }
    }

    /// Runs `body` holding a session advisory lock, so no two instances change keys at once. The lock goes with
    /// its connection: an instance that dies holding it releases it.
    public func withKeyLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await keyLock.run { [client, logger] in
            try await ping()  // fail fast (503) when the database is away, rather than wait for a connection
            return try await client.withConnection { connection in
                try await connection.query("SELECT pg_advisory_lock(\(Self.keyLockID))", logger: logger)
                do {
                    let value = try await body()
                    try await connection.query("SELECT pg_advisory_unlock(\(Self.keyLockID))", logger: logger)
                    return value
                } catch {
                    _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.keyLockID))", logger: logger)
                    throw error
                }
            }
        }
    }

    // MARK: Audit log

    /// Appends an audit entry.
    public func appendAudit(_ entry: AuditEntry) async throws {
        try await run("append to the audit log") { [client] in
            try await client.query(
                "INSERT INTO audit_log (at, actor, action, detail) VALUES (\(entry.at), \(entry.actor), \(entry.action), \(entry.detail))")
        }
    }

    /// The newest audit entries, newest first.
    public func auditLog(limit: Int) async throws -> [AuditEntry] {
        try await run("read the audit log") { [client] in
            var entries: [AuditEntry] = []
            let rows = try await client.query(
                "SELECT seq, at, actor, action, detail FROM audit_log ORDER BY seq DESC LIMIT \(Int64(max(0, limit)))")
            for try await (seq, at, actor, action, detail) in rows.decode((Int64, Date, String, String, String).self) {
                entries.append(AuditEntry(seq: seq, at: at, actor: actor, action: action, detail: detail))
            }
            return entries
        }
    }

    // MARK: Other instances

    /// A change made elsewhere is applied here within this time while the database answers: notifications
    /// arrive in milliseconds; the poll every `syncInterval` (plus one database call) bounds a missed one.
    public var propagationBound: Duration { syncInterval + .seconds(1) }

    /// The highest change version applied here.
    public var changeFeedVersion: Int64? { seenVersion.withLock { $0 } }

    /// Follows the change feed until cancelled: a listening connection (reconnected after a loss, with a full
    /// reload then) and a poll every `syncInterval`, with a full reload every `fullResyncInterval`.
    public func synchronize(onKeysChanged: @escaping @Sendable () async -> Void) async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.listenLoop(onKeysChanged) }
            group.addTask { await self.pollLoop(onKeysChanged) }
            await group.waitForAll()
        }
    }

    private func listenLoop(_ onKeysChanged: @escaping @Sendable () async -> Void) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        // Listening now: a full reload covers whatever happened while no one listened.
                        try await self.fullResync(onKeysChanged)
                        failures = 0
                        for try await _ in notifications {
                            try await self.catchUp(onKeysChanged)
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                failures += 1
                if failures == 1 { logger.warning("lost the change feed; reconnecting", metadata: ["error": "\(error)"]) }
            }
            try? await Task.sleep(for: .milliseconds(min(5000, 250 * (1 << min(failures, 5)))))
        }
    }

    private func pollLoop(_ onKeysChanged: @escaping @Sendable () async -> Void) async {
        var lastFull = ContinuousClock.now
        var lastPrune = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: syncInterval)
            if Task.isCancelled { return }
            do {
                if ContinuousClock.now - lastFull >= fullResyncInterval {
                    try await fullResync(onKeysChanged)
                    lastFull = .now
                } else {
                    try await catchUp(onKeysChanged)
                }
                if ContinuousClock.now - lastPrune >= .seconds(60) {
                    try await pruneChanges()
                    lastPrune = .now
                }
            } catch {
                logger.debug("change poll failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Applies every change newer than the last one applied.
    func catchUp(_ onKeysChanged: @Sendable () async -> Void) async throws {
        let keysChanged = try await syncLock.run { [client] in
            let seen = seenVersion.withLock { $0 }
            return try await run("read the change feed") {
                let rows = try await client.query(
                    "SELECT version, kind, subject, generation FROM changes WHERE version > \(seen) ORDER BY version")
                var highest = seen
                var keys = false
                var revoked: [RevocationKey] = []
                for try await (version, kind, subject, generation) in rows.decode((Int64, String, String, Int64).self) {
                    highest = max(highest, version)
                    switch kind {
                    case "revocation":
                        if let key = RevocationKey(hex: subject, generation: UInt32(truncatingIfNeeded: generation)) { revoked.append(key) }
                        self.cache.remove(subject)
                    case "deletion": self.cache.remove(subject)
                    case "keys": keys = true
                    default: break
                    }
                }
                self.revocations.insert(revoked)
                self.seenVersion.withLock { $0 = max($0, highest) }
                return keys
            }
        }
        if keysChanged { await onKeysChanged() }
    }

    /// Reloads everything: the revocation set (added to; a revocation is never undone), the record cache
    /// (dropped) and the keys (through `onKeysChanged`).
    func fullResync(_ onKeysChanged: @Sendable () async -> Void) async throws {
        try await syncLock.run {
            try await reloadRevocations()
            self.cache.removeAll()
        }
        await onKeysChanged()
    }

    /// Streams the revocations table into the set, after noting the feed's version (so that nothing committed
    /// during the load is missed: the feed is read from there on).
    private func reloadRevocations() async throws {
        try await run("load revocations", timeout: .seconds(120)) { [client] in
            var version: Int64 = 0
            for try await value in try await client.query("SELECT version FROM change_counter WHERE id = 1").decode(Int64.self) {
                version = value
            }
            var batch: [RevocationKey] = []
            batch.reserveCapacity(4096)
            for try await (id, generation) in try await client.query("SELECT linkid, generation FROM revocations").decode((String, Int64).self) {
                if let key = RevocationKey(hex: id, generation: UInt32(truncatingIfNeeded: generation)) { batch.append(key) }
                if batch.count == 4096 {
                    self.revocations.insert(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            self.revocations.insert(batch)
            self.seenVersion.withLock { $0 = max($0, version) }
        }
    }

    private func pruneChanges() async throws {
        try await run("prune the change feed") { [client] in
            let cutoff = Date().addingTimeInterval(-Self.changeRetention)
            try await client.query("DELETE FROM changes WHERE at < \(cutoff)")
        }
    }

    /// The next change version; its row lock is held until commit, so versions become visible in order.
    private static func nextVersion(_ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(
            "UPDATE change_counter SET version = version + 1 WHERE id = 1 RETURNING version", logger: logger)
        for try await version in rows.decode(Int64.self) { return version }
        throw LinkStoreError(.storage, "the change counter is missing")
    }

    /// Writes one link's change (`revocation`, `deletion`) to the feed under a new version and announces it.
    private static func recordChange(
        _ kind: String, of record: LinkRecord, _ connection: PostgresConnection, logger: Logger
    ) async throws {
        let version = try await nextVersion(connection, logger: logger)
        try await connection.query("""
            INSERT INTO changes (version, kind, app, subject, generation)
            VALUES (\(version), \(kind), \(record.app), \(record.id), \(Int64(record.generation)))
            """, logger: logger)
        try await announce(version, connection, logger: logger)
    }

    /// Announces a change version (delivered to listeners at commit).
    private static func announce(_ version: Int64, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(channel), \(String(version)))", logger: logger)
    }

    // MARK: Rows

    private static let linkColumns = "id, app, route, params, owner, title, created, expires, generation, status"
    private static let apiKeyColumns = "id, kind, app, label, secrethash, created, revoked"

    private static func decodeLinks(_ rows: PostgresRowSequence) async throws -> [LinkRecord] {
        var records: [LinkRecord] = []
        for try await row in rows {
            let (id, app, route, params, owner, title, created, expires, generation, status) = try row.decode(
                (String, String, String, String, String?, String?, Date, Date, Int64, String).self)
            guard let status = LinkRecordStatus(rawValue: status) else {
                throw LinkStoreError(.storage, "link \(id) has an unknown status \(status)")
            }
            records.append(LinkRecord(
                id: id, app: app, route: route, params: try decodeParams(params, id: id), owner: owner, title: title,
                created: created, expires: expires, generation: Int(generation), status: status))
        }
        return records
    }

    private static func decodeAPIKeys(_ rows: PostgresRowSequence) async throws -> [APIKeyRecord] {
        var records: [APIKeyRecord] = []
        for try await (id, kind, app, label, hash, created, revoked) in rows.decode((String, String, String?, String, Data, Date, Date?).self) {
            guard let kind = APIKeyKind(rawValue: kind) else { throw LinkStoreError(.storage, "API key \(id) has an unknown kind") }
            records.append(APIKeyRecord(id: id, kind: kind, app: app, label: label, secretHash: hash, created: created, revoked: revoked))
        }
        return records
    }

    private static func encodeParams(_ params: [String: String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(params), as: UTF8.self)
    }

    private static func decodeParams(_ text: String, id: String) throws -> [String: String] {
        do { return try JSONDecoder().decode([String: String].self, from: Data(text.utf8)) } catch {
            throw LinkStoreError(.storage, "link \(id) has unreadable params")
        }
    }

    // MARK: Plumbing

    /// Runs a database call with a deadline: past `timeout` (default `operationTimeout`) the caller gets a
    /// `storage` error at once while the call is cancelled in the background. While the database is known to be
    /// away (`failFastUntil`), the call is not tried.
    private func run<T: Sendable>(
        _ what: String, timeout: Duration? = nil, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        if let until = failFastUntil.withLock({ $0 }), ContinuousClock.now < until {
            throw LinkStoreError(.storage, "\(what): the database is unavailable; reconnecting")
        }
        let limit = timeout ?? operationTimeout
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let once = ResumeOnce(continuation)
            let work = Task {
                do {
                    let value = try await body()
                    self.failFastUntil.withLock { $0 = nil }
                    once.resume(with: .success(value))
                } catch let error as LinkStoreError {
                    once.resume(with: .failure(error))
                } catch {
                    if Self.isConnectionLoss(error) { self.failFastUntil.withLock { $0 = .now + Self.failFastWindow } }
                    once.resume(with: .failure(LinkStoreError(.storage, "\(what) failed: \(Self.describe(error))")))
                }
            }
            Task {
                try? await Task.sleep(for: limit)
                if once.resume(with: .failure(LinkStoreError(.storage, "\(what): the database did not answer within \(limit)"))) {
                    self.failFastUntil.withLock { $0 = .now + Self.failFastWindow }
                    work.cancel()
                }
            }
        }
    }

    /// Whether `error` means the database is away (as opposed to a refused statement).
    private static func isConnectionLoss(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        if [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed].contains(error.code) {
            return true
        }
        // Class 08 (connection exception) and 57P (operator intervention: shutting down, starting up).
        let state = error.serverInfo?[.sqlState] ?? ""
        return state.hasPrefix("08") || state.hasPrefix("57P")
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        return "\(error)"
    }
}

/// Resumes a continuation once; later attempts are ignored.
final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>

    init(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation = Mutex(continuation)
    }

    /// Resumes with `result` if no one has; true when this call did.
    @discardableResult
    func resume(with result: Result<T, any Error>) -> Bool {
        guard let continuation = continuation.withLock({ value -> CheckedContinuation<T, any Error>? in
            defer { value = nil }
            return value
        }) else { return false }
        continuation.resume(with: result)
        return true
    }
}
