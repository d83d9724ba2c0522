import Foundation
import HTTPTypes
import LinkRouter
import LinkStore
import Logging
import TokenSigning

/// The admin actions, written once for both of their front doors: the JSON admin API (`AdminRoutes`) and the web
/// console (`ConsoleRoutes`). Each action validates its input, writes its audit entry in the change's own
/// transaction (as the acting key: `Caller.keyID`), logs the action once done, and throws a domain error with a code
/// (`AdminError`, `LinkError`, `ManifestPublishError`) that both front doors answer through `APIError.answering`.
struct AdminService: Sendable {
    let store: StoreFront
    let keys: KeyAdministration
    let links: LinkService
    let apiKeys: APIKeyDirectory
    let metrics: ServerMetrics
    /// This instance, as its heartbeat names it.
    let instance: InstanceIdentity
    /// Publishes, rolls back and retires manifests.
    let publisher: ManifestPublisher
    /// Seals webhook secrets (and the signing keys, through `keys`).
    let masterKey: MasterKey
    /// Where webhook endpoints may point.
    let webhookPolicy: WebhookURLPolicy
    /// Where backups of the embedded store go: `<dataDir>/backups`.
    let backupsDirectory: String
    /// The TLS listener's certificates in use, and what the ACME service did (the console's overview shows both).
    let certificates: TLSCertificates
    let acmeStatus: ACMEStatus

    /// Most audit entries one request returns.
    static let maxAuditEntries = 1000
    /// Longest API key label, in characters (Unicode code points, as JSON Schema counts them).
    static let maxLabelLength = 200
    /// Longest audit filter value (actor, action, app), in characters (Unicode code points).
    static let maxFilterLength = 200

    /// The compiled manifests in force now.
    var router: LinkRouter.Router { links.router }

    /// The ids of the loaded apps, in the order they were loaded.
    var appIDs: [String] { router.manifests.map(\.app) }

    /// Throws 404 unless `app` is loaded.
    func requireApp(_ app: String) throws {
        try router.requireLoaded(app: app)
    }

    // MARK: Signing keys

    /// The signing keys of `app` (every app: nil), never their secrets.
    func signingKeys(app: String?) throws -> [KeyInfo] {
        if let app { try requireApp(app) }
        return keys.keyring.keys(app: app)
    }

    /// Makes a new active key of `app` in the suite named `suiteName` (default `hmac-sha256`); the old one verifies
    /// only, until its longest token has expired.
    func rotate(app: String, suiteName: String?, by caller: Caller, logger: Logger) async throws -> KeyInfo {
        try requireApp(app)
        guard let suite = TokenSuite(name: suiteName ?? "hmac-sha256") else {
            throw AdminError(.invalid, "suite must be hmac-sha256 or ed25519")
        }
        let key = try await keyOperation {
            try await keys.rotate(app: app, suite: suite) { key in
                var entry = Self.entry(caller, .keyRotate, "\(app) \(suite.name) kid \(key.kid)", app: app)
                entry.events = [WebhookEvents.keyRotated(key, at: entry.at)]
                return entry
            }
        }
        logger.logAdminAction(.keyRotate, actor: caller.keyID, ["app": "\(app)", "suite": "\(suite.name)", "kid": "\(key.kid)"])
        return key
    }

    /// Retires key `kid` of `app`: its tokens stop verifying (refused for the active key: rotate first).
    func retire(app: String, kid: UInt32?, by caller: Caller, logger: Logger) async throws -> KeyInfo {
        try requireApp(app)
        guard let kid, let key = keys.keyring.keys(app: app).first(where: { $0.kid == kid }) else {
            throw AdminError(.notFound, "no such key of \(app)")
        }
        guard key.state != .active else {
            throw AdminError(.conflict, "key \(kid) is the active \(key.suite.name) key of \(app): rotate first")
        }
        let retired = try await keyOperation {
            try await keys.change(audit: { _ -> AuditEntry? in
                var entry = Self.entry(caller, .keyRetire, "\(app) kid \(kid)", app: app)
                entry.events = [WebhookEvents.keyRetired(key, at: entry.at)]
                return entry
            }) {
                try $0.retire(app: app, keyID: kid)
            }
        }
        logger.logAdminAction(.keyRetire, actor: caller.keyID, ["app": "\(app)", "kid": "\(kid)"])
        return retired
    }

    // MARK: Links

    /// How many active links `owner` has in `app`: what revoking all of them will revoke.
    func activeLinkCount(app: String, owner: String) async throws -> Int {
        try requireApp(app)
        try Self.checkOwner(owner)
        return try await LinkService.storing { try await store.activeLinkCount(app: app, owner: owner) }
    }

