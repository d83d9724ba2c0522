import Foundation
import Hummingbird
import LinkdHTTP
import LinkRouter
import LinkStore
import Logging
import TokenSigning

/// The webhook endpoints' admin API (admin key only); the actions are `AdminService`'s (`AdminService+Webhooks`):
/// - `POST /v1/admin/webhooks` `{app, url, events, enabled?}` → 201, with the signing secret (`whsec_…`) shown once;
/// - `GET /v1/admin/webhooks[?app=]`, `GET /v1/admin/webhooks/{id}`;
/// - `PATCH /v1/admin/webhooks/{id}` `{url?, events?, enabled?}` (`enabled: true` also clears `failing`);
/// - `DELETE /v1/admin/webhooks/{id}` (its pending deliveries and log go with it);
/// - `GET /v1/admin/webhooks/{id}/deliveries[?limit=]`: its newest attempts, newest first.
struct WebhookRoutes: Sendable {
    /// The admin actions, webhooks among them.
    let admin: AdminService
    let auth: APIKeyAuthenticator
    let maxBodyBytes: Int

    private struct NewEndpoint: Decodable { var app: String; var url: String; var events: [String]; var enabled: Bool? }
    private struct EndpointChange: Decodable { var url: String?; var events: [String]?; var enabled: Bool? }

    /// An endpoint as the API shows it; the secret only in the answer to its creation.
    private struct EndpointView: Encodable {
        let id: String
        let app: String
        let url: String
        let events: [String]
        let enabled: Bool
        let failing: Bool
        let failingSince: Date?
        let createdAt: Date
        let updatedAt: Date
        let secret: String?

        init(_ endpoint: WebhookEndpoint, secret: String? = nil) {
            id = endpoint.id
            app = endpoint.app
            url = endpoint.url
            events = endpoint.events.map(\.rawValue)
            enabled = endpoint.enabled
            failing = endpoint.failingSince != nil
            failingSince = endpoint.failingSince
            createdAt = endpoint.created
            updatedAt = endpoint.updated
            self.secret = secret
        }
    }
    private struct EndpointList: Encodable { let webhooks: [EndpointView] }
    private struct AttemptView: Encodable {
        let eventId: String
        let type: String
        let attempt: Int
        let at: Date
        let status: Int?
        let outcome: String
        let durationMs: Int
        let error: String?
    }
    private struct AttemptList: Encodable { let deliveries: [AttemptView] }

    func register(on router: some RouterMethods<LinkdRequestContext>) {
        let hooks = router.group("v1/admin/webhooks")
        hooks.post("") { try await create($0, $1) }
        hooks.get("") { try await list($0, $1) }
        hooks.get("{id}") { try await show($0, $1) }
        hooks.patch("{id}") { try await update($0, $1) }
        hooks.delete("{id}") { try await delete($0, $1) }
        hooks.get("{id}/deliveries") { try await deliveries($0, $1) }
    }

    /// `POST /v1/admin/webhooks`.
    private func create(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let body = try await JSONBody.decode(
            NewEndpoint.self, from: request, maxBytes: maxBodyBytes, allowedKeys: ["app", "url", "events", "enabled"])
        let (endpoint, secret) = try await admin.createWebhook(
            app: body.app, url: body.url, events: body.events, enabled: body.enabled ?? true, by: caller, logger: context.logger)
        return try JSONBody.response(EndpointView(endpoint, secret: secret.text), status: .created)
    }

    /// `GET /v1/admin/webhooks[?app=]`.
    private func list(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        let endpoints = try await admin.webhooks(app: request.uri.queryParameters.get("app"))
        return try JSONBody.response(EndpointList(webhooks: endpoints.map { EndpointView($0) }))
    }

    /// `GET /v1/admin/webhooks/{id}`.
    private func show(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        return try JSONBody.response(EndpointView(try await admin.webhook(id: try context.parameters.require("id"))))
    }

    /// `PATCH /v1/admin/webhooks/{id}`.
    private func update(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let change = try await JSONBody.decode(
            EndpointChange.self, from: request, maxBytes: maxBodyBytes, allowedKeys: ["url", "events", "enabled"])
        let endpoint = try await admin.updateWebhook(
            id: try context.parameters.require("id"), url: change.url, events: change.events, enabled: change.enabled,
            by: caller, logger: context.logger)
        return try JSONBody.response(EndpointView(endpoint))
    }

    /// `DELETE /v1/admin/webhooks/{id}`: the deleted endpoint.
    private func delete(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let endpoint = try await admin.deleteWebhook(id: try context.parameters.require("id"), by: caller, logger: context.logger)
        return try JSONBody.response(EndpointView(endpoint))
    }

    /// `GET /v1/admin/webhooks/{id}/deliveries[?limit=]`.
    private func deliveries(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        let limitText = request.uri.queryParameters.get("limit") ?? "50"
        guard let limit = Int(limitText) else {
            throw APIError(.badRequest, .badRequest, "limit must be 1–\(AdminService.maxWebhookLogEntries)")
        }
        let attempts = try await admin.webhookAttempts(id: try context.parameters.require("id"), limit: limit)
        return try JSONBody.response(AttemptList(deliveries: attempts.map {
            AttemptView(
                eventId: $0.eventID, type: $0.type, attempt: $0.attempt, at: $0.at, status: $0.status,
                outcome: $0.outcome.rawValue, durationMs: $0.durationMilliseconds, error: $0.error)
        }))
    }
}
