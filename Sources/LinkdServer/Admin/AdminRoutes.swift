import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
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
/// - `GET /v1/admin/audit[?limit=&actor=&action=&app=]`: the newest audit entries, filtered;
/// - `POST /v1/admin/backup`: a consistent copy of the embedded store in `<dataDir>/backups/`.
/// The actions themselves are `AdminService`'s (the console calls the same ones); this is their JSON front door.
struct AdminRoutes: Sendable {
    /// The admin actions (validation, audit entries, store calls), shared with the console.
    let admin: AdminService
    let auth: APIKeyAuthenticator
    let maxBodyBytes: Int

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
    private struct AuditView: Encodable {
        let seq: Int64?; let at: Date; let actor: String; let action: String; let detail: String; let app: String?
    }
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
        admin.post("backup") { try await backup($0, $1) }
    }

    private struct BackupView: Encodable { let file: String; let bytes: Int; let durationMs: Int; let createdAt: Date }

    /// `POST /v1/admin/backup`: a consistent copy of the embedded store, made while it serves.
    private func backup(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let made = try await admin.backup(by: caller, logger: context.logger)
        let (seconds, attoseconds) = made.duration.components
        let milliseconds = Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
        return try JSONBody.response(
            BackupView(file: made.file, bytes: made.bytes, durationMs: milliseconds, createdAt: made.createdAt), status: .created)
    }

    /// `GET /v1/admin/keys[?app=]`: the signing keys (never their secrets).
    private func listKeys(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        let keys = try admin.signingKeys(app: request.uri.queryParameters.get("app"))
        return try JSONBody.response(KeyList(keys: keys.map(KeyView.init)))
    }

    /// `POST /v1/admin/keys/{app}/rotate` `{suite?}`: a new active key; the old one verifies only.
    private func rotateKey(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let app = try context.parameters.require("app")
        try admin.requireApp(app)
        let body = try await optionalBody(RotateRequest.self, request, keys: ["suite"]) ?? RotateRequest()
        let key = try await admin.rotate(app: app, suiteName: body.suite, by: caller, logger: context.logger)
        return try JSONBody.response(KeyView(key))
    }

    /// `POST /v1/admin/keys/{app}/{kid}/retire`: the key stops verifying (refused for the active key).
    private func retireKey(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let app = try context.parameters.require("app")
        let kid = context.parameters.get("kid").flatMap(UInt32.init)
        return try JSONBody.response(KeyView(try await admin.retire(app: app, kid: kid, by: caller, logger: context.logger)))
    }

    /// `POST /v1/admin/revocations` `{app, owner}`: every active link of the owner revoked.
    private func revokeOwner(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let body = try await JSONBody.decode(OwnerRevocation.self, from: request, maxBytes: maxBodyBytes, allowedKeys: ["app", "owner"])
        let count = try await admin.revokeOwner(app: body.app, owner: body.owner, by: caller, logger: context.logger)
        return try JSONBody.response(RevokedCount(app: body.app, owner: body.owner, revoked: count))
    }

    /// `POST /v1/admin/api-keys` `{kind, app?, label}`: a new API key, its secret shown once.
    private func createAPIKey(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let body = try await JSONBody.decode(NewAPIKey.self, from: request, maxBytes: maxBodyBytes, allowedKeys: ["kind", "app", "label"])
        let (record, secret) = try await admin.createAPIKey(
            kindName: body.kind, app: body.app, label: body.label, by: caller, logger: context.logger)
        return try JSONBody.response(APIKeyView(record, secret: secret), status: .created)
    }

    /// `GET /v1/admin/api-keys`: every API key, oldest first.
    private func listAPIKeys(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        return try JSONBody.response(APIKeyList(apiKeys: try await admin.allAPIKeys().map { APIKeyView($0) }))
    }

    /// `DELETE /v1/admin/api-keys/{id}`: the key revoked.
    private func revokeAPIKey(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let id = try context.parameters.require("id")
        return try JSONBody.response(APIKeyView(try await admin.revokeAPIKey(id: id, by: caller, logger: context.logger)))
    }

    /// `GET /v1/admin/audit[?limit=&actor=&action=&app=]`: the newest audit entries, filtered.
    private func auditLog(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        let query = request.uri.queryParameters
        let limitText = query.get("limit") ?? "100"
        guard let limit = Int(limitText) else {
            throw APIError(.badRequest, .badRequest, "limit must be 1–\(AdminService.maxAuditEntries)")
        }
        let filter = AuditFilter(actor: query.get("actor"), action: query.get("action"), app: query.get("app"))
        let entries = try await admin.auditLog(filter: filter, limit: limit)
        return try JSONBody.response(AuditList(entries: entries.map {
            AuditView(seq: $0.seq, at: $0.at, actor: $0.actor, action: $0.action, detail: $0.detail, app: $0.app)
        }))
    }

    /// A JSON body that may be absent (no body or an empty one).
    private func optionalBody<T: Decodable>(_ type: T.Type, _ request: Request, keys: Set<String>) async throws -> T? {
        if request.headers[.contentType] == nil, (request.headers[.contentLength].flatMap { Int($0) } ?? 0) == 0 { return nil }
        return try await JSONBody.decode(type, from: request, maxBytes: maxBodyBytes, allowedKeys: keys)
    }
}
