public import Foundation
import Logging
import PostgresNIO

// Claim codes and per-link daily counters on PostgreSQL (`DeferredSchema`), shared by every instance.
extension PostgresBackend {
    // MARK: Claims

    /// Stores a new claim unless its link has `maxPerLink` unexpired claims (false, nothing written). Instances
    /// inserting at the same moment may pass the cap by the few rows in flight: it bounds the table, it is not a quota.
    public func insertClaim(_ claim: ClaimRecord, maxPerLink: Int, now: Date) async throws -> Bool {
        try await run("make a claim") { [client] in
            let rows = try await client.query("""
                INSERT INTO claim_codes (lookupkey, linkid, app, platform, sealedtoken, created, expires)
                SELECT \(claim.lookupKey), \(claim.linkID), \(claim.app), \(claim.platform), \(claim.sealedToken),
                  \(claim.created), \(claim.expires)
                WHERE (SELECT count(*) FROM claim_codes WHERE linkid = \(claim.linkID) AND expires > \(now)) < \(Int64(maxPerLink))
                ON CONFLICT (lookupkey) DO NOTHING RETURNING 1
                """)
            return try await rows.collect().count == 1
        }
    }

    /// How many unexpired claims there are.
    public func liveClaimCount(now: Date) async throws -> Int {
        try await run("count claims") { [client] in
            var count = 0
            for try await value in try await client.query("SELECT count(*) FROM claim_codes WHERE expires > \(now)").decode(Int64.self) {
                count = Int(value)
            }
            return count
        }
    }

    /// The unexpired claim with this lookup key, left in place.
    public func peekClaim(lookupKey: Data, now: Date) async throws -> ClaimRecord? {
        try await run("read a claim") { [client] in
            let rows = try await client.query("""
                SELECT lookupkey, linkid, app, platform, sealedtoken, created, expires FROM claim_codes
                WHERE lookupkey = \(lookupKey) AND expires > \(now)
                """)
            var claim: ClaimRecord?
            for try await (key, linkID, app, platform, sealed, created, expires)
                in rows.decode((Data, String, String, String, Data, Date, Date).self)
            {
                claim = ClaimRecord(
                    lookupKey: key, linkID: linkID, app: app, platform: platform, sealedToken: sealed, created: created, expires: expires)
            }
            return claim
        }
    }

