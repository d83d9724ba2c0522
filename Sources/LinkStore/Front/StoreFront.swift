public import Foundation
public import Logging
import Synchronization

/// What linkd asks of its store, whatever the database behind it: the memory front over a `StoreBackend`.
///
/// Hot-path reads (`cachedLink`, `isRevoked`, `revocations`) answer from memory; everything else may touch the
/// database and is `async`. The memory is kept here once, for every backend:
/// - a `LinkCache` of link records, bounded by records and by bytes (records packed, about 70 bytes each), found by
///   id or short id: a record is cached on its first read (`link(id:)`), not on create (most links are opened
///   rarely or never), and — for the daemon — the store's active links are put in at open, in the background,
///   newest first, until it is nine tenths full (`warmLinkCache`); a revocation or a deletion caches the updated
///   record; an owner-wide revocation drops exactly the records it changed; a deletion that changed nothing drops
///   the cached record;
/// - the `ShortIDIndex`: which link a short id made here names before its record is read, and the short ids the
///   store lacked, each believed for `unknownShortIDWindow` (so an unknown short id costs one store read per window);
/// - the `RevocationSet`: loaded at open or just after it (`RevocationLoading`; streamed in batches), added to by every
///   revocation, here or — through the change feed of a shared backend — on another instance (`synchronize`).
public final class StoreFront: Sendable {
    /// The database behind the front (a `SQLiteBackend`, a `PostgresBackend`, or a test's wrapper of one).
    public let backend: any StoreBackend
    /// Revoked (link id, generation) pairs: loaded at open, kept current by this instance's writes and the feed.
    public let revocations = RevocationSet()

    let cache: LinkCache
    /// Whether the link cache is filled from the store at open and after it was emptied (`warmLinkCache`).
    let warmsLinkCache: Bool
    /// Whether a warm-up runs, and whether another was asked for meanwhile (`requestWarmup`).
    let warmup = Mutex(WarmupState())
    /// Short id → link id, and the short ids the store lacked lately.
    let shortIDs: ShortIDIndex
    /// The store reads of short ids under way: a request for a short id already being read waits for that read.
    let shortIDReads = Mutex<[String: Task<LinkRecord?, any Error>]>([:])
    /// (App, custom path) → the link holding it, or none, each believed for `customPathWindow`.
    let customPaths: CustomPathIndex
    /// The store reads of custom paths under way, by `CustomPathIndex.key`.
    let customPathReads = Mutex<[String: Task<LinkRecord?, any Error>]>([:])
    let logger: Logger
    /// Held while the feed's changes or a full reload are applied, so two never interleave.
    let syncLock = AsyncLock()
    /// The highest change version applied here.
    let seenVersion = Mutex<Int64>(0)
    /// Set by `close`: a background load of the revocation set stops retrying.
    let closed = Atomic<Bool>(false)
    /// When the front was opened.
    let openedAt = ContinuousClock.now

    /// When the revocation set is loaded from the store.
    public enum RevocationLoading: Sendable {
        /// Before the open returns (a failure fails the open): the CLI and tools.
        case atOpen
        /// After the open returns, retried every second until it succeeds or the store is closed: the daemon,
        /// whose listener then opens without waiting for a million rows. Until it is loaded, a token is judged by
        /// its link record read from the store (`RevocationSet.isLoaded`), and `/readyz` says not ready.
        case inBackground
    }

    /// A front over `backend`: loads the revocation set (and, shared, notes the feed's version first), at open or
    /// in the background (`revocationLoading`).
    /// - Parameters:
    ///   - backend: the database; the front does not close it when this throws.
    ///   - cacheCapacity: the most link records kept in memory.
    ///   - cacheBytes: the most bytes the link cache takes.
    ///   - logger: where following the change feed logs.
    ///   - revocationLoading: when the revocation set is loaded.
    ///   - warmsLinkCache: whether the store's active links are put into the link cache in the background.
    public init(
        backend: any StoreBackend, cacheCapacity: Int = 100_000, cacheBytes: Int = LinkCache.defaultMaxBytes,
        logger: Logger = Logger(label: "linkd.store"), revocationLoading: RevocationLoading = .atOpen, warmsLinkCache: Bool = false
    ) async throws {
        self.backend = backend
        self.cache = LinkCache(capacity: cacheCapacity, maxBytes: cacheBytes)
        self.warmsLinkCache = warmsLinkCache
        self.shortIDs = ShortIDIndex(
            capacity: min(cacheCapacity, Self.knownShortIDCapacity), unknownCapacity: Self.unknownShortIDCapacity,
            unknownWindow: Self.unknownShortIDWindow)
        self.customPaths = CustomPathIndex(capacity: Self.customPathCapacity, window: Self.customPathWindow)
        self.logger = logger
        // A shared store's feed version before anything is read: the first listening catches up from it.
        if backend.schedule != nil {
            let version = try await backend.currentVersion()
            seenVersion.withLock { $0 = max($0, version) }
        }
        switch revocationLoading {
        case .atOpen: try await loadRevocations()
        case .inBackground: Task { await self.loadRevocationsUntilLoaded() }
        }
        requestWarmup()
    }

