public import Foundation

// Claim codes and daily counters: no memory of their own here (a claim must be taken from the database itself, so
// that it is taken once across instances; counters are buffered by `ShareEventBuffer`), so these go straight through.
extension StoreFront {
    /// Stores a new claim unless its link has `maxPerLink` unexpired claims; false when that cap is reached.
    public func insertClaim(_ claim: ClaimRecord, maxPerLink: Int, now: Date = Date()) async throws -> Bool {
        try await backend.insertClaim(claim, maxPerLink: maxPerLink, now: now)
    }

    /// How many unexpired claims the store holds (a read; `LiveClaimGauge` asks at most once a second).
    public func liveClaimCount(now: Date = Date()) async throws -> Int {
        try await backend.liveClaimCount(now: now)
    }

    /// The unexpired claim with this lookup key, left in place; nil when there is none.
    public func peekClaim(lookupKey: Data, now: Date = Date()) async throws -> ClaimRecord? {
        try await backend.peekClaim(lookupKey: lookupKey, now: now)
    }

    /// Takes the unexpired claim with this lookup key out of the store, once; nil when there is none. The webhook
    /// `events` of the claim go to the outbox in its transaction.
    public func redeemClaim(
        lookupKey: Data, now: Date = Date(), events: (@Sendable (ClaimRecord, LinkRecord?) -> [WebhookEvent])? = nil
    ) async throws -> ClaimRecord? {
        try await backend.redeemClaim(lookupKey: lookupKey, now: now, events: events)
    }

    /// Deletes expired claims, counting them per link; how many, by app.
    public func expireClaims(now: Date = Date()) async throws -> [String: Int] {
        try await backend.expireClaims(now: now)
    }

    /// Adds a flush's events (`ShareEventBuffer.flush`): the click totals and the day rows, in one transaction.
    public func addShareEvents(_ batch: ShareEventBatch) async throws {
        try await backend.addShareEvents(batch)
    }

    /// A link's non-zero day rows in the range, oldest first.
    public func linkStats(linkID: String, from: StatsDay, to: StatsDay) async throws -> [(StatsDay, LinkDayCounts)] {
        try await backend.linkStats(linkID: linkID, from: from, to: to)
    }

    /// An app's counters per day in the range, oldest first.
    public func appStatsByDay(app: String, from: StatsDay, to: StatsDay) async throws -> [(StatsDay, LinkDayCounts)] {
        try await backend.appStatsByDay(app: app, from: from, to: to)
    }

    /// An app's most clicked links in the range, at most `limit` (`TopDaily` past `exactRowLimit` link-months).
    public func appTopLinks(
        app: String, from: StatsDay, to: StatsDay, limit: Int, exactRowLimit: Int = TopDaily.exactRowLimit
    ) async throws -> TopLinks {
        try await backend.appTopLinks(app: app, from: from, to: to, limit: limit, exactRowLimit: exactRowLimit)
    }

    /// A link's openings by source in the range.
    public func linkSources(linkID: String, from: StatsDay, to: StatsDay) async throws -> SourceTotals {
        try await backend.linkSources(linkID: linkID, from: from, to: to)
    }

    /// An app's openings by source in the range.
    public func appSources(app: String, from: StatsDay, to: StatsDay) async throws -> SourceTotals {
        try await backend.appSources(app: app, from: from, to: to)
    }
}
