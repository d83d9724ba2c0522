import UTCTime

/// The rollups of the daily counters, in both dialects: `app_stats_daily` (an app's counters per day: the app
/// view's `byDay` and totals, ≤ 92 rows) and `link_stats_monthly` (a link's counters per UTC month, keyed by app
/// first: the app view's top links read one row per link per whole month of the range, and the day rows only of
/// the range's partial months). The flush writes them in the transaction that writes the day rows, adding the same
/// counters, so a rollup row is always the sum of its day rows; the `stats-rollups-v1` migration builds them from
/// the day rows already stored and drops the `(app, day)` index they replace. A later dimension (a campaign, a
/// referrer) becomes a key column after `app`.
///
/// A month is the number of its first day (days since 1970-01-01, as `StatsDay`).
enum StatsRollups {
    /// The SQLite statements of the `stats-rollups-v1` migration: the tables, their backfill, the index dropped.
    static let sqlite = tables(integer: "INTEGER", text: "TEXT", suffix: " WITHOUT ROWID")
        + backfill(month: "day - (CAST(strftime('%d', day * 86400, 'unixepoch') AS INTEGER) - 1)", linkID: "linkId")
        + ["DROP INDEX IF EXISTS link_stats_app_day"]

    /// The PostgreSQL statements of the `stats-rollups-v1` migration.
    static let postgres = tables(integer: "bigint", text: "text", suffix: "")
        + backfill(month: postgresMonth, linkID: "linkid")
        + ["DROP INDEX IF EXISTS link_stats_app_day", "ANALYZE app_stats_daily", "ANALYZE link_stats_monthly"]

    /// The first day of the month of the integer column `day`, in PostgreSQL.
    static let postgresMonth = "day - (extract(day FROM date '1970-01-01' + day)::integer - 1)"

    /// The key columns of each rollup table, in primary-key order.
    static let appDayKey = ["app", "day"]
    static let linkMonthKey = ["app", "month", "linkId"]

    private static func tables(integer: String, text: String, suffix: String) -> [String] {
        let counters = LinkDayCounts.columns.map { "\($0) \(integer) NOT NULL DEFAULT 0" }.joined(separator: ", ")
        return [
            """
            CREATE TABLE app_stats_daily (app \(text) NOT NULL, day integer NOT NULL, \(counters),
              PRIMARY KEY (app, day))\(suffix)
            """,
            """
            CREATE TABLE link_stats_monthly (app \(text) NOT NULL, month integer NOT NULL, linkId \(text) NOT NULL,
              \(counters), PRIMARY KEY (app, month, linkId))\(suffix)
            """,
        ]
    }

    /// The rollups of the day rows already stored (the same sums the flush adds row by row).
    private static func backfill(month: String, linkID: String) -> [String] {
        [
            """
            INSERT INTO app_stats_daily (app, day, \(DeferredSchema.counters))
            SELECT app, day, \(DeferredSchema.summedCounters) FROM link_stats_daily GROUP BY app, day
            """,
            """
            INSERT INTO link_stats_monthly (app, month, linkId, \(DeferredSchema.counters))
            SELECT app, \(month), \(linkID), \(DeferredSchema.summedCounters) FROM link_stats_daily
            GROUP BY \(linkID), \(month), app
            """,
        ]
    }

    /// `ON CONFLICT (key) DO UPDATE SET` adding the new counters to the stored ones of `table`.
    static func addOnConflict(table: String, key: [String]) -> String {
        "ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET "
            + LinkDayCounts.columns.map { "\($0) = \(table).\($0) + excluded.\($0)" }.joined(separator: ", ")
    }

    /// A batch of day rows summed per app and day, in key order.
    static func appDays(_ rows: [(key: LinkDayKey, counts: LinkDayCounts)]) -> [(app: String, day: Int, counts: LinkDayCounts)] {
        var sums: [AppDay: LinkDayCounts] = [:]
        for (key, counts) in rows where !counts.isZero {
            sums[AppDay(app: key.app, day: key.day.number), default: LinkDayCounts()].add(counts)
        }
        return sums.map { (app: $0.key.app, day: $0.key.day, counts: $0.value) }
            .sorted { ($0.app, $0.day) < ($1.app, $1.day) }
    }

