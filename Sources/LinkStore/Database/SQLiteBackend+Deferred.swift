public import Foundation
import GRDB

// Claim codes and per-link daily counters on SQLite (`DeferredSchema`). Times are whole seconds since 1970.
extension SQLiteBackend {
    // MARK: Claims

    /// Stores a new claim unless its link has `maxPerLink` unexpired claims (false, nothing written).
    public func insertClaim(_ claim: ClaimRecord, maxPerLink: Int, now: Date) async throws -> Bool {
        try await write { db in
            let live = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM claim_codes WHERE linkId = ? AND expires > ?",
                arguments: [claim.linkID, Self.seconds(now)]) ?? 0
            guard live < maxPerLink else { return false }
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM claim_codes WHERE lookupKey = ?", arguments: [claim.lookupKey]) == true {
                throw LinkStoreError(.conflict, "a claim with this lookup key exists")
            }
            try db.execute(
                sql: """
                    INSERT INTO claim_codes (lookupKey, linkId, app, platform, sealedToken, created, expires)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [claim.lookupKey, claim.linkID, claim.app, claim.platform, claim.sealedToken,
                            Self.seconds(claim.created), Self.seconds(claim.expires)])
            return true
        }
    }

    /// How many unexpired claims there are (a reader: the writer is not held).
    public func liveClaimCount(now: Date) async throws -> Int {
        try await read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM claim_codes WHERE expires > ?", arguments: [Self.seconds(now)]) ?? 0
        }
    }

    /// The unexpired claim with this lookup key, left in place.
    public func peekClaim(lookupKey: Data, now: Date) async throws -> ClaimRecord? {
        try await read { db in
            try Row.fetchOne(
                db, sql: """
                    SELECT lookupKey, linkId, app, platform, sealedToken, created, expires FROM claim_codes
                    WHERE lookupKey = ? AND expires > ?
                    """, arguments: [lookupKey, Self.seconds(now)]
            ).map(Self.claim)
        }
    }

    /// A `claim_codes` row.
    static func claim(_ row: Row) -> ClaimRecord {
        ClaimRecord(
            lookupKey: row["lookupKey"], linkID: row["linkId"], app: row["app"], platform: row["platform"],
            sealedToken: row["sealedToken"], created: date(row["created"]), expires: date(row["expires"]))
    }

    /// Takes the unexpired claim with this lookup key out of the store (one writer: read and delete in one
    /// transaction); nil when there is none.
    public func redeemClaim(
        lookupKey: Data, now: Date, events: (@Sendable (ClaimRecord, LinkRecord?) -> [WebhookEvent])?
    ) async throws -> ClaimRecord? {
        try await write { db -> ClaimRecord? in
            guard let row = try Row.fetchOne(
                db, sql: """
                    SELECT lookupKey, linkId, app, platform, sealedToken, created, expires FROM claim_codes
                    WHERE lookupKey = ? AND expires > ?
                    """, arguments: [lookupKey, Self.seconds(now)])
            else { return nil }
            try db.execute(sql: "DELETE FROM claim_codes WHERE lookupKey = ?", arguments: [lookupKey])
            let claim = Self.claim(row)
            if let events {
                try Self.enqueueWebhookEvents(events(claim, try LinkRecord.fetchOne(db, key: claim.linkID)), in: db, at: now)
            }
            return claim
        }
    }

    /// Deletes up to `DeferredSchema.expiryBatch` expired claims and counts each as expired on its link's day.
    public func expireClaims(now: Date) async throws -> [String: Int] {
        try await write { db -> [String: Int] in
            let rows = try Row.fetchAll(
                db, sql: "SELECT lookupKey, linkId, app, expires FROM claim_codes WHERE expires <= ? LIMIT ?",
                arguments: [Self.seconds(now), DeferredSchema.expiryBatch])
            var expired: [LinkDayKey: LinkDayCounts] = [:]
            var byApp: [String: Int] = [:]
            for row in rows {
                try db.execute(sql: "DELETE FROM claim_codes WHERE lookupKey = ?", arguments: [row["lookupKey"] as Data])
                let key = LinkDayKey(linkID: row["linkId"], app: row["app"], day: StatsDay(Self.date(row["expires"])))
                expired[key, default: LinkDayCounts()].claimsExpired += 1
                byApp[key.app, default: 0] += 1
            }
            try Self.add(expired.map { (key: $0.key, counts: $0.value) }, db)
            return byApp
        }
    }

    // MARK: Daily counters

    /// Adds a flush's events: the click totals, the day rows and their rollups, in one transaction. The last opening is the later
    /// of the stored and the added one (a total without one keeps the stored).
    public func addShareEvents(_ batch: ShareEventBatch) async throws {
        guard !batch.isEmpty else { return }
        try await write { db in
            let clicks = try DirectStatement(db, sql: """
                INSERT INTO clicks (linkId, count, lastOpened) VALUES (?, ?, ?)
                ON CONFLICT(linkId) DO UPDATE SET count = count + excluded.count,
                lastOpened = MAX(COALESCE(lastOpened, excluded.lastOpened), COALESCE(excluded.lastOpened, lastOpened))
                """)
            for chunk in batch.chunks() {
                for (id, click) in chunk.clickTotals {
                    try clicks.run { $0.add(id); $0.add(click.count); $0.add(click.lastOpened.map(StoredDate.text)) }
                }
                let dayRows = chunk.dayRows
                try Self.add(dayRows, db)
                try Self.updateDayTops(dayRows, db)
                try Self.addSources(chunk.sourceRows, db)
            }
        }
    }

    /// The day totals of the links with clicks in `rows` upserted into their apps' day tops, each touched day trimmed
    /// back to `TopDaily.perDay` links (`TopDaily`), in the caller's transaction, after the day rows.
    private static func updateDayTops(_ rows: [(key: LinkDayKey, counts: LinkDayCounts)], _ db: Database) throws {
        let clicked = Dictionary(grouping: rows.lazy.filter { $0.counts.clicks > 0 }.map(\.key)) {
            StatsRollups.AppDay(app: $0.app, day: $0.day.number)
        }
        guard !clicked.isEmpty else { return }
        let bar = try db.cachedStatement(sql: TopDaily.sqliteBar)
        let upsert = try DirectStatement(db, sql: TopDaily.sqliteUpsert)
        let trim = try db.cachedStatement(sql: TopDaily.sqliteTrim)
        for (appDay, keys) in clicked.sorted(by: { $0.key < $1.key }) {
            // Read before this flush's totals go in: they only raise the bar, so an older one lets more through.
            let last = try Row.fetchOne(bar, arguments: [appDay.app, appDay.day])
            let barClicks: Int? = last?[0], barLink: String? = last?[1]
            for key in keys {
                try upsert.run { $0.add(key.linkID); $0.add(key.day.number); $0.add(barClicks); $0.add(barLink) }
            }
            try trim.execute(arguments: [appDay.app, appDay.day])
        }
    }

    /// A link's openings by source in the range, `(none)` what its clicks leave (`SourceTotals.fillingNone`).
    public func linkSources(linkID: String, from: StatsDay, to: StatsDay) async throws -> SourceTotals {
        try await read { db in
            try Self.sources(db, owner: "linkId", of: linkID, days: "link_stats_daily", sources: "link_sources_daily", from: from, to: to)
        }
    }

    /// An app's openings by source in the range (its `app_sources_daily` rows), `(none)` what its clicks leave.
    public func appSources(app: String, from: StatsDay, to: StatsDay) async throws -> SourceTotals {
        try await read { db in
            try Self.sources(db, owner: "app", of: app, days: "app_stats_daily", sources: "app_sources_daily", from: from, to: to)
        }
    }

    /// The source rows of one owner (a link, `linkId`, or an app, `app`) over the range, with `(none)` what the
    /// owner's clicks in its day rows leave.
    private static func sources(
        _ db: Database, owner column: String, of owner: String, days: String, sources: String, from: StatsDay, to: StatsDay
    ) throws -> SourceTotals {
        let arguments: StatementArguments = [owner, from.number, to.number]
        let clicks = try Int.fetchOne(db, sql: """
            SELECT CAST(COALESCE(\(DeferredSchema.summedClicks), 0) AS INTEGER) FROM \(days)
            WHERE \(column) = ? AND day BETWEEN ? AND ?
            """, arguments: arguments) ?? 0
        let rows = try Row.fetchAll(db, sql: """
            SELECT dimension, value, CAST(sum(clicks) AS INTEGER) FROM \(sources)
            WHERE \(column) = ? AND day BETWEEN ? AND ? GROUP BY dimension, value
            """, arguments: arguments)
        return SourceSchema.totals(rows.map { ($0[0], $0[1], $0[2]) }).fillingNone(clicks: clicks)
    }

    /// Adds source rows and their app rollup, fitted under the caps against what is stored, in the caller's
    /// transaction (the writer: no other flush is between the read and the write).
    private static func addSources(_ rows: [(key: SourceRowKey, clicks: Int)], _ db: Database) throws {
        guard !rows.isEmpty else { return }
        let linkValues = try db.cachedStatement(sql: "SELECT value FROM link_sources_daily WHERE linkId = ? AND day = ? AND dimension = ?")
        let appValues = try db.cachedStatement(sql: "SELECT value FROM app_sources_daily WHERE app = ? AND day = ? AND dimension = ?")
        let fitted = try SourceSchema.fitted(
            rows,
            storedForLink: { Set(try String.fetchAll(linkValues, arguments: [$0.owner, $0.day, $0.dimension.rawValue])) },
            storedForApp: { Set(try String.fetchAll(appValues, arguments: [$0.owner, $0.day, $0.dimension.rawValue])) })
        let link = try db.cachedStatement(sql: """
            INSERT INTO link_sources_daily (linkId, day, dimension, value, app, clicks) VALUES (?, ?, ?, ?, ?, ?)
            \(SourceSchema.addOnConflict(table: "link_sources_daily"))
            """)
        for (key, clicks) in fitted.links {
            try link.execute(arguments: [key.linkID, key.day.number, key.dimension.rawValue, key.value, key.app, clicks])
        }
        let app = try db.cachedStatement(sql: """
            INSERT INTO app_sources_daily (app, day, dimension, value, clicks) VALUES (?, ?, ?, ?, ?)
            \(SourceSchema.addOnConflict(table: "app_sources_daily"))
            """)
        for (key, value, clicks) in fitted.apps {
            try app.execute(arguments: [key.owner, key.day, key.dimension.rawValue, value, clicks])
        }
    }

    /// A link's day rows in the range, oldest first.
    public func linkStats(linkID: String, from: StatsDay, to: StatsDay) async throws -> [(StatsDay, LinkDayCounts)] {
        try await read { db in
            try Self.days(db, sql: """
                SELECT day, \(DeferredSchema.counters) FROM link_stats_daily WHERE linkId = ? AND day BETWEEN ? AND ? ORDER BY day
                """, arguments: [linkID, from.number, to.number])
        }
    }

    /// An app's counters per day in the range, oldest first (its `app_stats_daily` rows).
    public func appStatsByDay(app: String, from: StatsDay, to: StatsDay) async throws -> [(StatsDay, LinkDayCounts)] {
        try await read { db in
            try Self.days(db, sql: """
                SELECT day, \(DeferredSchema.counters) FROM app_stats_daily WHERE app = ? AND day BETWEEN ? AND ? ORDER BY day
                """, arguments: [app, from.number, to.number])
        }
    }

    /// An app's most clicked links in the range: exactly from the rollups (`StatsRollups.topLinksSQL`) when the range
    /// holds at most `exactRowLimit` of its link-months, else from the daily tops (`TopDaily`).
    public func appTopLinks(app: String, from: StatsDay, to: StatsDay, limit: Int, exactRowLimit: Int) async throws -> TopLinks {
        try await read { db in
            let rows = try Int.fetchOne(db, sql: TopDaily.monthRowsSQL(app: "?1", from: from, to: to), arguments: [app]) ?? 0
            if rows <= exactRowLimit {
                let links = try Row.fetchAll(db, sql: StatsRollups.topLinksSQL(app: "?1", from: from, to: to, limit: limit), arguments: [app])
                    .map { row in LinkTotals(linkID: row[0], counts: Self.counts(row, from: 1)) }
                return TopLinks(links: links, exact: true)
            }
            let candidates = try Row.fetchAll(
                db, sql: TopDaily.candidatesSQL(app: "?1", from: from, to: to, count: TopDaily.candidateCount(limit: limit) + 1),
                arguments: [app]
            ).map { row in (linkID: row[0] as String, clicks: row[1] as Int) }
            let ids = candidates.prefix(TopDaily.candidateCount(limit: limit)).map(\.linkID)
            let list = "IN (" + Array(repeating: "?", count: ids.count).joined(separator: ", ") + ")"
            let totals = ids.isEmpty ? [] : try Row.fetchAll(
                db, sql: TopDaily.totalsSQL(ids: list, from: from, to: to), arguments: StatementArguments(ids)
            ).map { row in LinkTotals(linkID: row[0], counts: Self.counts(row, from: 1)) }
            let bounds = try Row.fetchAll(db, sql: TopDaily.dayBoundsSQL(app: "?1", from: from, to: to), arguments: [app])
                .map { row in (count: row[0] as Int, least: row[1] as Int) }
            return TopDaily.answer(limit: limit, candidates: candidates, totals: totals, dayBounds: bounds)
        }
    }

    /// Adds day rows and the same counters to their rollups (`StatsRollups`), in the caller's transaction.
    private static func add(_ rows: [(key: LinkDayKey, counts: LinkDayCounts)], _ db: Database) throws {
        let placeholders = Array(repeating: "?", count: LinkDayCounts.columns.count).joined(separator: ", ")
        let daily = try DirectStatement(db, sql: """
            INSERT INTO link_stats_daily (linkId, day, app, \(DeferredSchema.counters)) VALUES (?, ?, ?, \(placeholders))
            \(DeferredSchema.addOnConflict)
            """)
        for (key, value) in rows where !value.isZero {
            try daily.run { $0.add(key.linkID); $0.add(key.day.number); $0.add(key.app); $0.add(value) }
        }
        let appDaily = try DirectStatement(db, sql: """
            INSERT INTO app_stats_daily (app, day, \(DeferredSchema.counters)) VALUES (?, ?, \(placeholders))
            \(StatsRollups.addOnConflict(table: "app_stats_daily", key: StatsRollups.appDayKey))
            """)
        for row in StatsRollups.appDays(rows) {
            try appDaily.run { $0.add(row.app); $0.add(row.day); $0.add(row.counts) }
        }
        let monthly = try DirectStatement(db, sql: """
            INSERT INTO link_stats_monthly (app, month, linkId, \(DeferredSchema.counters)) VALUES (?, ?, ?, \(placeholders))
            \(StatsRollups.addOnConflict(table: "link_stats_monthly", key: StatsRollups.linkMonthKey))
            """)
        for (key, value) in StatsRollups.linkMonths(rows) {
            try monthly.run { $0.add(key.app); $0.add(key.day.number); $0.add(key.linkID); $0.add(value) }
        }
    }

    private static func days(_ db: Database, sql: String, arguments: StatementArguments) throws -> [(StatsDay, LinkDayCounts)] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in (StatsDay(number: row[0]), counts(row, from: 1)) }
    }

    private static func counts(_ row: Row, from start: Int) -> LinkDayCounts {
        LinkDayCounts(values: (0..<LinkDayCounts.columns.count).map { (row[start + $0] as Int?) ?? 0 })
    }

    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}
