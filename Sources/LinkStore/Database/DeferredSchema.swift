/// The tables of deferred deep links and analytics — live claim codes and per-link daily counters — in both
/// dialects, and the statement texts both backends share. Column names are the same in both (PostgreSQL folds them
/// to lower case).
///
/// `claim_codes` holds only live codes (a claim deletes its row; the sweep deletes expired ones), so counting the
/// unexpired rows is counting the live codes. `link_stats_daily` has one row per link per UTC day with any event:
/// a year of a hot link is 365 rows; the day is an integer (days since 1970-01-01), the counters are integers, and
/// no address or user agent is kept.
enum DeferredSchema {
    /// The SQLite statements of the `deferred-v1` migration.
    static let sqlite = [
        """
        CREATE TABLE claim_codes (lookupKey BLOB NOT NULL PRIMARY KEY, linkId TEXT NOT NULL, app TEXT NOT NULL,
          platform TEXT NOT NULL, sealedToken BLOB NOT NULL, created INTEGER NOT NULL, expires INTEGER NOT NULL) WITHOUT ROWID
        """,
        "CREATE INDEX claim_codes_expires ON claim_codes (expires)",
        """
        CREATE TABLE link_stats_daily (linkId TEXT NOT NULL, day INTEGER NOT NULL, app TEXT NOT NULL,
          \(counterColumns(type: "INTEGER")), PRIMARY KEY (linkId, day)) WITHOUT ROWID
        """,
        "CREATE INDEX link_stats_app_day ON link_stats_daily (app, day)",
    ]

    /// The PostgreSQL statements of the `deferred-v1` migration (one statement per string).
    static let postgres = [
        """
        CREATE TABLE claim_codes (lookupkey bytea PRIMARY KEY, linkid text NOT NULL, app text NOT NULL,
          platform text NOT NULL, sealedtoken bytea NOT NULL, created timestamptz NOT NULL, expires timestamptz NOT NULL)
        """,
        "CREATE INDEX claim_codes_expires ON claim_codes (expires)",
        """
        CREATE TABLE link_stats_daily (linkid text NOT NULL, day integer NOT NULL, app text NOT NULL,
          \(counterColumns(type: "bigint")), PRIMARY KEY (linkid, day))
        """,
        "CREATE INDEX link_stats_app_day ON link_stats_daily (app, day)",
    ]

    private static func counterColumns(type: String) -> String {
        LinkDayCounts.columns.map { "\($0) \(type) NOT NULL DEFAULT 0" }.joined(separator: ", ")
    }

    /// `ON CONFLICT (linkId, day) DO UPDATE SET` adding the new counters to the stored ones.
    static let addOnConflict = "ON CONFLICT (linkId, day) DO UPDATE SET "
        + LinkDayCounts.columns.map { "\($0) = link_stats_daily.\($0) + excluded.\($0)" }.joined(separator: ", ")

    /// The counters, comma-separated, in `LinkDayCounts.columns` order.
    static let counters = LinkDayCounts.columns.joined(separator: ", ")

    /// The counters summed (as 64-bit integers in both dialects), in `LinkDayCounts.columns` order.
    static let summedCounters = LinkDayCounts.columns.map { "CAST(sum(\($0)) AS bigint)" }.joined(separator: ", ")

    /// The clicks of a row, summed: what top links are ordered by.
    static let summedClicks = "sum(clicks_ios + clicks_android + clicks_desktop)"

    /// Expired claims taken per sweep transaction (the rest wait for the next sweep).
    static let expiryBatch = 10_000
}
