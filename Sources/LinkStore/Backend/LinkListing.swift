public import Foundation

/// Searching the links table: the rows that match a filter, newest first, a page at a time (keyset pagination on
/// (created, id), so a page never repeats or skips a row because links were made meanwhile).
public protocol LinkListing: Sendable {
    /// The links that match `query`, newest first (`created` descending, then `id` descending), at most
    /// `query.limit`, each with its stored click statistics (zero if never opened).
    func listLinks(_ query: LinkListQuery) async throws -> [ListedLink]
}

/// A link as a listing finds it: the record and its stored clicks (those not yet flushed are the caller's).
public struct ListedLink: Sendable, Equatable {
    /// The stored link.
    public var record: LinkRecord
    /// The stored click statistics.
    public var clicks: LinkClicks

    /// Creates a listed link.
    public init(record: LinkRecord, clicks: LinkClicks) {
        self.record = record
        self.clicks = clicks
    }
}

/// A link's place in the listing order: where the next page starts (after it).
public struct LinkPosition: Sendable, Equatable {
    /// The link's creation time, to the microsecond (what either store keeps exactly: SQLite to the millisecond,
    /// PostgreSQL to the microsecond).
    public var createdMicroseconds: Int64
    /// The link id (the tie-breaker between links made in the same microsecond).
    public var id: String

    /// Creates a position.
    public init(createdMicroseconds: Int64, id: String) {
        self.createdMicroseconds = createdMicroseconds
        self.id = id
    }

    /// The position of `record`.
    public init(of record: LinkRecord) {
        self.init(createdMicroseconds: Int64((record.created.timeIntervalSince1970 * 1_000_000).rounded()), id: record.id)
    }

    /// The creation time as a date.
    public var created: Date { Date(timeIntervalSince1970: Double(createdMicroseconds) / 1_000_000) }
}

/// The status a listing filters on: the statuses the inspector reports, where `expired` is an active link past
/// its expiry (the stored status stays `active`).
public enum LinkListStatus: String, Sendable, CaseIterable {
    /// Active and not expired.
    case active
    /// Revoked.
    case revoked
    /// Active in the store but past its expiry.
    case expired
    /// Deleted (its origin said the item is gone).
    case deleted
}

/// What a listing looks for. Every filter is optional; together they all apply.
public struct LinkListQuery: Sendable, Equatable {
    /// Only links of this app.
    public var app: String?
    /// Only links of this owner.
    public var owner: String?
    /// Only links with this status, judged at `now`.
    public var status: LinkListStatus?
    /// Only links created strictly after this time.
    public var createdAfter: Date?
    /// Only links created strictly before this time.
    public var createdBefore: Date?
    /// Only links after this position in the listing order (the previous page's last link).
    public var after: LinkPosition?
    /// The most links to return.
    public var limit: Int
    /// The time `status` is judged at (expiry).
    public var now: Date

    /// Creates a query; without filters, every link, newest first.
    public init(
        app: String? = nil, owner: String? = nil, status: LinkListStatus? = nil, createdAfter: Date? = nil,
        createdBefore: Date? = nil, after: LinkPosition? = nil, limit: Int, now: Date = Date()
    ) {
        self.app = app
        self.owner = owner
        self.status = status
        self.createdAfter = createdAfter
        self.createdBefore = createdBefore
        self.after = after
        self.limit = limit
        self.now = now
    }
}

/// The SQL of a listing, written once for both backends: their `links` and `clicks` tables have the same columns
/// (PostgreSQL folds the unquoted names to lower case). Each backend binds `values` its own way.
struct LinkListSQL {
    /// A value to bind, in order.
    enum Value {
        case text(String)
        case date(Date)
        /// A position's creation time: a date for SQLite, exact microseconds for PostgreSQL.
        case createdPosition(Int64)
        case integer(Int64)
    }

    /// The statement, with `placeholder(n)` (1-based) for each bound value.
    let sql: String
    /// The values, in placeholder order.
    let values: [Value]

    /// The columns selected, in order: the link's (as each backend decodes a link), then click count and last opening,
    /// then the link's campaign, short id and custom path.
    static let columns = "l.id, l.app, l.route, l.params, l.owner, l.title, l.created, l.expires, l.generation, l.status, "
        + "COALESCE(c.count, 0), c.lastOpened, l.campaign, l.short_id, l.path"

    /// - Parameters:
    ///   - query: the filters, position and limit.
    ///   - placeholder: the placeholder of the n-th value (`?` for SQLite, `$n` for PostgreSQL).
    ///   - positionTime: the SQL of a position's creation time from its placeholder (PostgreSQL builds a timestamp
    ///     from integer microseconds, so it compares exactly).
    init(_ query: LinkListQuery, placeholder: (Int) -> String, positionTime: (String) -> String = { $0 }) {
        var conditions: [String] = []
        var values: [Value] = []
        func bind(_ value: Value) -> String {
            values.append(value)
            return placeholder(values.count)
        }
        if let app = query.app { conditions.append("l.app = \(bind(.text(app)))") }
        if let owner = query.owner { conditions.append("l.owner = \(bind(.text(owner)))") }
        switch query.status {
        case nil: break
        case .active: conditions.append("l.status = 'active' AND l.expires > \(bind(.date(query.now)))")
        case .expired: conditions.append("l.status = 'active' AND l.expires <= \(bind(.date(query.now)))")
        case .revoked: conditions.append("l.status = 'revoked'")
        case .deleted: conditions.append("l.status = 'deleted'")
        }
        if let after = query.createdAfter { conditions.append("l.created > \(bind(.date(after)))") }
        if let before = query.createdBefore { conditions.append("l.created < \(bind(.date(before)))") }
        if let position = query.after {
            let time = positionTime(bind(.createdPosition(position.createdMicroseconds)))
            conditions.append("(l.created, l.id) < (\(time), \(bind(.text(position.id))))")
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        sql = "SELECT \(Self.columns) FROM links l LEFT JOIN clicks c ON c.linkId = l.id\(filter)"
            + " ORDER BY l.created DESC, l.id DESC LIMIT \(bind(.integer(Int64(max(0, query.limit)))))"
        self.values = values
    }
}
