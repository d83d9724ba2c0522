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

    /// A batch of day rows summed per app, month and link, in key order.
    static func linkMonths(_ rows: [(key: LinkDayKey, counts: LinkDayCounts)]) -> [(key: LinkDayKey, counts: LinkDayCounts)] {
        var sums: [LinkDayKey: LinkDayCounts] = [:]
        for (key, counts) in rows where !counts.isZero {
            sums[LinkDayKey(linkID: key.linkID, app: key.app, day: key.day.monthStart), default: LinkDayCounts()].add(counts)
        }
        return sums.map { (key: $0.key, counts: $0.value) }
            .sorted { ($0.key.app, $0.key.day.number, $0.key.linkID) < ($1.key.app, $1.key.day.number, $1.key.linkID) }
    }

    private struct AppDay: Hashable {
        let app: String
        let day: Int
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