    /// A batch of day rows summed per app, month and link, in key order: the rows' month keys sorted (mostly in
    /// order already, one app and one month in a flush with the links in order, so the sort finds the runs), then
    /// each run of one key summed (a dictionary and a sort of its own were a tenth of a flush).
    static func linkMonths(_ rows: [(key: LinkDayKey, counts: LinkDayCounts)]) -> [(key: LinkDayKey, counts: LinkDayCounts)] {
        let months = rows.filter { !$0.counts.isZero }
            .map { (key: LinkDayKey(linkID: $0.key.linkID, app: $0.key.app, day: $0.key.day.monthStart), counts: $0.counts) }
            .sorted { ($0.key.app, $0.key.day.number, $0.key.linkID) < ($1.key.app, $1.key.day.number, $1.key.linkID) }
        var sums: [(key: LinkDayKey, counts: LinkDayCounts)] = []
        for row in months {
            if let last = sums.indices.last, sums[last].key == row.key { sums[last].counts.add(row.counts) } else { sums.append(row) }
        }
        return sums
    }

    /// An app's UTC day (the day number), ordered by app then day.
    struct AppDay: Hashable, Comparable {
        let app: String
        let day: Int

        static func < (lhs: AppDay, rhs: AppDay) -> Bool { (lhs.app, lhs.day) < (rhs.app, rhs.day) }
    }

    /// The statement of an app's top links over `from`…`to`: per link, the monthly rows of the months the range
    /// covers whole, and for a month it covers in part, the day rows inside the range, or (when fewer) the month's
    /// row less its day rows outside the range. The same sums as the day rows of the range; a link without a day
    /// row in the range (all its counters zero there: stored rows are never all zero) is left out. `app` is the
    /// placeholder of the app (`?1`, `$1`); the days are the integers given.
    static func topLinksSQL(app: String, from: StatsDay, to: StatsDay, limit: Int) -> String {
        var parts: [String] = []
        let counters = DeferredSchema.counters
        let negated = LinkDayCounts.columns.map { "-d.\($0)" }.joined(separator: ", ")
        let dayCounters = LinkDayCounts.columns.map { "d.\($0)" }.joined(separator: ", ")
        func days(month: Int, _ condition: String, negative: Bool) -> String {
            """
            SELECT d.linkId, \(negative ? negated : dayCounters) FROM link_stats_monthly m \
            JOIN link_stats_daily d ON d.linkId = m.linkId AND \(condition) WHERE m.app = \(app) AND m.month = \(month)
            """
        }
        var month = from.monthStart
        while month <= to {
            let end = month.monthEnd
            let first = max(from, month), last = min(to, end)
            let inside = last.number - first.number + 1, length = end.number - month.number + 1
            let whole = "SELECT linkId, \(counters) FROM link_stats_monthly WHERE app = \(app) AND month = \(month.number)"
            if inside == length {
                parts.append(whole)
            } else if inside <= length - inside {
                parts.append(days(month: month.number, "d.day BETWEEN \(first.number) AND \(last.number)", negative: false))
            } else {
                // One range per side outside: an index seek each (a range with a hole reads the hole and drops it).
                parts.append(whole)
                if first > month {
                    parts.append(days(month: month.number, "d.day BETWEEN \(month.number) AND \(first.number - 1)", negative: true))
                }
                if last < end {
                    parts.append(days(month: month.number, "d.day BETWEEN \(last.number + 1) AND \(end.number)", negative: true))
                }
            }
            month = StatsDay(number: end.number + 1)
        }
        let all = LinkDayCounts.columns.joined(separator: " + ")
        return """
            SELECT linkId, \(DeferredSchema.summedCounters) FROM (\(parts.joined(separator: " UNION ALL "))) AS parts
            GROUP BY linkId HAVING sum(\(all)) > 0
            ORDER BY \(DeferredSchema.summedClicks) DESC, linkId LIMIT \(max(0, limit))
            """
    }
}

extension StatsDay {
    /// The first day of this day's UTC month.
    public var monthStart: StatsDay { StatsDay(number: number - (UTCDateTime(start).day - 1)) }

    /// The last day of this day's UTC month.
    public var monthEnd: StatsDay {
        let fields = UTCDateTime(start)
        return StatsDay(number: number - fields.day + UTCDateTime.daysIn(month: fields.month, year: fields.year))
    }
}