    /// Takes the unexpired claim with this lookup key out of the store: one `DELETE … RETURNING`, so of two
    /// instances claiming at once exactly one gets the row. Nil when there is none.
    public func redeemClaim(
        lookupKey: Data, now: Date, events: (@Sendable (ClaimRecord, LinkRecord?) -> [WebhookEvent])?
    ) async throws -> ClaimRecord? {
        try await run("claim a code") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> ClaimRecord? in
                let rows = try await connection.query("""
                    DELETE FROM claim_codes WHERE lookupkey = \(lookupKey) AND expires > \(now)
                    RETURNING lookupkey, linkid, app, platform, sealedtoken, created, expires
                    """, logger: logger)
                var claim: ClaimRecord?
                for try await (key, linkID, app, platform, sealed, created, expires)
                    in rows.decode((Data, String, String, String, Data, Date, Date).self)
                {
                    claim = ClaimRecord(
                        lookupKey: key, linkID: linkID, app: app, platform: platform, sealedToken: sealed,
                        created: created, expires: expires)
                }
                guard let claim else { return nil }
                if let events {
                    let links = try await connection.query(
                        "SELECT \(unescaped: Self.linkColumns) FROM links WHERE id = \(claim.linkID)", logger: logger)
                    let link = try await Self.decodeLinks(links).first
                    try await Self.enqueueWebhookEvents(events(claim, link), on: connection, logger: logger, at: now)
                }
                return claim
            }
        }
    }

    /// Deletes up to `DeferredSchema.expiryBatch` expired claims and counts each as expired on its link's day (and
    /// in the rollups), in one statement: a row deleted by one instance is counted by that instance only.
    public func expireClaims(now: Date) async throws -> [String: Int] {
        try await run("expire claims") { [client] in
            let rows = try await client.query("""
                WITH gone AS (
                  DELETE FROM claim_codes WHERE lookupkey IN (
                    SELECT lookupkey FROM claim_codes WHERE expires <= \(now) LIMIT \(Int64(DeferredSchema.expiryBatch))
                    FOR UPDATE SKIP LOCKED)
                  RETURNING linkid, app, (floor(extract(epoch FROM expires) / 86400))::integer AS day),
                counted AS (
                  INSERT INTO link_stats_daily (linkid, day, app, claims_expired)
                  SELECT linkid, day, min(app), count(*) FROM gone GROUP BY linkid, day
                  \(unescaped: DeferredSchema.addOnConflict)),
                by_app AS (
                  INSERT INTO app_stats_daily (app, day, claims_expired)
                  SELECT app, day, count(*) FROM gone GROUP BY app, day ORDER BY app, day
                  \(unescaped: StatsRollups.addOnConflict(table: "app_stats_daily", key: StatsRollups.appDayKey))),
                by_month AS (
                  INSERT INTO link_stats_monthly (app, month, linkid, claims_expired)
                  SELECT app, \(unescaped: StatsRollups.postgresMonth), linkid, count(*) FROM gone
                  GROUP BY app, \(unescaped: StatsRollups.postgresMonth), linkid ORDER BY 1, 2, 3
                  \(unescaped: StatsRollups.addOnConflict(table: "link_stats_monthly", key: StatsRollups.linkMonthKey)))
                SELECT app, count(*) FROM gone GROUP BY app
                """)
            var byApp: [String: Int] = [:]
            for try await (app, count) in rows.decode((String, Int64).self) { byApp[app] = Int(count) }
            return byApp
        }
    }

    // MARK: Daily counters

    /// Adds a flush's events in one transaction of four statements, however many links: the click totals, the
    /// day rows and their two rollups (`StatsRollups`), each one insert of arrays (`unnest`) added to on conflict,
    /// so a batch of 100,000 links is not 100,000 round trips; and the source rows with their app rollup (two reads
    /// of the values stored, for the caps, and two inserts). Rows go in key order, so that instances flushing at
    /// once lock them in the same order; instances add to the same rows, so their counts sum exactly (two instances
    /// adding a new value to the same link and day at the same instant may each keep theirs: a cap may be passed by
    /// one value per instance).
    public func addShareEvents(_ batch: ShareEventBatch) async throws {
        guard !batch.isEmpty else { return }
        try await run("add share events") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                for chunk in batch.chunks() {
                    let clicks = chunk.clickTotals, rows = chunk.dayRows.filter { !$0.counts.isZero }, sources = chunk.sourceRows
                    if !clicks.isEmpty { try await connection.query(Self.clickTotalsQuery(clicks), logger: logger) }
                    for query in rows.isEmpty ? [] : Self.dayRowsQueries(rows) { try await connection.query(query, logger: logger) }
                    for query in Self.dayTopsQueries(rows) { try await connection.query(query, logger: logger) }
                    if !sources.isEmpty { try await Self.addSources(sources, connection: connection, logger: logger) }
                }
            }
        }
    }

    /// Adds source rows and their app rollup, fitted under the caps against the values stored (read in the
    /// transaction).
    private static func addSources(_ rows: [(key: SourceRowKey, clicks: Int)], connection: PostgresConnection, logger: Logger) async throws {
        // Only the keys with a value a cap counts are read (`SourceSchema.fitted` asks for no other).
        let capped = rows.filter { !SourceCaps.isUncapped($0.key.value) }
        let linkKeys = Set(capped.map { SourceDayKey(owner: $0.key.linkID, day: $0.key.day.number, dimension: $0.key.dimension) })
        let appKeys = Set(capped.map { SourceDayKey(owner: $0.key.app, day: $0.key.day.number, dimension: $0.key.dimension) })
        let linkStored = try await storedValues("link_sources_daily", owner: "linkid", keys: linkKeys.sorted(), connection: connection, logger: logger)
        let appStored = try await storedValues("app_sources_daily", owner: "app", keys: appKeys.sorted(), connection: connection, logger: logger)
        let fitted = try SourceSchema.fitted(rows, storedForLink: { linkStored[$0] ?? [] }, storedForApp: { appStored[$0] ?? [] })
        var links = PostgresQuery(unsafeSQL: """
            INSERT INTO link_sources_daily (linkid, day, dimension, value, app, clicks)
            SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::text[], $6::bigint[])
            \(SourceSchema.addOnConflict(table: "link_sources_daily"))
            """)
        links.binds.append(fitted.links.map(\.key.linkID), context: .default)
        links.binds.append(fitted.links.map { Int32($0.key.day.number) }, context: .default)
        links.binds.append(fitted.links.map(\.key.dimension.rawValue), context: .default)
        links.binds.append(fitted.links.map(\.key.value), context: .default)
        links.binds.append(fitted.links.map(\.key.app), context: .default)
        links.binds.append(fitted.links.map { Int64($0.clicks) }, context: .default)
        try await connection.query(links, logger: logger)
        var apps = PostgresQuery(unsafeSQL: """
            INSERT INTO app_sources_daily (app, day, dimension, value, clicks)
            SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::bigint[])
            \(SourceSchema.addOnConflict(table: "app_sources_daily"))
            """)
        apps.binds.append(fitted.apps.map(\.key.owner), context: .default)
        apps.binds.append(fitted.apps.map { Int32($0.key.day) }, context: .default)
        apps.binds.append(fitted.apps.map(\.key.dimension.rawValue), context: .default)
        apps.binds.append(fitted.apps.map(\.value), context: .default)
        apps.binds.append(fitted.apps.map { Int64($0.clicks) }, context: .default)
        try await connection.query(apps, logger: logger)
    }

    /// The values stored in `table` for each of `keys` (its `owner` column — `linkid` or `app` —, day and dimension).
    private static func storedValues(
        _ table: String, owner: String, keys: [SourceDayKey], connection: PostgresConnection, logger: Logger
    ) async throws -> [SourceDayKey: Set<String>] {
        var query = PostgresQuery(unsafeSQL: """
            SELECT s.\(owner), s.day, s.dimension, s.value FROM \(table) s
            JOIN unnest($1::text[], $2::integer[], $3::text[]) AS k (owner, day, dimension)
            ON s.\(owner) = k.owner AND s.day = k.day AND s.dimension = k.dimension
            """)
        query.binds.append(keys.map(\.owner), context: .default)
        query.binds.append(keys.map { Int32($0.day) }, context: .default)
        query.binds.append(keys.map(\.dimension.rawValue), context: .default)
        var stored: [SourceDayKey: Set<String>] = [:]
        for try await (key, day, dimension, value) in try await connection.query(query, logger: logger)
            .decode((String, Int32, String, String).self) {
            guard let dimension = SourceDimension(rawValue: dimension) else { continue }
            stored[SourceDayKey(owner: key, day: Int(day), dimension: dimension), default: []].insert(value)
        }
        return stored
    }

    /// A link's openings by source in the range, `(none)` what its clicks leave (`SourceTotals.fillingNone`).
    public func linkSources(linkID: String, from: StatsDay, to: StatsDay) async throws -> SourceTotals {
        try await run("read link sources") { [client] in
            try await Self.sources(client, owner: "linkid", of: linkID, days: "link_stats_daily", sources: "link_sources_daily", from: from, to: to)
        }
    }

    /// An app's openings by source in the range (its `app_sources_daily` rows), `(none)` what its clicks leave.
    public func appSources(app: String, from: StatsDay, to: StatsDay) async throws -> SourceTotals {
        try await run("read app sources") { [client] in
            try await Self.sources(client, owner: "app", of: app, days: "app_stats_daily", sources: "app_sources_daily", from: from, to: to)
        }
    }

    /// The source rows of one owner (a link, `linkid`, or an app, `app`) over the range, with `(none)` what the
    /// owner's clicks in its day rows leave.
    private static func sources(
        _ client: PostgresClient, owner column: String, of owner: String, days: String, sources: String, from: StatsDay, to: StatsDay
    ) async throws -> SourceTotals {
        let (first, last) = (Int32(from.number), Int32(to.number))
        var clicks = 0
        for try await sum in try await client.query("""
            SELECT COALESCE(\(unescaped: DeferredSchema.summedClicks), 0)::bigint FROM \(unescaped: days)
            WHERE \(unescaped: column) = \(owner) AND day BETWEEN \(first) AND \(last)
            """).decode(Int64.self) {
            clicks = Int(sum)
        }
        var found: [(String, String, Int)] = []
        for try await (dimension, value, count) in try await client.query("""
            SELECT dimension, value, sum(clicks)::bigint FROM \(unescaped: sources)
            WHERE \(unescaped: column) = \(owner) AND day BETWEEN \(first) AND \(last) GROUP BY dimension, value
            """).decode((String, String, Int64).self) {
            found.append((dimension, value, Int(count)))
        }
        return SourceSchema.totals(found).fillingNone(clicks: clicks)
    }

    /// The statement adding `clicks` to the click totals. A click always has its date; a total without one (made
    /// by hand) keeps the stored last opening (`GREATEST` ignores a null).
    private static func clickTotalsQuery(_ clicks: [(linkID: String, clicks: LinkClicks)]) -> PostgresQuery {
        var query = PostgresQuery(unsafeSQL: """
            INSERT INTO clicks (linkid, count, lastopened)
            SELECT id, n, CASE WHEN dated THEN opened END
            FROM unnest($1::text[], $2::bigint[], $3::timestamptz[], $4::boolean[]) AS batch (id, n, opened, dated)
            ON CONFLICT (linkid) DO UPDATE SET count = clicks.count + excluded.count,
            lastopened = GREATEST(clicks.lastopened, excluded.lastopened)
            """)
        query.binds.append(clicks.map(\.linkID), context: .default)
        query.binds.append(clicks.map { Int64($0.clicks.count) }, context: .default)
        query.binds.append(clicks.map { $0.clicks.lastOpened ?? Date(timeIntervalSince1970: 0) }, context: .default)
        query.binds.append(clicks.map { $0.clicks.lastOpened != nil }, context: .default)
        return query
    }

    /// The statements upserting the day totals of the links with clicks in `rows` into their apps' day tops, then
    /// trimming each touched day back to `TopDaily.perDay` links (`TopDaily`); none without clicks.
    private static func dayTopsQueries(_ rows: [(key: LinkDayKey, counts: LinkDayCounts)]) -> [PostgresQuery] {
        let clicked = rows.filter { $0.counts.clicks > 0 }
        guard !clicked.isEmpty else { return [] }
        var upsert = PostgresQuery(unsafeSQL: TopDaily.postgresUpsert)
        upsert.binds.append(clicked.map(\.key.linkID), context: .default)
        upsert.binds.append(clicked.map { Int32($0.key.day.number) }, context: .default)
        let appDays = Set(clicked.map { StatsRollups.AppDay(app: $0.key.app, day: $0.key.day.number) }).sorted()
        var trim = PostgresQuery(unsafeSQL: TopDaily.postgresTrim)
        trim.binds.append(appDays.map(\.app), context: .default)
        trim.binds.append(appDays.map { Int32($0.day) }, context: .default)
        return [upsert, trim]
    }

    /// The statements adding `rows` to the day rows, the app's days and the links' months.
    private static func dayRowsQueries(_ rows: [(key: LinkDayKey, counts: LinkDayCounts)]) -> [PostgresQuery] {
        let appDays = StatsRollups.appDays(rows), months = StatsRollups.linkMonths(rows)
        return [
            upsert(table: "link_stats_daily", keys: ["linkid", "day", "app"], conflict: DeferredSchema.addOnConflict,
                   keyColumns: [rows.map(\.key.linkID), rows.map { String($0.key.day.number) }, rows.map(\.key.app)],
                   counts: rows.map(\.counts)),
            upsert(table: "app_stats_daily", keys: StatsRollups.appDayKey,
                   conflict: StatsRollups.addOnConflict(table: "app_stats_daily", key: StatsRollups.appDayKey),
                   keyColumns: [appDays.map(\.app), appDays.map { String($0.day) }], counts: appDays.map(\.counts)),
            upsert(table: "link_stats_monthly", keys: StatsRollups.linkMonthKey,
                   conflict: StatsRollups.addOnConflict(table: "link_stats_monthly", key: StatsRollups.linkMonthKey),
                   keyColumns: [months.map(\.key.app), months.map { String($0.key.day.number) }, months.map(\.key.linkID)],
                   counts: months.map(\.counts)),
        ]
    }

    /// One insert of arrays into `table`: the key columns (as text arrays; a column named `day` or `month` is cast
    /// to integer) and the counters, added to the stored ones on conflict.
    private static func upsert(
        table: String, keys: [String], conflict: String, keyColumns: [[String]], counts: [LinkDayCounts]
    ) -> PostgresQuery {
        let columns = (0..<LinkDayCounts.columns.count).map { index in counts.map { Int64($0.values[index]) } }
        let keyTypes = keys.map { $0 == "day" || $0 == "month" ? "integer" : "text" }
        let selected = keys.enumerated().map { keyTypes[$0.offset] == "integer" ? "\($0.element)::integer" : $0.element }
        let arrays = (1...keys.count).map { "$\($0)::text[]" }
            + ((keys.count + 1)...(keys.count + columns.count)).map { "$\($0)::bigint[]" }
        var query = PostgresQuery(unsafeSQL: """
            INSERT INTO \(table) (\(keys.joined(separator: ", ")), \(DeferredSchema.counters))
            SELECT \(selected.joined(separator: ", ")), \(DeferredSchema.counters) FROM unnest(\(arrays.joined(separator: ", ")))
            AS batch (\(keys.joined(separator: ", ")), \(DeferredSchema.counters))
            \(conflict)
            """)
        for column in keyColumns { query.binds.append(column, context: .default) }
        for column in columns { query.binds.append(column, context: .default) }
        return query
    }

    /// A link's day rows in the range, oldest first.
    public func linkStats(linkID: String, from: StatsDay, to: StatsDay) async throws -> [(StatsDay, LinkDayCounts)] {
        try await run("read link stats") { [client] in
            let rows = try await client.query("""
                SELECT day, \(unescaped: DeferredSchema.counters) FROM link_stats_daily
                WHERE linkid = \(linkID) AND day BETWEEN \(Int32(from.number)) AND \(Int32(to.number)) ORDER BY day
                """)
            return try await Self.days(rows)
        }
    }

    /// An app's counters per day in the range, oldest first (its `app_stats_daily` rows).
    public func appStatsByDay(app: String, from: StatsDay, to: StatsDay) async throws -> [(StatsDay, LinkDayCounts)] {
        try await run("read app stats") { [client] in
            let rows = try await client.query("""
                SELECT day, \(unescaped: DeferredSchema.counters) FROM app_stats_daily
                WHERE app = \(app) AND day BETWEEN \(Int32(from.number)) AND \(Int32(to.number)) ORDER BY day
                """)
            return try await Self.days(rows)
        }
    }

    /// An app's most clicked links in the range: exactly from the rollups (`StatsRollups.topLinksSQL`) when the range
    /// holds at most `exactRowLimit` of its link-months, else from the daily tops (`TopDaily`).
    public func appTopLinks(app: String, from: StatsDay, to: StatsDay, limit: Int, exactRowLimit: Int) async throws -> TopLinks {
        try await run("read top links") { [client] in
            func query(_ sql: String) -> PostgresQuery {
                var query = PostgresQuery(unsafeSQL: sql)
                query.binds.append(app, context: .default)
                return query
            }
            var rows = 0
            for try await count in try await client.query(query(TopDaily.monthRowsSQL(app: "$1", from: from, to: to))).decode(Int64.self) {
                rows = Int(count)
            }
            if rows <= exactRowLimit {
                var links: [LinkTotals] = []
                for try await row in try await client.query(query(StatsRollups.topLinksSQL(app: "$1", from: from, to: to, limit: limit))) {
                    let cells = Array(row)
                    links.append(LinkTotals(linkID: try cells[0].decode(String.self), counts: try Self.counts(cells)))
                }
                return TopLinks(links: links, exact: true)
            }
            var candidates: [(linkID: String, clicks: Int)] = []
            let candidatesSQL = TopDaily.candidatesSQL(app: "$1", from: from, to: to, count: TopDaily.candidateCount(limit: limit) + 1)
            for try await (id, clicks) in try await client.query(query(candidatesSQL)).decode((String, Int64).self) {
                candidates.append((id, Int(clicks)))
            }
            let ids = candidates.prefix(TopDaily.candidateCount(limit: limit)).map(\.linkID)
            var totals: [LinkTotals] = []
            if !ids.isEmpty {
                var totalsQuery = PostgresQuery(unsafeSQL: TopDaily.totalsSQL(ids: "= ANY($1::text[])", from: from, to: to))
                totalsQuery.binds.append(ids, context: .default)
                for try await row in try await client.query(totalsQuery) {
                    let cells = Array(row)
                    totals.append(LinkTotals(linkID: try cells[0].decode(String.self), counts: try Self.counts(cells)))
                }
            }
            var bounds: [(count: Int, least: Int)] = []
            for try await (count, least) in try await client.query(query(TopDaily.dayBoundsSQL(app: "$1", from: from, to: to)))
                .decode((Int64, Int64).self) {
                bounds.append((Int(count), Int(least)))
            }
            return TopDaily.answer(limit: limit, candidates: candidates, totals: totals, dayBounds: bounds)
        }
    }

    private static func days(_ rows: PostgresRowSequence) async throws -> [(StatsDay, LinkDayCounts)] {
        var days: [(StatsDay, LinkDayCounts)] = []
        for try await row in rows {
            let cells = Array(row)
            days.append((StatsDay(number: Int(try cells[0].decode(Int32.self))), try counts(cells)))
        }
        return days
    }

    /// The counters of a row whose first cell is its key.
    private static func counts(_ cells: [PostgresCell]) throws -> LinkDayCounts {
        LinkDayCounts(values: try cells.dropFirst().map { Int(try $0.decode(Int64.self)) })
    }
}
