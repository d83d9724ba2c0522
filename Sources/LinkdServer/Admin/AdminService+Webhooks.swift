import Foundation
import HTTPTypes
import LinkRouter
import LinkStore
import Logging
import TokenSigning

/// Webhook endpoints, administered like every other admin action: validated here, audited in the change's own
/// transaction (the URL's host only: a URL's path or query may hold a receiver's token), logged once done.
extension AdminService {
    /// The most endpoints one app may have.
    static let maxWebhookEndpointsPerApp = 20
    /// The most attempts one delivery-log request returns (the log keeps `WebhookDeliverySettings.keptAttempts`).
    static let maxWebhookLogEntries = 100

    /// Registers an endpoint of `app` for `events`; its signing secret is returned once and stored sealed.
    func createWebhook(
        app: String, url: String, events names: [String], enabled: Bool, by caller: Caller, logger: Logger
    ) async throws -> (WebhookEndpoint, WebhookSecret) {
        try requireApp(app)
        try checkWebhookURL(url)
        let events = try Self.eventTypes(names)
        let id = "wh_" + LinkID.random().hex.prefix(20)
        let secret = WebhookSecret.generate()
        let sealed: [UInt8]
        do { sealed = try secret.sealed(with: masterKey, endpointID: id) } catch {
            throw AdminError(.failed, "cannot seal the webhook secret")
        }
        let now = Date()
        let endpoint = WebhookEndpoint(
            id: id, app: app, url: url, events: events, enabled: enabled, sealedSecret: Data(sealed), created: now, updated: now)
        let entry = Self.webhookEntry(caller, .webhookCreate, endpoint, at: now)
        try await LinkService.storing {
            try await store.createWebhookEndpoint(endpoint, maxPerApp: Self.maxWebhookEndpointsPerApp, audit: entry)
        }
        logger.logAdminAction(.webhookCreate, actor: caller.keyID, Self.logged(endpoint))
        return (endpoint, secret)
    }

    /// Changes an endpoint's URL, events or state (`enabled: true` also clears `failing`: its waiting deliveries go
    /// out again).
    func updateWebhook(
        id: String, url: String?, events names: [String]?, enabled: Bool?, by caller: Caller, logger: Logger
    ) async throws -> WebhookEndpoint {
        var endpoint = try await webhook(id: id)
        if let url {
            try checkWebhookURL(url)
            endpoint.url = url
        }
        if let names { endpoint.events = try Self.eventTypes(names) }
        if let enabled {
            endpoint.enabled = enabled
            if enabled { endpoint.failingSince = nil }
        }
        endpoint.updated = Date()
        let entry = Self.webhookEntry(caller, .webhookUpdate, endpoint, at: endpoint.updated)
        guard try await LinkService.storing({ try await store.updateWebhookEndpoint(endpoint, audit: entry) }) else {
            throw AdminError(.notFound, "no webhook endpoint \(endpoint.id)")
        }
        logger.logAdminAction(.webhookUpdate, actor: caller.keyID, Self.logged(endpoint))
        return endpoint
    }

    /// Deletes an endpoint (its pending deliveries and log go with it); the deleted endpoint.
    func deleteWebhook(id: String, by caller: Caller, logger: Logger) async throws -> WebhookEndpoint {
        let endpoint = try await webhook(id: id)
        let entry = Self.webhookEntry(caller, .webhookDelete, endpoint, at: Date())
        guard try await LinkService.storing({ try await store.deleteWebhookEndpoint(id: endpoint.id, audit: entry) }) else {
            throw AdminError(.notFound, "no webhook endpoint \(endpoint.id)")
        }
        logger.logAdminAction(.webhookDelete, actor: caller.keyID, Self.logged(endpoint))
        return endpoint
    }

    /// The endpoints of `app` (every app: nil).
    func webhooks(app: String?) async throws -> [WebhookEndpoint] {
        if let app { try requireApp(app) }
        return try await LinkService.storing { try await store.webhookEndpoints(app: app) }
    }

    /// The endpoint `id`; 404 when there is none.
    func webhook(id: String) async throws -> WebhookEndpoint {
        // Two steps, not one `guard … let … try await`: that form crashed the release build's coroutine splitting
        // (Swift 6.3.1, LLVM CoroSplit, signal 11).
        let found = id.utf8.count <= 64 ? try await findWebhook(id: id) : nil
        guard let endpoint = found else { throw AdminError(.notFound, "no webhook endpoint \(id.prefix(64))") }
        return endpoint
    }

    private func findWebhook(id: String) async throws -> WebhookEndpoint? {
        try await LinkService.storing { try await store.webhookEndpoint(id: id) }
    }

    /// The newest `limit` (1–`maxWebhookLogEntries`) delivery attempts of the endpoint `id`, newest first.
    func webhookAttempts(id: String, limit: Int) async throws -> [WebhookAttempt] {
        guard (1...Self.maxWebhookLogEntries).contains(limit) else {
            throw AdminError(.badRequest, "limit must be 1–\(Self.maxWebhookLogEntries)")
        }
        let endpoint = try await webhook(id: id)
        return try await LinkService.storing { try await store.webhookAttempts(endpointID: endpoint.id, limit: limit) }
    }

    private func checkWebhookURL(_ url: String) throws {
        do { try webhookPolicy.check(url: url) } catch {
            throw AdminError(.invalid, error.message)
        }
    }

    /// The event types named, each known and named once; at least one.
    private static func eventTypes(_ names: [String]) throws -> [WebhookEventType] {
        let known = WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")
        guard !names.isEmpty, names.count <= WebhookEventType.allCases.count, Set(names).count == names.count else {
            throw AdminError(.invalid, "events must name 1–\(WebhookEventType.allCases.count) distinct types of: \(known)")
        }
        return try names.map { name in
            guard let type = WebhookEventType(rawValue: name) else {
                throw AdminError(.invalid, "unknown event type '\(name.prefix(64))' (known: \(known))")
            }
            return type
        }
    }

    /// The audit entry of a change to `endpoint` (its URL's host only).
    private static func webhookEntry(_ caller: Caller, _ action: AuditAction, _ endpoint: WebhookEndpoint, at date: Date) -> AuditEntry {
        AuditEntry(at: date, actor: caller.keyID, action: action.rawValue, detail: "\(endpoint.app) \(endpoint.id) \(host(endpoint.url))",
                   app: endpoint.app)
    }

    private static func logged(_ endpoint: WebhookEndpoint) -> Logger.Metadata {
        ["app": "\(endpoint.app)", "webhook": "\(endpoint.id)", "host": "\(host(endpoint.url))"]
    }

    private static func host(_ url: String) -> String { URLComponents(string: url)?.host ?? "?" }
}
