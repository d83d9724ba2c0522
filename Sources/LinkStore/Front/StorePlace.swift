/// Where a store lives: the embedded SQLite file, or a shared PostgreSQL database (`StoreFront.open`).
public enum StorePlace: Sendable {
    /// The SQLite file at `path` (created and migrated if needed).
    case sqlite(path: String)
    /// The PostgreSQL database of a `postgres://` URL (`PostgresLocation`), followed on `timing`.
    case postgres(url: String, timing: PostgresTiming = PostgresTiming())
}

/// How an instance on a shared store keeps in step and how long it waits for the database.
public struct PostgresTiming: Sendable {
    /// How often the change feed is polled besides notifications.
    public var syncInterval: Duration
    /// How often everything is reloaded regardless of the feed.
    public var fullResyncInterval: Duration
    /// The longest a database call may take before it fails with a `storage` error.
    public var operationTimeout: Duration

    /// Timing with the defaults: a poll every 2 s, a full reload every 5 min, 5 s per database call.
    public init(
        syncInterval: Duration = .seconds(2), fullResyncInterval: Duration = .seconds(300), operationTimeout: Duration = .seconds(5)
    ) {
        self.syncInterval = syncInterval
        self.fullResyncInterval = fullResyncInterval
        self.operationTimeout = operationTimeout
    }
}
