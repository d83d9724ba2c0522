import Foundation
import LinkStore

// The claim and daily-counter tables (deferred deep links, analytics), forwarded like every other table until a fault is set.
extension FaultInjectingBackend {
    func insertClaim(_ claim: ClaimRecord, maxPerLink: Int, now: Date) async throws -> Bool {
        try check(); return try await base.insertClaim(claim, maxPerLink: maxPerLink, now: now)
    }
    func liveClaimCount(now: Date) async throws -> Int {
        try check(); return try await base.liveClaimCount(now: now)
    }
    func peekClaim(lookupKey: Data, now: Date) async throws -> ClaimRecord? {
        try check(); return try await base.peekClaim(lookupKey: lookupKey, now: now)
    }
    func redeemClaim(
        lookupKey: Data, now: Date, events: (@Sendable (ClaimRecord, LinkRecord?) -> [WebhookEvent])?
    ) async throws -> ClaimRecord? {
        try check(); return try await base.redeemClaim(lookupKey: lookupKey, now: now, events: events)
    }
    func expireClaims(now: Date) async throws -> [String: Int] { try check(); return try await base.expireClaims(now: now) }
    func addShareEvents(_ batch: ShareEventBatch) async throws { try check(); try await base.addShareEvents(batch) }
    func linkStats(linkID: String, from: StatsDay, to: StatsDay) async throws -> [(StatsDay, LinkDayCounts)] {
        try check(); return try await base.linkStats(linkID: linkID, from: from, to: to)
    }
    func appStatsByDay(app: String, from: StatsDay, to: StatsDay) async throws -> [(StatsDay, LinkDayCounts)] {
        try check(); return try await base.appStatsByDay(app: app, from: from, to: to)
    }
    func appTopLinks(app: String, from: StatsDay, to: StatsDay, limit: Int, exactRowLimit: Int) async throws -> TopLinks {
        try check(); return try await base.appTopLinks(app: app, from: from, to: to, limit: limit, exactRowLimit: exactRowLimit)
    }
    func linkSources(linkID: String, from: StatsDay, to: StatsDay) async throws -> SourceTotals {
        try check(); return try await base.linkSources(linkID: linkID, from: from, to: to)
    }
    func appSources(app: String, from: StatsDay, to: StatsDay) async throws -> SourceTotals {
        try check(); return try await base.appSources(app: app, from: from, to: to)
    }
}
