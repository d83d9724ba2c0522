import Foundation
import LinkStore

// The webhook tables, forwarded like the rest: a fault makes every call fail as the database would.
extension FaultInjectingBackend {
    private func failIfUnavailable() throws {
        if case .unavailable = fault { throw LinkStoreError(.storage, "injected: the database does not answer") }
    }

    func insertLink(_ record: LinkRecord, events: [WebhookEvent]) async throws {
        if case .linkIDCollision = fault { throw LinkStoreError(.conflict, "injected: link \(record.id) exists") }
        try failIfUnavailable()
        try await base.insertLink(record, events: events)
    }
    func insertWebhookEndpoint(_ endpoint: WebhookEndpoint, maxPerApp: Int, audit: AuditEntry) async throws {
        try failIfUnavailable()
        try await base.insertWebhookEndpoint(endpoint, maxPerApp: maxPerApp, audit: audit)
    }
    func fetchWebhookEndpoints(app: String?) async throws -> [WebhookEndpoint] {
        try failIfUnavailable()
        return try await base.fetchWebhookEndpoints(app: app)
    }
    func fetchWebhookEndpoint(id: String) async throws -> WebhookEndpoint? {
        try failIfUnavailable()
        return try await base.fetchWebhookEndpoint(id: id)
    }
    func updateWebhookEndpoint(_ endpoint: WebhookEndpoint, audit: AuditEntry) async throws -> Bool {
        try failIfUnavailable()
        return try await base.updateWebhookEndpoint(endpoint, audit: audit)
    }
    func deleteWebhookEndpoint(id: String, audit: AuditEntry) async throws -> Bool {
        try failIfUnavailable()
        return try await base.deleteWebhookEndpoint(id: id, audit: audit)
    }
    func claimWebhookDeliveries(owner: String, limit: Int, now: Date, lease: Duration) async throws -> [WebhookDelivery] {
        try failIfUnavailable()
        return try await base.claimWebhookDeliveries(owner: owner, limit: limit, now: now, lease: lease)
    }
    func finishWebhookDelivery(
        _ delivery: WebhookDelivery, owner: String, attempt: WebhookAttempt, disposition: WebhookDisposition, keepAttempts: Int
    ) async throws {
        try failIfUnavailable()
        try await base.finishWebhookDelivery(delivery, owner: owner, attempt: attempt, disposition: disposition, keepAttempts: keepAttempts)
    }
    func fetchWebhookAttempts(endpointID: String, limit: Int) async throws -> [WebhookAttempt] {
        try failIfUnavailable()
        return try await base.fetchWebhookAttempts(endpointID: endpointID, limit: limit)
    }
    func countWebhookOutbox() async throws -> Int {
        try failIfUnavailable()
        return try await base.countWebhookOutbox()
    }
}
