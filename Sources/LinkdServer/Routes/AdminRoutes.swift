import Foundation
import HTTPTypes
import Hummingbird
import LinkRouter
import LinkStore
import Logging
import TokenSigning

/// The admin API (admin key only; every change is written to the audit log in the change's own transaction):
/// - `GET /v1/admin/keys[?app=]` lists signing keys (never their secrets);
/// - `POST /v1/admin/keys/{app}/rotate` `{suite?}` makes a new active key, the old one verify-only (on a shared
///   store the new key is first written pending and activated once every instance knows it);
/// - `POST /v1/admin/keys/{app}/{kid}/retire` stops a key verifying (refused for an active key: rotate first);
/// - `POST /v1/admin/revocations` `{app, owner}` revokes every active link of an owner;
/// - `POST|GET /v1/admin/api-keys`, `DELETE /v1/admin/api-keys/{id}`: client and admin keys (secret shown once);
/// - `GET /v1/admin/audit[?limit=]`: the newest audit entries.
struct AdminRoutes: Sendable {
    let store: StoreFront
    let keys: KeyAdministration
    let router: LinkRouter.Router
    let auth: APIKeyAuthenticator
    let metrics: ServerMetrics
    let maxBodyBytes: Int

    /// Most audit entries one request returns.
    static let maxAuditEntries = 1000
    /// Longest API key label, in characters (Unicode code points, as JSON Schema counts them).
    static let maxLabelLength = 200

    private struct RotateRequest: Decodable { var suite: String? }
    private struct OwnerRevocation: Decodable { var app: String; var owner: String }
    private struct NewAPIKey: Decodable { var kind: String; var app: String?; var label: String }

    /// A signing key as the API shows it: no secret material, the suite by name.
    private struct KeyView: Encodable {
        let app: String
        let kid: UInt32
        let suite: String
        let state: String
        let createdAt: Date
        let activatedAt: Date?
        let verifyUntil: Date?
        let retiredAt: Date?
        let maxTokenLifetimeSeconds: UInt32

        init(_ info: KeyInfo) {
            app = info.app
            kid = info.kid
            suite = info.suite.name
            state = info.state.rawValue
            createdAt = info.createdAt
            activatedAt = info.activatedAt
            verifyUntil = info.verifyUntil
            retiredAt = info.retiredAt
            maxTokenLifetimeSeconds = info.maxTokenLifetime
        }
    }
    private struct KeyList: Encodable { let keys: [KeyView] }
    private struct RevokedCount: Encodable { let app: String; let owner: String; let revoked: Int }
    private struct APIKeyView: Encodable {
        let id: String
        let kind: String
        let app: String?
        let label: String
        let createdAt: Date
        let revokedAt: Date?
        /// Only in the answer to its creation.
        let key: String?

        init(_ record: APIKeyRecord, secret: String? = nil) {
            id = record.id
            kind = record.kind.rawValue
            app = record.app
            label = record.label
            createdAt = record.created
            revokedAt = record.revoked
            key = secret
        }
    }
    private struct APIKeyList: Encodable { let apiKeys: [APIKeyView] }
    private struct AuditView: Encodable { let seq: Int64?; let at: Date; let actor: String; let action: String; let detail: String }
    private struct AuditList: Encodable { let entries: [AuditView] }

    func register(on router: some RouterMethods<LinkdRequestContext>) {
        let admin = router.group("v1/admin")
        admin.get("keys") { try await listKeys($0, $1) }
        admin.post("keys/{app}/rotate") { try await rotateKey($0, $1) }
        admin.post("keys/{app}/{kid}/retire") { try await retireKey($0, $1) }
        admin.post("revocations") { try await revokeOwner($0, $1) }
        admin.post("api-keys") { try await createAPIKey($0, $1) }
        admin.get("api-keys") { try await listAPIKeys($0, $1) }
        admin.delete("api-keys/{id}") { try await revokeAPIKey($0, $1) }
        admin.get("audit") { try await auditLog($0, $1) }
    }

    /// `GET /v1/admin/keys[?app=]`: the signing keys (never their secrets).
    private func listKeys(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        let app = request.uri.queryParameters.get("app")
        if let app { try requireApp(app) }
        return try JSONBody.response(KeyList(keys: keys.keyring.keys(app: app).map(KeyView.init)))
    }