/// An app's top links over a range: the links, most clicked first, each with its exact counts over the range, and
/// whether the list is provably the exact top (`TopDaily`).
public struct TopLinks: Sendable, Equatable {
    /// The links, most clicked first (ties by link id).
    public var links: [LinkTotals]
    /// True when no link left out can have more clicks than the last one listed: always for an app with at most
    /// `TopDaily.exactRowLimit` link-months in the range (read exactly from the rollups); for a larger app, when the
    /// bound of `TopDaily` proves it.
    public var exact: Bool

    /// - Parameters: see the properties.
    public init(links: [LinkTotals], exact: Bool) {
        self.links = links
        self.exact = exact
    }
}

/// The top links of a large app, fast at any size: `app_top_daily` keeps, per app and UTC day, the `perDay` links with
/// the most clicks that day (the flush upserts the day totals of the links it touched and trims the day back to
/// `perDay`, in its transaction, so the table is always each day's exact top). An app whose range holds more than
/// `exactRowLimit` link-months is answered from it:
///
/// 1. candidates: the links of the range's `app_top_daily` rows (at most 92 × `perDay`), by their summed clicks there;
/// 2. the exact counts of the first `2 × limit + 10` candidates, from their day rows;
/// 3. the bound: a link left out has at most the clicks of the best candidate not counted, plus, for each day whose
///    top is full, that day's `perDay`-th count (what it could have had on the days it was not in the top). When the
///    last link listed has more clicks than that, the list is the exact top (`TopLinks.exact`); else it is the best
///    the daily tops give, and says so.
///
/// A smaller app is answered exactly from the rollups (`StatsRollups.topLinksSQL`), which read one row per link-month.
public enum TopDaily {
    /// The links kept per app and day.
    public static let perDay = 100
    /// The link-months in a range above which an app's top links come from the daily tops.
    public static let exactRowLimit = 2_000

    /// The SQLite statements of the `top-daily-v1` migration: the table and its backfill from the day rows.
    static let sqlite = statements(text: "TEXT", integer: "INTEGER", suffix: " WITHOUT ROWID")
    /// The PostgreSQL statements of the `top-daily-v1` migration.
    static let postgres = statements(text: "text", integer: "bigint", suffix: "") + ["ANALYZE app_top_daily"]

    private static func statements(text: String, integer: String, suffix: String) -> [String] {
        [
            """
            CREATE TABLE app_top_daily (app \(text) NOT NULL, day integer NOT NULL, linkId \(text) NOT NULL,
              clicks \(integer) NOT NULL, PRIMARY KEY (app, day, linkId))\(suffix)
            """,
            """
            INSERT INTO app_top_daily (app, day, linkId, clicks)
            SELECT app, day, linkId, clicks FROM (
              SELECT app, day, linkId, \(dayClicks) AS clicks,
                row_number() OVER (PARTITION BY app, day ORDER BY \(dayClicks) DESC, linkId) AS rank
              FROM link_stats_daily WHERE \(dayClicks) > 0) AS ranked
            WHERE rank <= \(perDay)
            """,
        ]
    }

    /// A day row's clicks.
    static let dayClicks = "clicks_ios + clicks_android + clicks_desktop"

