import Foundation
import Logging
import PostgresNIO

// The change feed of the PostgreSQL backend: the `changes` rows under commit-ordered versions (`change_counter`),
// announced on `linkd_changes`. `StoreFront` follows it; the writes that add to it are in `+Tables` and `saveKeyRecords`.
extension PostgresBackend {
    /// The channel of change announcements.
    static let channel = "linkd_changes"
    /// Changes older than this are pruned; an instance away longer reloads everything when it comes back.
    static let changeRetention: TimeInterval = 3600

    /// Polled every `syncInterval`, everything reloaded every `fullResyncInterval`.
    public var schedule: FeedSchedule? {
        FeedSchedule(pollInterval: syncInterval, fullResyncInterval: fullResyncInterval)
    }

    /// A change made elsewhere is applied here within this time while the database answers: notifications
    /// arrive in milliseconds; the poll every `syncInterval` (plus one database call) bounds a missed one.
    public var propagationBound: Duration { syncInterval + .seconds(1) }

    /// The version of the newest change committed.
    public func currentVersion() async throws -> Int64 {
        try await run("read the change feed version") { [client] in
            var version: Int64 = 0
            for try await value in try await client.query("SELECT version FROM change_counter WHERE id = 1").decode(Int64.self) {
                version = value
            }
            return version
        }
    }

    /// Every change newer than `version`, oldest first.
    public func changes(after version: Int64) async throws -> [StoreChange] {
        try await run("read the change feed") { [client] in
            let rows = try await client.query(
                "SELECT version, kind, subject, generation FROM changes WHERE version > \(version) ORDER BY version")
            var changes: [StoreChange] = []
            for try await (version, kind, subject, generation) in rows.decode((Int64, String, String, Int64).self) {
                changes.append(StoreChange(version: version, kind: StoreChange.Kind(rawValue: kind), subject: subject, generation: generation))
            }
            return changes
        }
    }

    /// Listens on `linkd_changes` on a connection of its own (no deadline: it lasts until the connection is lost,
    /// when it throws, or the task is cancelled).
    public func listen(onListening: () async throws -> Void, onAnnouncement: () async throws -> Void) async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: Self.channel) { notifications in
                try await onListening()
                for try await _ in notifications {
                    try await onAnnouncement()
                }
            }
        }
    }

    /// Deletes changes older than `changeRetention`.
    public func pruneChanges() async throws {
        try await run("prune the change feed") { [client] in
            let cutoff = Date().addingTimeInterval(-Self.changeRetention)
            try await client.query("DELETE FROM changes WHERE at < \(cutoff)")
        }
    }

    /// The next change version; its row lock is held until commit, so versions become visible in order.
    static func nextVersion(_ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(
            "UPDATE change_counter SET version = version + 1 WHERE id = 1 RETURNING version", logger: logger)
        for try await version in rows.decode(Int64.self) { return version }
        throw LinkStoreError(.storage, "the change counter is missing")
    }

    /// Writes one link's change (`revocation`, `deletion`) to the feed under a new version and announces it.
    static func recordChange(
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
    static func announce(_ version: Int64, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(channel), \(String(version)))", logger: logger)
    }
}
