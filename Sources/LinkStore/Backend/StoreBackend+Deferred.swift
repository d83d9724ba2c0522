public import Foundation

// The tables of deferred deep links (claim codes) and of per-link daily analytics, composed into `StoreBackend`.

/// Live claim codes: made by a store redirect, claimed once by the app, expired by the sweep.
public protocol ClaimTable: Sendable {
    /// Stores a new claim unless its link has `maxPerLink` unexpired claims already (then nothing is written and it
    /// answers false): a count over the link's rows of one index, cheap inside the write. Codes are 128 random bits:
    /// a lookup key that exists is a failure of the random source, a `conflict`.
    func insertClaim(_ claim: ClaimRecord, maxPerLink: Int, now: Date) async throws -> Bool
    /// How many unexpired claims the store holds: a read, outside the writer (the caller decides how often to ask).
    func liveClaimCount(now: Date) async throws -> Int
    /// The unexpired claim with this lookup key, left in place (a claim checks its request against the claim's app
    /// before taking it); nil when there is none.
    func peekClaim(lookupKey: Data, now: Date) async throws -> ClaimRecord?
    /// Takes the unexpired claim with this lookup key out of the store, so that exactly one caller ever gets it (on
    /// a shared store too); nil when there is none (never made, claimed already, or expired). `events` makes the
    /// webhook events of a claim taken, from the claim and its link's record (nil when the link is gone); they are
    /// written to the outbox in the claim's own transaction.
    func redeemClaim(
        lookupKey: Data, now: Date, events: (@Sendable (ClaimRecord, LinkRecord?) -> [WebhookEvent])?
    ) async throws -> ClaimRecord?
    /// Deletes the claims expired at `now` and adds each to its link's `claims_expired` of the day it expired, in one
    /// transaction (on a shared store each is counted by exactly one instance). How many were expired, by app.
    func expireClaims(now: Date) async throws -> [String: Int]
}

/// Per-link daily counters: clicks by platform, previews, installs, claims, and clicks by source (campaign, referring
/// host). No address, user agent or full referrer is stored.
public protocol LinkStatsTable: Sendable {
    /// Adds a flush's events: the click totals and last openings (`clicks`), the day rows and their rollups (the
    /// app's days, the links' months), in one transaction, so all or none are written (instances sharing the store
    /// add to the same rows).
    func addShareEvents(_ batch: ShareEventBatch) async throws
    /// A link's non-zero day rows from `from` to `to` (inclusive), oldest first.
    func linkStats(linkID: String, from: StatsDay, to: StatsDay) async throws -> [(StatsDay, LinkDayCounts)]
    /// An app's counters summed over its links per day, from `from` to `to` (inclusive), oldest first: the sums of
    /// the day rows (read from their rollup).
    func appStatsByDay(app: String, from: StatsDay, to: StatsDay) async throws -> [(StatsDay, LinkDayCounts)]
    /// An app's links with the most clicks from `from` to `to` (inclusive), at most `limit`, most clicked first
    /// (ties by link id): exactly from the rollups when the range holds at most `exactRowLimit` of the app's
    /// link-months, else from the daily tops (`TopDaily`), saying whether the list is provably exact.
    func appTopLinks(app: String, from: StatsDay, to: StatsDay, limit: Int, exactRowLimit: Int) async throws -> TopLinks
    /// A link's openings by source (campaign, referrer) summed from `from` to `to` (inclusive).
    func linkSources(linkID: String, from: StatsDay, to: StatsDay) async throws -> SourceTotals
    /// An app's openings by source summed from `from` to `to` (inclusive), read from the app's rollup.
    func appSources(app: String, from: StatsDay, to: StatsDay) async throws -> SourceTotals
}
