public import Foundation

// What a database behind linkd does, by concern. A backend runs SQL and nothing else: no cache, no revocation set.
// `StoreFront` keeps the memory (record cache, revocation set) over it, once for every backend.

/// The links table, with the rows that follow a link: its revocations and its click counts (added to by
/// `LinkStatsTable.addShareEvents`).
public protocol LinkTable: Sendable {
    /// Inserts a new link. Throws `conflict` if the id exists.
    func insertLink(_ record: LinkRecord) async throws
    /// The stored link, nil when there is none.
    func fetchLink(id: String) async throws -> LinkRecord?
    /// The stored link with this short id (`LinkRecord.shortID`), nil when there is none.
    func fetchLink(shortID: String) async throws -> LinkRecord?
    /// The link of `app` holding the custom path `path` in any case (`CustomPath.key`, the `links_app_path` index),
    /// nil when none does.
    func fetchLink(app: String, path: String) async throws -> LinkRecord?
    /// The custom paths of `app`'s live links (active, expiring after `now`) but those of the `outside` shapes,
    /// newest link first, at most `limit`.
    func liveCustomPaths(app: String, now: Date, limit: Int, outside: CustomPathShapes) async throws -> [String]
    /// Sets a link `revoked` and records the revocation of its generation (a shared store writes the change to its
    /// feed and announces it) and the `audit` entry, all or none. The updated row, or nil (nothing written) if there
    /// is no such link.
    func revokeLink(id: String, at date: Date, audit: AuditEntry?) async throws -> LinkRecord?
    /// Revokes every active link of an owner in an app and writes the `audit` entry made from how many were
    /// revoked, all or none (and announces it, shared). The (link id, generation) of every link revoked; empty
    /// when none was.
    func revokeLinks(
        app: String, owner: String, at date: Date, audit: (@Sendable (_ revoked: Int) -> AuditEntry)?
    ) async throws -> [(String, Int)]
    /// Sets an active link `deleted` (announced, shared) and writes the entry `audit` makes of the updated row, all
    /// or none. The updated row, or nil when nothing changed (and no entry is written): no such link, or it is not
    /// active. The update is conditional, so one call per link ever returns a row.
    func markLinkDeleted(id: String, audit: (@Sendable (LinkRecord) -> AuditEntry)?) async throws -> LinkRecord?
    /// How many links are stored.
    func countLinks() async throws -> Int
    /// The stored click statistics of a link (zero if never opened).
    func fetchClicks(linkID: String) async throws -> LinkClicks
    /// Streams every row of the revocations table into `loader`, one row at a time, from one task (rows are not
    /// collected first, so a million never sit in memory as rows).
    func streamRevocations(into loader: RevocationLoader) async throws
}

/// The signing-key records (opaque blobs owned by TokenSigning) and the lock under which they change.
public protocol SigningKeyTable: Sendable {
    /// Every stored signing-key record, by app then key id.
    func fetchKeyRecords() async throws -> [StoredKeyRecord]
    /// Inserts or replaces signing-key records and writes the `audit` entry, all or none (a shared store announces
    /// the change). With no records, only the entry is written.
    func saveKeyRecords(_ records: [StoredKeyRecord], audit: AuditEntry?) async throws
    /// Runs `body` holding the store-wide key lock, so that two instances never change keys at once
    /// (PostgreSQL: an advisory lock; SQLite: one process, so only this process's own lock).
    func withKeyLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
}

/// The API keys (their secrets' hashes only).
public protocol APIKeyTable: Sendable {
    /// Inserts a new API key and writes the `audit` entry, all or none.
    func insertAPIKey(_ key: APIKeyRecord, audit: AuditEntry?) async throws
    /// The API key with this secret hash (revoked keys included), nil when there is none.
    func fetchAPIKey(secretHash: Data) async throws -> APIKeyRecord?
    /// Sets a key's revocation date unless it has one and writes the `audit` entry, all or none; false (nothing
    /// written) when there is no such key.
    func revokeAPIKey(id: String, at date: Date, audit: AuditEntry?) async throws -> Bool
    /// All API keys of a kind, oldest first.
    func fetchAPIKeys(kind: APIKeyKind) async throws -> [APIKeyRecord]
}

