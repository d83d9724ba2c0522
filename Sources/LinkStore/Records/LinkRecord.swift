public import Foundation

/// The lifecycle status of a stored share link.
public enum LinkRecordStatus: String, Codable, Sendable {
    /// The link opens its target.
    case active
    /// An admin or the owner revoked it.
    case revoked
    /// The content it points at was deleted.
    case deleted
}

/// One share link as stored: what a token opens, who owns it, and its status.
public struct LinkRecord: Codable, Sendable, Equatable {
    /// The link id: 32 lowercase hex characters (16 random bytes).
    public var id: String
    /// The app the link belongs to.
    public var app: String
    /// The route the link opens.
    public var route: String
    /// The route params, stored as a JSON object.
    public var params: [String: String]
    /// The owner (a user id of the app), if any.
    public var owner: String?
    /// A display title, if any.
    public var title: String?
    /// When the link was created.
    public var created: Date
    /// When the link expires.
    public var expires: Date
    /// The per-link generation carried by its tokens.
    public var generation: Int
    /// Active, revoked or deleted.
    public var status: LinkRecordStatus
    /// The campaign the link was created (or imported) with: counted for an opening whose URL names none.
    public var campaign: Campaign?
    /// The link's short id (`ShortID`: 11 base62 characters), answered at `/s/<short id>` like its token; nil for
    /// a link made before short ids existed.
    public var shortID: String?
    /// The link's custom path on its app's share hosts (`CustomPath`), nil without one. A revoked or expired link
    /// keeps it (and answers 410 there) until another link of the app takes the path, which sets it nil.
    public var path: String?

    /// The stored columns: the properties' names, but for `short_id`.
    enum CodingKeys: String, CodingKey {
        case id, app, route, params, owner, title, created, expires, generation, status, campaign, path
        case shortID = "short_id"
    }

    /// Creates a link record.
    public init(
        id: String, app: String, route: String, params: [String: String], owner: String?, title: String?,
        created: Date, expires: Date, generation: Int = 1, status: LinkRecordStatus = .active, campaign: Campaign? = nil,
        shortID: String? = nil, path: String? = nil
    ) {
        self.id = id
        self.app = app
        self.route = route
        self.params = params
        self.owner = owner
        self.title = title
        self.created = created
        self.expires = expires
        self.generation = generation
        self.status = status
        self.campaign = campaign
        self.shortID = shortID
        self.path = path
    }
}

/// Indexes of the links table that another index makes redundant, dropped by the `links-owner-index-v1` migration
/// on both stores: `links_owner` (app, owner) is a prefix of `links_owner_status` (app, owner, status), which serves
/// every lookup by owner. Each index is one more B-tree every new link writes.
enum RedundantLinkIndexes {
    static let statements = ["DROP INDEX IF EXISTS links_owner"]
}

/// SQLite's `clicks` table rebuilt as a `WITHOUT ROWID` table keyed by link id. It was a rowid table with an index on
/// the id: two B-trees, each written at a random place for every link opened since the last flush of openings, so
/// that under a crawler's load a flush rewrote most pages of both (4,287 pages for the click totals of links whose
/// day rows took 2,299). One B-tree now, with the same columns and types. PostgreSQL's table is unchanged.
enum ClickTotalsSchema {
    static let statements = [
        """
        CREATE TABLE clicks_by_link ("linkId" TEXT PRIMARY KEY NOT NULL, "count" INTEGER NOT NULL, "lastOpened" DATETIME)
          WITHOUT ROWID
        """,
        "INSERT INTO clicks_by_link (linkId, count, lastOpened) SELECT linkId, count, lastOpened FROM clicks",
        "DROP TABLE clicks",
        "ALTER TABLE clicks_by_link RENAME TO clicks",
    ]
}

/// Click statistics of one link.
public struct LinkClicks: Sendable, Equatable {
    /// How many times the share path was opened.
    public var count: Int
    /// When it was last opened, if ever.
    public var lastOpened: Date?

    /// Creates click statistics.
    public init(count: Int, lastOpened: Date?) {
        self.count = count
        self.lastOpened = lastOpened
    }

    /// Adds `other`'s clicks; the last opening is the later of the two.
    public mutating func add(_ other: LinkClicks) {
        count += other.count
        if let last = other.lastOpened { lastOpened = max(lastOpened ?? last, last) }
    }
}