    /// `POST /v1/admin/keys/{app}/rotate` `{suite?}`: a new active key; the old one verifies only.
    private func rotateKey(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let app = try context.parameters.require("app")
        try requireApp(app)
        let body = try await optionalBody(RotateRequest.self, request, keys: ["suite"]) ?? RotateRequest()
        guard let suite = TokenSuite(name: body.suite ?? "hmac-sha256") else {
            throw APIError(.unprocessableContent, .unprocessable, "suite must be hmac-sha256 or ed25519")
        }
        let key = try await keyOperation {
            try await keys.rotate(app: app, suite: suite) { key in
                var entry = Self.entry(caller, "key.rotate", "\(app) \(suite.name) kid \(key.kid)")
                entry.events = [WebhookEvents.keyRotated(key, at: entry.at)]
                return entry
            }
        }
        context.logger.logAdminAction("key.rotate", actor: caller.keyID, ["app": "\(app)", "suite": "\(suite.name)", "kid": "\(key.kid)"])
        return try JSONBody.response(KeyView(key))
    }

    /// `POST /v1/admin/keys/{app}/{kid}/retire`: the key stops verifying (refused for the active key).
    private func retireKey(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let app = try context.parameters.require("app")
        try requireApp(app)
        guard let kid = context.parameters.get("kid").flatMap(UInt32.init),
              let key = keys.keyring.keys(app: app).first(where: { $0.kid == kid })
        else { throw APIError(.notFound, .notFound, "no such key of \(app)") }
        guard key.state != .active else {
            throw APIError(.conflict, .conflict, "key \(kid) is the active \(key.suite.name) key of \(app): rotate first")
        }
        try await keyOperation {
            try await keys.change(audit: { _ -> AuditEntry? in
                var entry = Self.entry(caller, "key.retire", "\(app) kid \(kid)")
                entry.events = [WebhookEvents.keyRetired(key, at: entry.at)]
                return entry
            }) {
                try $0.retire(app: app, keyID: kid)
            }
        }
        context.logger.logAdminAction("key.retire", actor: caller.keyID, ["app": "\(app)", "kid": "\(kid)"])
        guard let retired = keys.keyring.keys(app: app).first(where: { $0.kid == kid }) else {
            throw APIError(.notFound, .notFound, "no such key of \(app)")
        }
        return try JSONBody.response(KeyView(retired))
    }

    /// `POST /v1/admin/revocations` `{app, owner}`: every active link of the owner revoked.
    private func revokeOwner(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let body = try await JSONBody.decode(OwnerRevocation.self, from: request, maxBytes: maxBodyBytes, allowedKeys: ["app", "owner"])
        try requireApp(body.app)
        guard !body.owner.isEmpty, body.owner.unicodeScalars.count <= LinkService.Caps.ownerLength else {
            throw APIError(.unprocessableContent, .unprocessable, "owner must be 1–\(LinkService.Caps.ownerLength) characters")
        }
        let count = try await LinkService.storing {
            try await store.revokeLinks(app: body.app, owner: body.owner, at: Date()) { count in
                var entry = Self.entry(caller, "owner.revoke", "\(body.app) owner \(body.owner): \(count) links")
                if count > 0 { entry.events = [WebhookEvents.ownerRevoked(app: body.app, owner: body.owner, revoked: count, at: entry.at)] }
                return entry
            }
        }
        context.logger.logAdminAction(
            "owner.revoke", actor: caller.keyID, ["app": "\(body.app)", "owner": "\(body.owner)", "revoked": "\(count)"])
        metrics.setRevocationSetSize(store.revocations.count)
        return try JSONBody.response(RevokedCount(app: body.app, owner: body.owner, revoked: count))
    }

