import AsyncTimeouts
import Foundation
public import Logging
import PostgresNIO
import Synchronization

/// The shared database on PostgreSQL, for many linkd instances behind one load balancer. SQL only: the memory
/// (record cache, revocation set) and the following of the change feed are `StoreFront`'s.
///
/// It keeps what the SQLite backend keeps, in the same shape. What one instance changes that others hold in
/// memory — revocations, signing keys, links marked deleted — is written with a row in `changes` under a
/// commit-ordered version and announced with `NOTIFY linkd_changes` (see `PostgresBackend+Feed.swift`).
///
/// Every database call gives up after `operationTimeout` with a `storage` error (the API answers 503), so a lost
/// database never hangs a request; the client reconnects by itself.
///
/// The connection pool (`PostgresClient.run()`) runs in a task this backend owns: `open` starts it, because the
/// migrations need a running pool, and only `close()` ends it. The server closes the store at graceful shutdown,
/// after the last click flush; a failed `open` closes it before throwing.
public final class PostgresBackend: StoreBackend {
    /// Where the database is (no password).
    public let location: PostgresLocation
    /// How often the change feed is polled when no notification comes.
    public let syncInterval: Duration
    /// How often everything is reloaded regardless of the feed.
    public let fullResyncInterval: Duration
    /// The longest a database call may take before it fails.
    public let operationTimeout: Duration

    let client: PostgresClient
    let logger: Logger
    /// The connection pool's `run()`: from `open` until `close()`.
    private let poolTask: Task<Void, Never>
    private let keyLock = AsyncLock()
    /// After a lost connection or a timeout, calls fail at once until then (the feed's poll keeps probing), so a
    /// database that is away costs requests nothing but a 503.
    private let failFastUntil = Mutex<ContinuousClock.Instant?>(nil)
    /// How long calls fail fast after the database was found away.
    static let failFastWindow: Duration = .seconds(1)

    private init(
        location: PostgresLocation, client: PostgresClient, syncInterval: Duration, fullResyncInterval: Duration,
        operationTimeout: Duration, logger: Logger
    ) {
        self.location = location
        self.client = client
        self.poolTask = Task { await client.run() }
        self.syncInterval = syncInterval
        self.fullResyncInterval = fullResyncInterval
        self.operationTimeout = operationTimeout
        self.logger = logger
    }

    /// Starts the connection pool and migrates the schema (within 30 s).
    /// - Parameters:
    ///   - url: a `postgres://` URL (see `PostgresLocation`).
    ///   - syncInterval: how often the change feed is polled besides notifications.
    ///   - fullResyncInterval: how often everything is reloaded regardless of the feed.
    ///   - operationTimeout: the longest a database call may take before it fails with a `storage` error.
    ///   - logger: where the backend and the database driver log (the driver at warning and above).
    public static func open(
        url: String, syncInterval: Duration = .seconds(2), fullResyncInterval: Duration = .seconds(300),
        operationTimeout: Duration = .seconds(5), logger: Logger = Logger(label: "linkd.postgres")
    ) async throws -> PostgresBackend {
        let location = try PostgresLocation(url: url)
        // postgres-nio logs every failed reconnection attempt at info; linkd says it once, as a warning, itself.
        var driverLogger = logger
        driverLogger.logLevel = max(logger.logLevel, .warning)
        let client = PostgresClient(configuration: location.clientConfiguration, backgroundLogger: driverLogger)
        let backend = PostgresBackend(
            location: location, client: client, syncInterval: syncInterval, fullResyncInterval: fullResyncInterval,
            operationTimeout: operationTimeout, logger: logger)
        do {
            try await backend.run("open the store at \(location)", timeout: .seconds(30)) {
                _ = try await client.query("SELECT 1").collect()
            }
            // The database answered: its migrations take what they take (a rollup's backfill over a year of day rows
            // takes minutes), each one logged as it starts, and an instance starting meanwhile waits for them.
            try await backend.run("migrate the store at \(location)", timeout: Self.migrationTimeLimit) {
                try await PostgresMigrations.migrate(client, logger: logger)
            }
        } catch {
            await backend.close()
            throw error
        }
        return backend
    }

    /// The longest a start waits for the migrations (its own or another instance's) before it gives up.
    static let migrationTimeLimit: Duration = .seconds(6 * 3600)

    /// The URL without its password.
    public var description: String { location.description }

    /// Stops the connection pool (the end of the task `open` started); the backend answers no more calls after it.
    public func close() async {
        poolTask.cancel()
        _ = await poolTask.value
    }

    /// No copy from here: the database is the operator's, backed up with PostgreSQL's own tools.
    public func backup(to path: String) async throws -> Int {
        throw LinkStoreError(.unsupported, "the store is PostgreSQL: back it up with pg_dump or your database's own backups "
            + "(and keep the master key: docs/deploy.md, \"Backups\")")
    }

    /// Succeeds when the database answers, within 2 s (readiness).
    public func ping() async throws {
        try await run("ping", timeout: .seconds(2)) { [client] in _ = try await client.query("SELECT 1").collect() }
    }

    // MARK: Key records

    /// Every stored signing-key record.
    public func fetchKeyRecords() async throws -> [StoredKeyRecord] {
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

    /// Inserts or replaces signing-key records, with `audit`, in one transaction and announces the change to other
    /// instances.
    public func saveKeyRecords(_ records: [StoredKeyRecord], audit: AuditEntry?) async throws {
        guard !records.isEmpty || audit != nil else { return }
        try await run("save key records") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.insertAudit(audit, connection, logger: logger)
                guard !records.isEmpty else { return }
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

    /// The advisory lock held while keys change.
    static let keyLockID: Int64 = 0x6C69_6E6B_6400_0002

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

    // MARK: Plumbing

    /// Runs a database call with a deadline: past `timeout` (default `operationTimeout`) the caller gets a
    /// `storage` error at once while the call is cancelled in the background. While the database is known to be
    /// away (`failFastUntil`), the call is not tried.
    @discardableResult
    func run<T: Sendable>(
        _ what: String, timeout: Duration? = nil, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        if let until = failFastUntil.withLock({ $0 }), ContinuousClock.now < until {
            throw LinkStoreError(.storage, "\(what): the database is unavailable; reconnecting")
        }
        let limit = timeout ?? operationTimeout
        let timedOut: @Sendable () -> any Error = {
            self.failFastUntil.withLock { $0 = .now + Self.failFastWindow }
            return LinkStoreError(.storage, "\(what): the database did not answer within \(limit)")
        }
        return try await Deadline.run(within: limit, onTimeout: timedOut) {
            do {
                let value = try await body()
                self.failFastUntil.withLock { $0 = nil }
                return value
            } catch let error as LinkStoreError {
                throw error
            } catch {
                if Self.isConnectionLoss(error) { self.failFastUntil.withLock { $0 = .now + Self.failFastWindow } }
                throw LinkStoreError(.storage, "\(what) failed: \(Self.describe(error))")
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

    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        return "\(error)"
    }
}
