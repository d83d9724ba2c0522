import Foundation
import Hummingbird
import LinkRouter
import LinkStore
import Logging
import TokenSigning

/// The webhook endpoints (admin key only; every change audited in its own transaction):
/// - `POST /v1/admin/webhooks` `{app, url, events, enabled?}` → 201, with the signing secret (`whsec_…`) shown once;
/// - `GET /v1/admin/webhooks[?app=]`, `GET /v1/admin/webhooks/{id}`;
/// - `PATCH /v1/admin/webhooks/{id}` `{url?, events?, enabled?}` (`enabled: true` also clears `failing`);
/// - `DELETE /v1/admin/webhooks/{id}` (its pending deliveries and log go with it);
/// - `GET /v1/admin/webhooks/{id}/deliveries[?limit=]`: its newest attempts, newest first.
struct WebhookRoutes: Sendable {
    let store: StoreFront
    /// The apps in force (an endpoint's app must be one of them).
    let apps: AppsInForce
    let auth: APIKeyAuthenticator
    let masterKey: MasterKey
    let policy: WebhookURLPolicy
    let maxBodyBytes: Int

    /// The most endpoints one app may have.
    static let maxEndpointsPerApp = 20
    /// The most attempts one delivery-log request returns (the log keeps `WebhookDeliverySettings.keptAttempts`).
    static let maxLogEntries = 100

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
        try apps.router.requireLoaded(app: body.app)
        try checkURL(body.url)
        let events = try Self.eventTypes(body.events)
        let id = "wh_" + LinkID.random().hex.prefix(20)
        let secret = WebhookSecret.generate()
        let sealed: [UInt8]
        do { sealed = try secret.sealed(with: masterKey, endpointID: id) } catch {
            throw APIError(.internalServerError, .internalError, "cannot seal the webhook secret")
        }
        let now = Date()
        let endpoint = WebhookEndpoint(
            id: id, app: body.app, url: body.url, events: events, enabled: body.enabled ?? true, sealedSecret: Data(sealed),
            created: now, updated: now)
        let entry = Self.entry(caller, .webhookCreate, endpoint, at: now)
        try await LinkService.storing {
            try await store.createWebhookEndpoint(endpoint, maxPerApp: Self.maxEndpointsPerApp, audit: entry)
        }
        context.logger.logAdminAction(.webhookCreate, actor: caller.keyID, Self.logged(endpoint))
        return try JSONBody.response(EndpointView(endpoint, secret: secret.text), status: .created)
    }

    /// `GET /v1/admin/webhooks[?app=]`.
    private func list(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        let app = request.uri.queryParameters.get("app")
        if let app { try apps.router.requireLoaded(app: app) }
        let endpoints = try await LinkService.storing { try await store.webhookEndpoints(app: app) }
        return try JSONBody.response(EndpointList(webhooks: endpoints.map { EndpointView($0) }))
    }

    /// `GET /v1/admin/webhooks/{id}`.
    private func show(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        return try JSONBody.response(EndpointView(try await existing(context)))
    }

    /// `PATCH /v1/admin/webhooks/{id}`.
    private func update(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let change = try await JSONBody.decode(
            EndpointChange.self, from: request, maxBytes: maxBodyBytes, allowedKeys: ["url", "events", "enabled"])
        var endpoint = try await existing(context)
        if let url = change.url {
            try checkURL(url)
            endpoint.url = url
        }
        if let events = change.events { endpoint.events = try Self.eventTypes(events) }
        if let enabled = change.enabled {
            endpoint.enabled = enabled
            // Enabling a failing endpoint is how it is brought back: its waiting deliveries go out again.
            if enabled { endpoint.failingSince = nil }
        }
        endpoint.updated = Date()
        let entry = Self.entry(caller, .webhookUpdate, endpoint, at: endpoint.updated)
        guard try await LinkService.storing({ try await store.updateWebhookEndpoint(endpoint, audit: entry) }) else {
            throw APIError(.notFound, .notFound, "no webhook endpoint \(endpoint.id)")
        }
        context.logger.logAdminAction(.webhookUpdate, actor: caller.keyID, Self.logged(endpoint))
        return try JSONBody.response(EndpointView(endpoint))
    }

    /// `DELETE /v1/admin/webhooks/{id}`: the deleted endpoint.
    private func delete(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let endpoint = try await existing(context)
        let entry = Self.entry(caller, .webhookDelete, endpoint, at: Date())
        guard try await LinkService.storing({ try await store.deleteWebhookEndpoint(id: endpoint.id, audit: entry) }) else {
            throw APIError(.notFound, .notFound, "no webhook endpoint \(endpoint.id)")
        }
        context.logger.logAdminAction(.webhookDelete, actor: caller.keyID, Self.logged(endpoint))
        return try JSONBody.response(EndpointView(endpoint))
    }

    /// `GET /v1/admin/webhooks/{id}/deliveries[?limit=]`.
    private func deliveries(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        let limitText = request.uri.queryParameters.get("limit") ?? "50"
        guard let limit = Int(limitText), (1...Self.maxLogEntries).contains(limit) else {
            throw APIError(.badRequest, .badRequest, "limit must be 1–\(Self.maxLogEntries)")
        }
        let endpoint = try await existing(context)
        let attempts = try await LinkService.storing { try await store.webhookAttempts(endpointID: endpoint.id, limit: limit) }
        return try JSONBody.response(AttemptList(deliveries: attempts.map {
            AttemptView(
                eventId: $0.eventID, type: $0.type, attempt: $0.attempt, at: $0.at, status: $0.status,
                outcome: $0.outcome.rawValue, durationMs: $0.durationMilliseconds, error: $0.error)
        }))
    }

    private func existing(_ context: LinkdRequestContext) async throws -> WebhookEndpoint {
        let id = try context.parameters.require("id")
        guard id.utf8.count <= 64, let endpoint = try await LinkService.storing({ try await store.webhookEndpoint(id: id) }) else {
            throw APIError(.notFound, .notFound, "no webhook endpoint \(id.prefix(64))")
        }
        return endpoint
    }

    private func checkURL(_ url: String) throws {
        do { try policy.check(url: url) } catch {
            throw APIError(.unprocessableContent, .unprocessable, error.message)
        }
    }

    /// The event types named, each known and named once; at least one.
    private static func eventTypes(_ names: [String]) throws -> [WebhookEventType] {
        let known = WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")
        guard !names.isEmpty, names.count <= WebhookEventType.allCases.count, Set(names).count == names.count else {
            throw APIError(.unprocessableContent, .unprocessable, "events must name 1–\(WebhookEventType.allCases.count) distinct types of: \(known)")
        }
        return try names.map { name in
            guard let type = WebhookEventType(rawValue: name) else {
                throw APIError(.unprocessableContent, .unprocessable, "unknown event type '\(name.prefix(64))' (known: \(known))")
            }
            return type
        }
    }

    /// The audit entry of a change to `endpoint` (its URL's host only: a URL's path or query may hold a receiver's token).
    private static func entry(_ caller: Caller, _ action: AuditAction, _ endpoint: WebhookEndpoint, at date: Date) -> AuditEntry {
        AuditEntry(at: date, actor: caller.keyID, action: action.rawValue, detail: "\(endpoint.app) \(endpoint.id) \(host(endpoint.url))",
                   app: endpoint.app)
    }

    private static func logged(_ endpoint: WebhookEndpoint) -> Logger.Metadata {
        ["app": "\(endpoint.app)", "webhook": "\(endpoint.id)", "host": "\(host(endpoint.url))"]
    }

    private static func host(_ url: String) -> String { URLComponents(string: url)?.host ?? "?" }
}