    /// Revokes every active link of `owner` in `app` ("disable user"); how many were revoked.
    func revokeOwner(app: String, owner: String, by caller: Caller, logger: Logger) async throws -> Int {
        try requireApp(app)
        try Self.checkOwner(owner)
        let count = try await LinkService.storing {
            try await store.revokeLinks(app: app, owner: owner, at: Date()) { count in
                var entry = Self.entry(caller, .ownerRevoke, "\(app) owner \(owner): \(count) links", app: app)
                if count > 0 { entry.events = [WebhookEvents.ownerRevoked(app: app, owner: owner, revoked: count, at: entry.at)] }
                return entry
            }
        }
        logger.logAdminAction(.ownerRevoke, actor: caller.keyID, ["app": "\(app)", "owner": "\(owner)", "revoked": "\(count)"])
        metrics.setRevocationSetSize(store.revocations.count)
        return count
    }

    /// A page of the links that match (every filter optional), newest first, from the listing `GET /v1/links`
    /// uses (`LinkService.list`); `cursor` is the previous page's `nextCursor`.
    func searchLinks(app: String?, owner: String?, status: String?, cursor: String?, limit: Int = 50) async throws -> LinkPage {
        if let app { try requireApp(app) }
        if let owner { try Self.checkOwner(owner) }
        var listStatus: LinkListStatus?
        if let status {
            guard let known = LinkListStatus(rawValue: status) else {
                let names = LinkListStatus.allCases.map(\.rawValue).joined(separator: ", ")
                throw AdminError(.badRequest, "status must be one of \(names)")
            }
            listStatus = known
        }
        var position: LinkPosition?
        if let cursor {
            guard let known = LinkCursor.position(cursor) else { throw AdminError(.badRequest, "the cursor is not one linkd made") }
            position = known
        }
        return try await links.list(LinkListQuery(app: app, owner: owner, status: listStatus, after: position, limit: limit))
    }

    /// The inspector's view of link `id` (status, clicks, last opened, expiry), or 404.
    func link(id: String, by caller: Caller) async throws -> LinkView {
        try await links.view(id: id, caller: caller)
    }

    /// Revokes link `id` (idempotent); its view afterwards.
    func revokeLink(id: String, by caller: Caller, logger: Logger) async throws -> LinkView {
        let revoked = try await links.revoke(id: id, caller: caller)
        logger.logAdminAction(.linkRevoke, actor: caller.keyID, ["app": "\(revoked.app)", "link": "\(revoked.id)"])
        return revoked
    }

    // MARK: API keys

    /// Makes an API key of `kindName` (`client` for `app`, or `admin`); the record and its secret, to show once.
    func createAPIKey(
        kindName: String, app: String?, label: String, by caller: Caller, logger: Logger
    ) async throws -> (record: APIKeyRecord, secret: String) {
        guard let kind = APIKeyKind(rawValue: kindName) else {
            throw AdminError(.invalid, "kind must be client or admin")
        }
        guard !label.isEmpty, label.unicodeScalars.count <= Self.maxLabelLength else {
            throw AdminError(.invalid, "label must be 1–\(Self.maxLabelLength) characters")
        }
        try LinkService.checkPrintable(label, field: "label") { AdminError(.invalid, $0) }
        switch (kind, app) {
        case (.client, let app?): try requireApp(app)
        case (.client, nil): throw AdminError(.invalid, "a client key needs 'app'")
        case (.admin, _?): throw AdminError(.invalid, "an admin key has no 'app'")
        case (.admin, nil): break
        }
        let (record, secret) = APIKeyAuthenticator.makeKey(kind: kind, app: app, label: label)
        let entry = Self.entry(caller, .apiKeyCreate, "\(record.id) \(kind.rawValue)\(app.map { " " + $0 } ?? "")", app: app)
        try await LinkService.storing { try await store.createAPIKey(record, audit: entry) }
        apiKeys.remember(record)
        var logged: Logger.Metadata = ["apiKey": "\(record.id)", "kind": "\(kind.rawValue)"]
        if let app { logged["app"] = "\(app)" }
        logger.logAdminAction(.apiKeyCreate, actor: caller.keyID, logged)
        return (record, secret)
    }

    /// Every API key, oldest first.
    func allAPIKeys() async throws -> [APIKeyRecord] {
        try await LinkService.storing { try await store.allAPIKeys() }
    }