    /// `loadRevocations`, retried every second after a failure (logged), until it succeeds or the store is closed.
    private func loadRevocationsUntilLoaded() async {
        let started = ContinuousClock.now
        while !closed.load(ordering: .acquiring) {
            do {
                try await loadRevocations()
                let took = (ContinuousClock.now - started).components
                let milliseconds = took.seconds * 1000 + took.attoseconds / 1_000_000_000_000_000
                logger.info("revocation set loaded", metadata: ["revocations": "\(revocations.count)", "milliseconds": "\(milliseconds)"])
                return
            } catch {
                logger.warning("loading the revocation set failed; retrying in 1 s", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Opens a store: the one way one is opened (the daemon, the CLI, the tests).
    /// - Parameters:
    ///   - place: where it is: SQLite (created and migrated if needed) or PostgreSQL (connected, migrated).
    ///   - cacheCapacity: the most link records kept in memory.
    ///   - cacheBytes: the most bytes the link cache takes.
    ///   - logger: where the store (and the database driver) log.
    ///   - wrapBackend: wraps the opened backend (the tests inject faults there); identity by default.
    ///   - revocationLoading: when the revocation set is loaded (default: before this returns).
    ///   - warmsLinkCache: whether the store's active links are put into the link cache in the background (default:
    ///     no; the daemon does).
    /// A front that fails to load (the revocation set) closes the backend it opened before it throws.
    public static func open(
        _ place: StorePlace, cacheCapacity: Int = 100_000, cacheBytes: Int = LinkCache.defaultMaxBytes,
        logger: Logger = Logger(label: "linkd.store"), revocationLoading: RevocationLoading = .atOpen, warmsLinkCache: Bool = false,
        wrapBackend: (any StoreBackend) -> any StoreBackend = { $0 }
    ) async throws -> StoreFront {
        let backend: any StoreBackend
        switch place {
        case .sqlite(let path):
            backend = try SQLiteBackend(path: path, logger: logger)
        case .postgres(let url, let timing):
            backend = try await PostgresBackend.open(
                url: url, syncInterval: timing.syncInterval, fullResyncInterval: timing.fullResyncInterval,
                operationTimeout: timing.operationTimeout, logger: logger)
        }
        do {
            return try await StoreFront(
                backend: wrapBackend(backend), cacheCapacity: cacheCapacity, cacheBytes: cacheBytes, logger: logger,
                revocationLoading: revocationLoading, warmsLinkCache: warmsLinkCache)
        } catch {
            await backend.close()
            throw error
        }
    }

    /// Where the data is, for logs (a file path, or the PostgreSQL URL without its password).
    public var location: String { backend.description }

    /// Releases the backend's connections (PostgreSQL: ends its connection pool); the store answers no more
    /// database calls after it. The server calls it at graceful shutdown, after the last click flush.
    public func close() async {
        closed.store(true, ordering: .releasing)
        await backend.close()
    }

    /// Succeeds when the database answers (readiness).
    public func ping() async throws {
        try await backend.ping()
    }

    /// How long a short id the store did not have is answered as unknown from memory. It bounds the store reads an
    /// unknown short id costs (one per id and window) and how long a link made on another instance stays hidden
    /// behind its short id when someone asked for that id before it existed (a guess of one in 2^65).
    public static let unknownShortIDWindow: Duration = .seconds(60)
    /// The most short ids of links made here remembered without their records (a cached record is found by its
    /// short id in the link cache itself).
    public static let knownShortIDCapacity = 20_000
    /// The most unknown short ids remembered (older ones go first: they only cost one more read).
    public static let unknownShortIDCapacity = 100_000

    // MARK: Links

    /// Stores a new link. Throws `conflict` if the id or the short id exists. Not cached: a record is cached on its
    /// first read (its short id is known at once).
    public func createLink(_ record: LinkRecord) async throws {
        try await backend.insertLink(record)
        if let shortID = record.shortID { shortIDs.put(shortID, linkID: record.id) }
        noteCustomPath(of: record)
    }

    /// The link record (from the cache when present, else read and cached), nil when there is none.
    public func link(id: String) async throws -> LinkRecord? {
        if let cached = cache.get(id) { return cached }
        guard let record = try await backend.fetchLink(id: id) else { return nil }
        cache.put(record)
        return record
    }

    /// How many link records the cache holds.
    public var cachedLinkCount: Int { cache.count }

    /// The bytes the link cache takes.
    public var cachedLinkBytes: Int { cache.bytes }

    /// The link record from memory only; nil when not cached (the caller then decides).
    public func cachedLink(id: String) -> LinkRecord? {
        cache.get(id)
    }

    /// The link with this short id: from memory when it knows (the record cached; an id the store lacked within
    /// `unknownShortIDWindow`: nil without a read), else read and remembered — the record cached, or the short id
    /// noted unknown. Concurrent requests for one short id share one read.
    public func link(shortID: String) async throws -> LinkRecord? {
        if let record = cache.get(shortID: shortID) { return record }
        switch shortIDs.lookup(shortID) {
        case .link(let id):
            return try await link(id: id)
        case .unknown:
            return nil
        case .miss:
            // One read per short id at a time: requests that ask for it meanwhile share its answer.
            let read = shortIDReads.withLock { reads in
                if let running = reads[shortID] { return running }
                let task = Task { try await self.readShortID(shortID) }
                reads[shortID] = task
                return task
            }
            let result = await read.result
            shortIDReads.withLock { reads in
                if reads[shortID] == read { reads[shortID] = nil }
            }
            return try result.get()
        }
    }

    /// Reads a short id's link from the store and remembers the answer: the record cached (found by its short id
    /// from then on), or the id unknown.
    private func readShortID(_ shortID: String) async throws -> LinkRecord? {
        guard let record = try await backend.fetchLink(shortID: shortID) else {
            shortIDs.putUnknown(shortID)
            return nil
        }
        cache.put(record)
        return record
    }

    /// What memory alone says of a short id.
    public enum CachedShortLink: Sendable, Equatable {
        /// The link's cached record.
        case record(LinkRecord)
        /// The store lacked the short id within `unknownShortIDWindow`.
        case unknown
        /// Memory does not know: `link(shortID:)` reads the store.
        case miss
    }

    /// The link with this short id from memory only (the caller reads the store on `miss`).
    public func cachedLink(shortID: String) -> CachedShortLink {
        if let record = cache.get(shortID: shortID) { return .record(record) }
        return switch shortIDs.lookup(shortID) {
        case .link(let id): cache.get(id).map { .record($0) } ?? .miss
        case .unknown: .unknown
        case .miss: .miss
        }
    }

    /// Whether this generation of the link is revoked (memory only).
    public func isRevoked(linkID: String, generation: UInt32) -> Bool {
        guard let key = RevocationKey(hex: linkID, generation: generation) else { return false }
        return revocations.contains(key)
    }

    /// Revokes a link (caching the updated record), writing `audit` in the same transaction; the updated record,
    /// or nil (nothing written) if there is no such link.
    @discardableResult
    public func revokeLink(id: String, at date: Date, audit: AuditEntry? = nil) async throws -> LinkRecord? {
        guard let updated = try await backend.revokeLink(id: id, at: date, audit: audit) else { return nil }
        cache.put(updated)
        revocations.insert(linkGenerations: [(updated.id, updated.generation)])
        return updated
    }

    /// Revokes a link now.
    @discardableResult
    public func revokeLink(id: String) async throws -> LinkRecord? {
        try await revokeLink(id: id, at: Date())
    }

    /// Revokes every active link of an owner in an app (dropping exactly those from the cache), writing the audit
    /// entry `audit` makes of the count in the same transaction; how many were revoked.
    public func revokeLinks(
        app: String, owner: String, at date: Date, audit: (@Sendable (_ revoked: Int) -> AuditEntry)? = nil
    ) async throws -> Int {
        let revoked = try await backend.revokeLinks(app: app, owner: owner, at: date, audit: audit)
        for (id, _) in revoked { cache.remove(id) }
        revocations.insert(linkGenerations: revoked)
        return revoked.count
    }

    /// Revokes every active link of an owner in an app, now.
    public func revokeLinks(app: String, owner: String) async throws -> Int {
        try await revokeLinks(app: app, owner: owner, at: Date())
    }

    /// Marks an active link `deleted` for good (its origin says the item is gone) and keeps the cache current:
    /// the updated record, or nil when nothing changed — no such link, or it is not active (already deleted, or
    /// revoked); then the cached record is dropped, so the next read takes the stored one. Only one call per link
    /// ever returns a record, on any number of instances. The entry `audit` makes of the updated record is written
    /// with the change, in its transaction.
    public func markLinkDeleted(id: String, audit: (@Sendable (LinkRecord) -> AuditEntry)? = nil) async throws -> LinkRecord? {
        let updated = try await backend.markLinkDeleted(id: id, audit: audit)
        if let updated { cache.put(updated) } else { cache.remove(id) }
        return updated
    }

    /// How many links are stored.
    public func linkCount() async throws -> Int {
        try await backend.countLinks()
    }

    // MARK: Clicks

    /// The stored click statistics of a link (zero if never opened).
    public func clicks(linkID: String) async throws -> LinkClicks {
        try await backend.fetchClicks(linkID: linkID)
    }

    // MARK: API keys

    /// Stores a new API key (its hash only), with `audit` in the same transaction.
    public func createAPIKey(_ key: APIKeyRecord, audit: AuditEntry? = nil) async throws {
        try await backend.insertAPIKey(key, audit: audit)
    }

    /// The API key with this secret hash (revoked keys included; the caller checks).
    public func apiKey(secretHash: Data) async throws -> APIKeyRecord? {
        try await backend.fetchAPIKey(secretHash: secretHash)
    }

    /// Revokes an API key, with `audit` in the same transaction; false (nothing written) when there is no such key.
    public func revokeAPIKey(id: String, at date: Date, audit: AuditEntry? = nil) async throws -> Bool {
        try await backend.revokeAPIKey(id: id, at: date, audit: audit)
    }

    /// Revokes an API key now.
    public func revokeAPIKey(id: String) async throws -> Bool {
        try await revokeAPIKey(id: id, at: Date())
    }

    /// Every API key, admin and client, oldest first.
    public func allAPIKeys() async throws -> [APIKeyRecord] {
        try await (apiKeys(kind: .admin) + apiKeys(kind: .client)).sorted { $0.created < $1.created }
    }

    /// All API keys of a kind, oldest first.
    public func apiKeys(kind: APIKeyKind) async throws -> [APIKeyRecord] {
        try await backend.fetchAPIKeys(kind: kind)
    }

    // MARK: Signing keys

    /// Every stored signing-key record.
    public func keyRecords() async throws -> [StoredKeyRecord] {
        try await backend.fetchKeyRecords()
    }

    /// Inserts or replaces signing-key records and writes `audit`, all or none; other instances learn of it through
    /// the change feed.
    public func saveKeyRecords(_ records: [StoredKeyRecord], audit: AuditEntry? = nil) async throws {
        try await backend.saveKeyRecords(records, audit: audit)
    }

    /// Runs `body` holding the store-wide key lock, so that two instances never change keys at once.
    public func withKeyLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await backend.withKeyLock(body)
    }

    // MARK: Backups

    /// A consistent copy of the embedded store in the new file `path`, made while it serves; its size in bytes
    /// (`StoreBackend.backup`). `unsupported` on PostgreSQL.
    public func backup(to path: String) async throws -> Int {
        try await backend.backup(to: path)
    }

    // MARK: Audit log

    /// Appends an audit entry that records no change (an action's own entry goes with it: the `audit` parameters),
    /// such as a backup's.
    public func appendAudit(_ entry: AuditEntry) async throws {
        try await backend.appendAudit(entry)
    }

    /// The newest audit entries, newest first.
    public func auditLog(limit: Int) async throws -> [AuditEntry] {
        try await backend.fetchAuditLog(limit: limit)
    }
}