/// The audit log of admin actions. An action's entry is written in the action's own transaction (the `audit`
/// parameters of the tables above); `appendAudit` is for an entry that records no change.
public protocol AuditTable: Sendable {
    /// Appends an entry (the store assigns its sequence number).
    func appendAudit(_ entry: AuditEntry) async throws
    /// The newest entries, newest first, at most `limit`.
    func fetchAuditLog(limit: Int) async throws -> [AuditEntry]
}

/// How a shared store's change feed is followed.
public struct FeedSchedule: Sendable, Equatable {
    /// How often the feed is polled besides announcements (the safety net for a missed one).
    public var pollInterval: Duration
    /// How often everything is reloaded regardless of the feed.
    public var fullResyncInterval: Duration

    /// Creates a schedule.
    public init(pollInterval: Duration, fullResyncInterval: Duration) {
        self.pollInterval = pollInterval
        self.fullResyncInterval = fullResyncInterval
    }
}

/// One row of a shared store's change feed: something another instance changed that this one may hold in memory.
public struct StoreChange: Sendable, Equatable {
    /// What changed.
    public enum Kind: String, Sendable {
        /// A link generation was revoked (`subject` is the link id).
        case revocation
        /// A link was marked deleted (`subject` is the link id).
        case deletion
        /// Signing keys changed (`subject` is the key id).
        case keys
        /// An app's manifest was published, rolled back or retired (`subject` is the app id, `generation` the version).
        case manifest
    }

    /// The change's version: versions commit in order.
    public var version: Int64
    /// What changed; nil for a kind this build does not know (skipped; its version still counts as read).
    public var kind: Kind?
    /// The link id, or the key id for `keys`.
    public var subject: String
    /// The revoked generation (0 when it does not apply).
    public var generation: Int64

    /// Creates a change row.
    public init(version: Int64, kind: Kind?, subject: String, generation: Int64) {
        self.version = version
        self.kind = kind
        self.subject = subject
        self.generation = generation
    }
}

/// The change feed through which instances sharing one database learn of each other's revocations, deletions and
/// key changes. A store no other instance shares has none: `schedule` is nil and nothing else here is called.
public protocol ChangeFeed: Sendable {
    /// How the feed is followed; nil when no other instance shares the store.
    var schedule: FeedSchedule? { get }
    /// The longest time a change made on another instance takes to be in force here while the database answers
    /// (zero for a store no other instance shares).
    var propagationBound: Duration { get }
    /// The feed's newest version now. Read before loading the revocations, so that nothing committed during the
    /// load is missed: the feed is read from there on.
    func currentVersion() async throws -> Int64
    /// Every change newer than `version`, oldest first.
    func changes(after version: Int64) async throws -> [StoreChange]
    /// Listens for change announcements on one connection: calls `onListening` once listening, then
    /// `onAnnouncement` for each announcement, until the connection is lost (it throws) or the task is cancelled.
    func listen(onListening: () async throws -> Void, onAnnouncement: () async throws -> Void) async throws
    /// Deletes changes older than the feed keeps (an instance away longer reloads everything when it comes back).
    func pruneChanges() async throws
}

/// A whole database behind linkd: every table, the change feed, readiness and release.
/// `description` says where the data is, for logs (never a password).
public protocol StoreBackend: LinkTable, LinkImportTable, LinkListing, SigningKeyTable, APIKeyTable, AuditTable, ChangeFeed, ClaimTable,
    LinkStatsTable, WebhookTable, ConsoleTables, ManifestTable, TLSSecretTable, CustomStringConvertible
{
    /// Succeeds when the database answers (readiness), within a short limit.
    func ping() async throws
    /// Writes a consistent copy of the whole database to the new file `path` while the store serves (SQLite's
    /// online backup, in one step from one read transaction: writers go on, in WAL mode nothing waits for it); the
    /// copy's size in bytes. A shared PostgreSQL store has no such copy: `unsupported` (back it up with `pg_dump`).
    func backup(to path: String) async throws -> Int
    /// Releases connections; the backend answers no more calls after it.
    func close() async
}