    /// Revokes API key `id` (in force on this instance at once, on others within `APIKeyDirectory.refreshInterval`).
    func revokeAPIKey(id: String, by caller: Caller, logger: Logger) async throws -> APIKeyRecord {
        let known = try await allAPIKeys().first { $0.id == id }
        let entry = Self.entry(caller, .apiKeyRevoke, id, app: known?.app)
        guard try await LinkService.storing({ try await store.revokeAPIKey(id: id, at: Date(), audit: entry) }) else {
            throw AdminError(.notFound, "no API key \(id.prefix(64))")
        }
        logger.logAdminAction(.apiKeyRevoke, actor: caller.keyID, ["apiKey": "\(id)"])
        guard let record = try await allAPIKeys().first(where: { $0.id == id }) else {
            throw AdminError(.notFound, "no API key \(id.prefix(64))")
        }
        apiKeys.remember(record)
        return record
    }

    // MARK: Audit log and health

    /// The newest `limit` audit entries matching `filter`, newest first.
    func auditLog(filter: AuditFilter, limit: Int) async throws -> [AuditEntry] {
        guard (1...Self.maxAuditEntries).contains(limit) else {
            throw AdminError(.badRequest, "limit must be 1–\(Self.maxAuditEntries)")
        }
        for value in [filter.actor, filter.action, filter.app].compactMap({ $0 }) where value.unicodeScalars.count > Self.maxFilterLength {
            throw AdminError(.badRequest, "a filter value is at most \(Self.maxFilterLength) characters")
        }
        return try await LinkService.storing { try await store.auditLog(filter: filter, limit: limit) }
    }

    /// The instance's health: whether the store answers (and how fast), the revocation set, the links stored, and
    /// the instances seen on the store lately.
    func health() async -> AdminHealth {
        let started = ContinuousClock.now
        var problem: String?
        do { try await store.ping() } catch { problem = "\(error)" }
        let pingTime = ContinuousClock.now - started
        let linkCount = problem == nil ? try? await store.linkCount() : nil
        let seen = problem == nil
            ? (try? await store.instances(seenSince: Date().addingTimeInterval(-HeartbeatService.staleAfter))) ?? [] : []
        return AdminHealth(
            storeKind: store.location.hasPrefix("postgres:") ? "PostgreSQL (shared)" : "SQLite (embedded)",
            location: store.location, storeProblem: problem,
            pingMilliseconds: Double(pingTime.components.attoseconds) / 1e15 + Double(pingTime.components.seconds) * 1000,
            revocations: store.revocations.count, linkCount: linkCount, instances: seen, this: instance,
            propagationBound: store.propagationBound, certificates: certificates.all, acme: acmeStatus.all)
    }

    // MARK: Helpers

    private static func checkOwner(_ owner: String) throws {
        guard !owner.isEmpty, owner.unicodeScalars.count <= LinkService.Caps.ownerLength else {
            throw AdminError(.invalid, "owner must be 1–\(LinkService.Caps.ownerLength) characters")
        }
        try LinkService.checkPrintable(owner, field: "owner") { AdminError(.invalid, $0) }
    }

    @discardableResult
    private func keyOperation<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as TokenError {
            throw AdminError(.unavailable, "the key operation failed: \(error.message)")
        } catch is LinkStoreError {
            throw AdminError(.unavailable, "the store failed; the keys are unchanged; retry later")
        }
    }

    /// The audit entry of an admin action by `caller`, written by the store in the action's own transaction (the
    /// action and its entry are stored together or not at all).
    private static func entry(_ caller: Caller, _ action: AuditAction, _ detail: String, app: String?) -> AuditEntry {
        AuditEntry(at: Date(), actor: caller.keyID, action: action.rawValue, detail: detail, app: app)
    }
}

/// What the console's health page shows of this instance.
struct AdminHealth: Sendable {
    /// `SQLite (embedded)` or `PostgreSQL (shared)`.
    let storeKind: String
    /// Where the data is (no password).
    let location: String
    /// Why the store did not answer; nil when it did.
    let storeProblem: String?
    /// How long the ping took.
    let pingMilliseconds: Double
    /// Revoked link generations held in memory.
    let revocations: Int
    /// Links stored (nil when the store did not answer).
    let linkCount: Int?
    /// The instances whose heartbeat is recent, this one included, most recent first.
    let instances: [InstanceHeartbeat]
    /// This instance.
    let this: InstanceIdentity
    /// How long a change made on another instance takes to be in force here (zero: no other instance shares it).
    let propagationBound: Duration
    /// The TLS listener's certificates in use (none without `tls.port`).
    let certificates: [TLSCertificates.Entry]
    /// The ACME service's state per app (empty without `acme`).
    let acme: [String: ACMEStatus.App]
}