    /// SQLite: the day total of one touched link and day (`?1` link, `?2` day) into its app's day top, when it
    /// ranks above the day's bar (`?3` clicks, `?4` link id: the `perDay`-th row, `sqliteBar`; both NULL while the top
    /// is not full). A total at or below the bar would be trimmed at once: in a flush of 18,000 links each opened
    /// once, writing and trimming them was most of the flush. Totals only grow, so a link in the top always passes.
    static let sqliteUpsert = """
        INSERT INTO app_top_daily (app, day, linkId, clicks)
        SELECT app, day, linkId, total FROM (
          SELECT app, day, linkId, \(dayClicks) AS total FROM link_stats_daily WHERE linkId = ?1 AND day = ?2)
        WHERE total > 0 AND (?3 IS NULL OR total > ?3 OR (total = ?3 AND linkId < ?4))
        ON CONFLICT (app, day, linkId) DO UPDATE SET clicks = excluded.clicks
        """
    /// SQLite: the `perDay`-th row of one app's day top (`?1` app, `?2` day) in its order, none while it holds fewer.
    static let sqliteBar = """
        SELECT clicks, linkId FROM app_top_daily WHERE app = ?1 AND day = ?2
        ORDER BY clicks DESC, linkId LIMIT 1 OFFSET \(perDay - 1)
        """
    /// SQLite: one app's day (`?1` app, `?2` day) trimmed back to `perDay` links.
    static let sqliteTrim = """
        DELETE FROM app_top_daily WHERE app = ?1 AND day = ?2 AND linkId IN (
          SELECT linkId FROM app_top_daily WHERE app = ?1 AND day = ?2 ORDER BY clicks DESC, linkId LIMIT -1 OFFSET \(perDay))
        """
    /// PostgreSQL: the day totals of the touched links and days (`$1` link ids, `$2` days) into their apps' day tops.
    static let postgresUpsert = """
        INSERT INTO app_top_daily (app, day, linkid, clicks)
        SELECT d.app, d.day, d.linkid, d.clicks_ios + d.clicks_android + d.clicks_desktop FROM link_stats_daily d
        JOIN unnest($1::text[], $2::integer[]) AS k (linkid, day) ON d.linkid = k.linkid AND d.day = k.day
        WHERE d.clicks_ios + d.clicks_android + d.clicks_desktop > 0
        ON CONFLICT (app, day, linkid) DO UPDATE SET clicks = excluded.clicks
        """
    /// PostgreSQL: the touched apps' days (`$1` apps, `$2` days) trimmed back to `perDay` links.
    static let postgresTrim = """
        DELETE FROM app_top_daily t USING (
          SELECT app, day, linkid, row_number() OVER (PARTITION BY app, day ORDER BY clicks DESC, linkid) AS rank
          FROM app_top_daily WHERE (app, day) IN (SELECT * FROM unnest($1::text[], $2::integer[]))) AS r
        WHERE t.app = r.app AND t.day = r.day AND t.linkid = r.linkid AND r.rank > \(perDay)
        """

    /// The link-months of an app in the months the range touches (`app` its placeholder).
    static func monthRowsSQL(app: String, from: StatsDay, to: StatsDay) -> String {
        "SELECT count(*) FROM link_stats_monthly WHERE app = \(app) AND month BETWEEN \(from.monthStart.number) AND \(to.number)"
    }

    /// The candidates: links of the range's day tops by their clicks there, best first (`app` its placeholder).
    static func candidatesSQL(app: String, from: StatsDay, to: StatsDay, count: Int) -> String {
        """
        SELECT linkId, CAST(sum(clicks) AS bigint) FROM app_top_daily WHERE app = \(app) AND day BETWEEN \(from.number) AND \(to.number)
        GROUP BY linkId ORDER BY sum(clicks) DESC, linkId LIMIT \(count)
        """
    }

    /// Per day of the range: how many links its top holds and the fewest clicks among them (`app` its placeholder).
    static func dayBoundsSQL(app: String, from: StatsDay, to: StatsDay) -> String {
        """
        SELECT CAST(count(*) AS bigint), CAST(min(clicks) AS bigint) FROM app_top_daily
        WHERE app = \(app) AND day BETWEEN \(from.number) AND \(to.number) GROUP BY day
        """
    }

    /// The exact counts of the candidates over the range (`ids` the placeholder of their list).
    static func totalsSQL(ids: String, from: StatsDay, to: StatsDay) -> String {
        """
        SELECT linkId, \(DeferredSchema.summedCounters) FROM link_stats_daily
        WHERE linkId \(ids) AND day BETWEEN \(from.number) AND \(to.number) GROUP BY linkId
        """
    }

    /// How many candidates to count exactly for a list of `limit`.
    static func candidateCount(limit: Int) -> Int { 2 * limit + 10 }

    /// The answer from the candidates (best first, one more than counted when there are more), the counted
    /// candidates' exact totals, and the day tops' sizes and smallest counts.
    static func answer(
        limit: Int, candidates: [(linkID: String, clicks: Int)], totals: [LinkTotals], dayBounds: [(count: Int, least: Int)]
    ) -> TopLinks {
        let counted = candidateCount(limit: limit)
        let links = Array(totals.filter { !$0.counts.isZero }
            .sorted { ($0.counts.clicks, $1.linkID) > ($1.counts.clicks, $0.linkID) }.prefix(limit))
        let bestLeftOut = candidates.count > counted ? candidates[counted].clicks : 0
        let missedDays = dayBounds.filter { $0.count >= perDay }.reduce(0) { $0 + $1.least }
        let bound = bestLeftOut + missedDays
        let exact = links.count == limit ? bound < (links.last?.counts.clicks ?? 0) : bound == 0
        return TopLinks(links: links, exact: exact)
    }
}
