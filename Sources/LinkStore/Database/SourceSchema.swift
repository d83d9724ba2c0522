/// The tables of people's openings by source — campaign and referring host (`ShareSource`) — in both dialects, and
/// the statement texts both backends share. `link_sources_daily` has one row per link, UTC day, dimension and value
/// (at most `SourceCaps.perLinkDay` values and `(other)` per link, day and dimension); `app_sources_daily` is its
/// rollup per app (at most `SourceCaps.perAppDay` values and `(other)`), written in the same flush transaction, so
/// an app's `byCampaign` reads ≤ 92 days of its own rows. The `links` table gains the campaign a link was created
/// with (`Campaign.label`), counted for an opening whose URL names none.
///
/// What is kept is a label: a normalised campaign part or a host — never a URL, a path, an address or a user agent.
enum SourceSchema {
    /// The SQLite statements of the `sources-v1` migration.
    static let sqlite = tables(integer: "INTEGER", text: "TEXT", suffix: " WITHOUT ROWID")

    /// The PostgreSQL statements of the `sources-v1` migration.
    static let postgres = tables(integer: "bigint", text: "text", suffix: "")

    private static func tables(integer: String, text: String, suffix: String) -> [String] {
        [
            """
            CREATE TABLE link_sources_daily (linkId \(text) NOT NULL, day integer NOT NULL, dimension \(text) NOT NULL,
              value \(text) NOT NULL, app \(text) NOT NULL, clicks \(integer) NOT NULL,
              PRIMARY KEY (linkId, day, dimension, value))\(suffix)
            """,
            """
            CREATE TABLE app_sources_daily (app \(text) NOT NULL, day integer NOT NULL, dimension \(text) NOT NULL,
              value \(text) NOT NULL, clicks \(integer) NOT NULL, PRIMARY KEY (app, day, dimension, value))\(suffix)
            """,
            "ALTER TABLE links ADD COLUMN campaign \(text)",
        ]
    }

    /// `ON CONFLICT … DO UPDATE` adding the new clicks to the stored ones of `table`.
    static func addOnConflict(table: String) -> String {
        let key = table == "app_sources_daily" ? "app, day, dimension, value" : "linkId, day, dimension, value"
        return "ON CONFLICT (\(key)) DO UPDATE SET clicks = \(table).clicks + excluded.clicks"
    }

    /// A batch's source rows fitted under the caps, given what is stored: per link, day and dimension, then per app,
    /// day and dimension (`SourceCaps.fit`). `storedForLink` and `storedForApp` answer the values stored for a key
    /// (read in the flush's transaction).
    static func fitted(
        _ rows: [(key: SourceRowKey, clicks: Int)],
        storedForLink: (SourceDayKey) throws -> Set<String>,
        storedForApp: (SourceDayKey) throws -> Set<String>
    ) throws -> (links: [(key: SourceRowKey, clicks: Int)], apps: [(key: SourceDayKey, value: String, clicks: Int)]) {
        var byLink: [SourceDayKey: (app: String, values: [String: Int])] = [:]
        for (key, clicks) in rows {
            let linkKey = SourceDayKey(owner: key.linkID, day: key.day.number, dimension: key.dimension)
            byLink[linkKey, default: (key.app, [:])].values[key.value, default: 0] += clicks
        }
        var links: [(key: SourceRowKey, clicks: Int)] = []
        var byApp: [SourceDayKey: [String: Int]] = [:]
        for (linkKey, entry) in byLink.sorted(by: { $0.key < $1.key }) {
            // Only values no cap counts (an opening without campaign or referrer: most of them) need no read.
            let stored = entry.values.keys.allSatisfy(SourceCaps.isUncapped) ? [] : try storedForLink(linkKey)
            let fitted = SourceCaps.fit(entry.values, stored: stored, cap: SourceCaps.perLinkDay)
            for (value, clicks) in fitted.sorted(by: { $0.key < $1.key }) {
                links.append((SourceRowKey(
                    linkID: linkKey.owner, app: entry.app, day: StatsDay(number: linkKey.day), dimension: linkKey.dimension,
                    value: value), clicks))
                byApp[SourceDayKey(owner: entry.app, day: linkKey.day, dimension: linkKey.dimension), default: [:]][value, default: 0] += clicks
            }
        }
        var apps: [(key: SourceDayKey, value: String, clicks: Int)] = []
        for (appKey, values) in byApp.sorted(by: { $0.key < $1.key }) {
            let stored = values.keys.allSatisfy(SourceCaps.isUncapped) ? [] : try storedForApp(appKey)
            let fitted = SourceCaps.fit(values, stored: stored, cap: SourceCaps.perAppDay)
            for (value, clicks) in fitted.sorted(by: { $0.key < $1.key }) { apps.append((appKey, value, clicks)) }
        }
        return (links, apps)
    }

    /// Sums `(dimension, value, clicks)` rows into totals.
    static func totals(_ rows: [(String, String, Int)]) -> SourceTotals {
        var totals = SourceTotals()
        for (dimension, value, clicks) in rows {
            guard let dimension = SourceDimension(rawValue: dimension) else { continue }
            totals.counts[dimension, default: [:]][value, default: 0] += clicks
        }
        return totals
    }
}

/// One dimension of one owner's UTC day — a link's (`owner` its id: what the per-link cap counts) or an app's
/// (`owner` its id: what the per-app cap counts) — whose stored values a flush reads.
struct SourceDayKey: Hashable, Comparable {
    let owner: String
    let day: Int
    let dimension: SourceDimension

    static func < (lhs: SourceDayKey, rhs: SourceDayKey) -> Bool {
        (lhs.owner, lhs.day, lhs.dimension.rawValue) < (rhs.owner, rhs.day, rhs.dimension.rawValue)
    }
}