    /// `POST /v1/admin/api-keys` `{kind, app?, label}`: a new API key, its secret shown once.
    private func createAPIKey(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let body = try await JSONBody.decode(NewAPIKey.self, from: request, maxBytes: maxBodyBytes, allowedKeys: ["kind", "app", "label"])
        guard let kind = APIKeyKind(rawValue: body.kind) else {
            throw APIError(.unprocessableContent, .unprocessable, "kind must be client or admin")
        }
        guard !body.label.isEmpty, body.label.unicodeScalars.count <= Self.maxLabelLength else {
            throw APIError(.unprocessableContent, .unprocessable, "label must be 1–\(Self.maxLabelLength) characters")
        }
        switch (kind, body.app) {
        case (.client, let app?): try requireApp(app)
        case (.client, nil): throw APIError(.unprocessableContent, .unprocessable, "a client key needs 'app'")
        case (.admin, _?): throw APIError(.unprocessableContent, .unprocessable, "an admin key has no 'app'")
        case (.admin, nil): break
        }
        let (record, secret) = APIKeyAuthenticator.makeKey(kind: kind, app: body.app, label: body.label)
        let entry = Self.entry(caller, "apikey.create", "\(record.id) \(kind.rawValue)\(body.app.map { " " + $0 } ?? "")")
        try await LinkService.storing { try await store.createAPIKey(record, audit: entry) }
        auth.directory.remember(record)
        var logged: Logger.Metadata = ["apiKey": "\(record.id)", "kind": "\(kind.rawValue)"]
        if let app = body.app { logged["app"] = "\(app)" }
        context.logger.logAdminAction("apikey.create", actor: caller.keyID, logged)
        return try JSONBody.response(APIKeyView(record, secret: secret), status: .created)
    }

    /// `GET /v1/admin/api-keys`: every API key, oldest first.
    private func listAPIKeys(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        let keys = try await LinkService.storing { try await store.allAPIKeys() }
        return try JSONBody.response(APIKeyList(apiKeys: keys.map { APIKeyView($0) }))
    }

    /// `DELETE /v1/admin/api-keys/{id}`: the key revoked.
    private func revokeAPIKey(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let id = try context.parameters.require("id")
        let entry = Self.entry(caller, "apikey.revoke", id)
        guard try await LinkService.storing({ try await store.revokeAPIKey(id: id, at: Date(), audit: entry) }) else {
            throw APIError(.notFound, .notFound, "no API key \(id.prefix(64))")
        }
        context.logger.logAdminAction("apikey.revoke", actor: caller.keyID, ["apiKey": "\(id)"])
        let keys = try await LinkService.storing { try await store.allAPIKeys() }
        guard let record = keys.first(where: { $0.id == id }) else { throw APIError(.notFound, .notFound, "no API key \(id)") }
        auth.directory.remember(record)  // revoked here at once (other instances: within APIKeyDirectory.refreshInterval)
        return try JSONBody.response(APIKeyView(record))
    }

    /// `GET /v1/admin/audit[?limit=]`: the newest audit entries.
    private func auditLog(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        let limitText = request.uri.queryParameters.get("limit") ?? "100"
        guard let limit = Int(limitText), (1...Self.maxAuditEntries).contains(limit) else {
            throw APIError(.badRequest, .badRequest, "limit must be 1–\(Self.maxAuditEntries)")
        }
        let entries = try await LinkService.storing { try await store.auditLog(limit: limit) }
        return try JSONBody.response(AuditList(entries: entries.map {
            AuditView(seq: $0.seq, at: $0.at, actor: $0.actor, action: $0.action, detail: $0.detail)
        }))
    }

    private func requireApp(_ app: String) throws {
        guard router.manifest(app: app) != nil else { throw APIError(.notFound, .notFound, "no app \(app.prefix(64)) is loaded") }
    }

    /// A JSON body that may be absent (no body or an empty one).
    private func optionalBody<T: Decodable>(_ type: T.Type, _ request: Request, keys: Set<String>) async throws -> T? {
        if request.headers[.contentType] == nil, (request.headers[.contentLength].flatMap { Int($0) } ?? 0) == 0 { return nil }
        return try await JSONBody.decode(type, from: request, maxBytes: maxBodyBytes, allowedKeys: keys)
    }

    @discardableResult
    private func keyOperation<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as TokenError {
            throw APIError(.serviceUnavailable, .storeUnavailable, "the key operation failed: \(error.message)")
        } catch is LinkStoreError {
            throw APIError(.serviceUnavailable, .storeUnavailable, "the store failed; the keys are unchanged; retry later")
        }
    }

    /// The audit entry of an admin action by `caller`, written by the store in the action's own transaction (the
    /// action and its entry are stored together or not at all); the route logs the action once it is done.
    private static func entry(_ caller: Caller, _ action: String, _ detail: String) -> AuditEntry {
        AuditEntry(at: Date(), actor: caller.keyID, action: action, detail: detail)
    }
}
