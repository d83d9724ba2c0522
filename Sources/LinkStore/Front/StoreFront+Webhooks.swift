public import Foundation

// Webhooks through the front: nothing of them is held in memory, so these pass to the backend.
extension StoreFront {
    /// Stores a new link and queues `events` in the same transaction. Throws `conflict` if the id or the short id
    /// exists. Its short id is known from then on (not unknown, were it asked for before).
    public func createLink(_ record: LinkRecord, events: [WebhookEvent]) async throws {
        try await backend.insertLink(record, events: events)
        if let shortID = record.shortID { shortIDs.put(shortID, linkID: record.id) }
        noteCustomPath(of: record)
    }

    /// Stores a new endpoint with `audit`; `conflict` when its app has `maxPerApp` endpoints.
    public func createWebhookEndpoint(_ endpoint: WebhookEndpoint, maxPerApp: Int, audit: AuditEntry) async throws {
        try await backend.insertWebhookEndpoint(endpoint, maxPerApp: maxPerApp, audit: audit)
    }

    /// The endpoints of `app` (every app when nil), oldest first.
    public func webhookEndpoints(app: String?) async throws -> [WebhookEndpoint] {
        try await backend.fetchWebhookEndpoints(app: app)
    }

    /// The endpoint, nil when there is none.
    public func webhookEndpoint(id: String) async throws -> WebhookEndpoint? {
        try await backend.fetchWebhookEndpoint(id: id)
    }

    /// Saves an endpoint's changes with `audit`; false when there is no such endpoint.
    public func updateWebhookEndpoint(_ endpoint: WebhookEndpoint, audit: AuditEntry) async throws -> Bool {
        try await backend.updateWebhookEndpoint(endpoint, audit: audit)
    }

    /// Deletes an endpoint, its pending deliveries and its log, with `audit`; false when there is none.
    public func deleteWebhookEndpoint(id: String, audit: AuditEntry) async throws -> Bool {
        try await backend.deleteWebhookEndpoint(id: id, audit: audit)
    }

    /// Leases due deliveries to `owner` (see `WebhookTable.claimWebhookDeliveries`).
    public func claimWebhookDeliveries(owner: String, limit: Int, now: Date, lease: Duration) async throws -> [WebhookDelivery] {
        try await backend.claimWebhookDeliveries(owner: owner, limit: limit, now: now, lease: lease)
    }

    /// Logs an attempt and applies `disposition` to its delivery.
    public func finishWebhookDelivery(
        _ delivery: WebhookDelivery, owner: String, attempt: WebhookAttempt, disposition: WebhookDisposition, keepAttempts: Int
    ) async throws {
        try await backend.finishWebhookDelivery(
            delivery, owner: owner, attempt: attempt, disposition: disposition, keepAttempts: keepAttempts)
    }

    /// An endpoint's newest attempts, newest first.
    public func webhookAttempts(endpointID: String, limit: Int) async throws -> [WebhookAttempt] {
        try await backend.fetchWebhookAttempts(endpointID: endpointID, limit: limit)
    }

    /// How many deliveries wait.
    public func webhookOutboxDepth() async throws -> Int {
        try await backend.countWebhookOutbox()
    }
}
