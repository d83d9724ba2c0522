public import Foundation

/// The webhook endpoints, the outbox of events to deliver, and each endpoint's delivery log.
///
/// Events enter the outbox only inside the transaction of the change they report (`WebhookEvent`), so a change
/// and its events are stored together or not at all, and an event once stored is delivered at least once: rows
/// stay until an attempt succeeds or the event is given up, whatever happens to the process in between.
/// Several instances share the outbox through leases: `claimWebhookDeliveries` hands each due row to one caller
/// for `lease` (PostgreSQL: `FOR UPDATE SKIP LOCKED`), and only that caller's `finishWebhookDelivery` changes it.
public protocol WebhookTable: Sendable {
    /// Inserts a new link and queues `events` in the same transaction. Throws `conflict` if the id exists.
    func insertLink(_ record: LinkRecord, events: [WebhookEvent]) async throws
    /// Inserts an endpoint and writes `audit`, all or none; `limit` when its app has `maxPerApp` endpoints already.
    func insertWebhookEndpoint(_ endpoint: WebhookEndpoint, maxPerApp: Int, audit: AuditEntry) async throws
    /// The endpoints of `app` (every app when nil), oldest first.
    func fetchWebhookEndpoints(app: String?) async throws -> [WebhookEndpoint]
    /// The endpoint, nil when there is none.
    func fetchWebhookEndpoint(id: String) async throws -> WebhookEndpoint?
    /// Replaces an endpoint's url, events, enabled, updated and failingSince and writes `audit`, all or none; false
    /// (nothing written) when there is no such endpoint.
    func updateWebhookEndpoint(_ endpoint: WebhookEndpoint, audit: AuditEntry) async throws -> Bool
    /// Deletes an endpoint with its pending deliveries and log and writes `audit`, all or none; false when there is
    /// no such endpoint.
    func deleteWebhookEndpoint(id: String, audit: AuditEntry) async throws -> Bool
    /// Leases to `owner`, until `now + lease`, at most `limit` due rows (next attempt at or before `now`, no live
    /// lease of another owner, endpoint enabled and not failing), oldest due first.
    func claimWebhookDeliveries(owner: String, limit: Int, now: Date, lease: Duration) async throws -> [WebhookDelivery]
    /// Records an attempt in the endpoint's log (keeping its newest `keepAttempts`; nothing when the endpoint was
    /// deleted meanwhile) and applies `disposition` to the row, if `owner` still holds its lease.
    func finishWebhookDelivery(
        _ delivery: WebhookDelivery, owner: String, attempt: WebhookAttempt, disposition: WebhookDisposition, keepAttempts: Int
    ) async throws
    /// An endpoint's newest attempts, newest first, at most `limit`.
    func fetchWebhookAttempts(endpointID: String, limit: Int) async throws -> [WebhookAttempt]
    /// How many deliveries are waiting (the outbox depth).
    func countWebhookOutbox() async throws -> Int
}
