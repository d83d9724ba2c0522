import Foundation
import LinkdHTTP
import PrintableText
import LinkRouter
import LinkStore
import TokenSigning

/// What `POST /v1/links` accepts.
struct CreateLinkRequest: Decodable, Sendable {
    /// The route the link opens (must be `shareable` in the manifest); absent: the manifest's `share.route` (what
    /// the app shares, e.g. Handz's `ShareLink/FlowView`), which must then be shareable itself.
    var route: String?
    /// The route's params, checked against the manifest's typed params.
    var params: [String: String]?
    /// Lifetime in seconds (default and cap from the configuration).
    var ttlSeconds: Int?
    /// The app's user id of the owner, for owner-wide revocation.
    var owner: String?
    /// A display title.
    var title: String?
    /// `hmac-sha256` (default) or `ed25519`.
    var suite: String?
    /// The link's own campaign: counted for an opening whose share URL names none (`utm_*`).
    var campaign: CampaignFields?
    /// The link's custom path on its app's share host (`CustomPath`: `/guard-pass`).
    var path: String?

    static let keys: Set<String> = ["route", "params", "ttlSeconds", "owner", "title", "suite", "campaign", "path"]
}

/// A campaign as the API reads and shows it: `source`, `medium` and `name` (a share URL's `utm_source`,
/// `utm_medium` and `utm_campaign`), each normalised as it is counted (`Campaign.normalised`).
struct CampaignFields: Codable, Sendable, Equatable {
    var source: String?
    var medium: String?
    var name: String?

    /// The fields of a stored campaign.
    init(_ campaign: Campaign) {
        source = campaign.source
        medium = campaign.medium
        name = campaign.name
    }

    /// The campaign of a stats label (`Campaign.label`); nil for `(none)` and `(other)`.
    init?(label: String) {
        guard let campaign = Campaign(label: label) else { return nil }
        self.init(campaign)
    }
}

/// What `POST /v1/links` answers (the token and its URL are shown only here).
struct CreatedLink: Encodable, Sendable {
    let id: String
    let app: String
    let token: String
    /// The share URL the app's manifest chooses (`share.url`): the token's (default) or the short one.
    let url: String
    /// The link's short share URL (`/s/<short id>`), answered like the token's.
    let shortURL: String
    /// The link's custom path's URL (`https://<share host><path>`), when it was made with one.
    let pathURL: String?
    let expiresAt: Date
}

/// The share-link inspector's view of a link (`GET /v1/links/{id}`).
struct LinkView: Encodable, Sendable {
    let id: String
    let app: String
    let route: String
    let params: [String: String]
    let owner: String?
    let title: String?
    /// The link's own campaign, when it was created with one.
    let campaign: CampaignFields?
    /// `active`, `revoked`, `deleted` or `expired`.
    let status: String
    let createdAt: Date
    let expiresAt: Date
    let clicks: Int
    let lastOpenedAt: Date?
    /// The short share URL; absent for a link made before short ids (the token's URL is never stored).
    let shortURL: String?
    /// The custom path's URL, while the link holds one.
    let pathURL: String?

    /// The view of `record` with its `clicks`, its status judged at `now` (an active link past its expiry is
    /// `expired`), and its short URL on `router`'s share path.
    init(_ record: LinkRecord, clicks: LinkClicks, now: Date, router: Router) {
        id = record.id
        app = record.app
        route = record.route
        params = record.params
        owner = record.owner
        title = record.title
        campaign = record.campaign.map(CampaignFields.init)
        status = record.status == .active && record.expires <= now ? "expired" : record.status.rawValue
        createdAt = record.created
        expiresAt = record.expires
        self.clicks = clicks.count
        lastOpenedAt = clicks.lastOpened
        shortURL = record.shortID.flatMap { router.shareURL(app: record.app, token: $0) }
        pathURL = record.path.flatMap { LinkService.customPathURL($0, app: record.app, router: router) }
    }
}

/// Share links: creating them, the status of a presented token, the inspector's view, revocation.
///
/// Token status is decided from memory (the keyring in force, revocation set, record cache); only a cache miss reads
/// the store.
/// A class, not a struct: the hot path passes it around, and a reference costs one count where a struct of seven
/// references costs seven.
final class LinkService: Sendable {
    let store: StoreFront
    /// The signing keys in force: a call reads the keyring once (`VerifiedTokens`, `create`).
    let keys: KeysInForce
    /// The apps in force: read once per call (`router`), so a call never mixes two publishes.
    let apps: AppsInForce
    /// The compiled manifests in force now.
    var router: Router { apps.router }
    /// What the share path counted and the flush has not yet written (`counted` adds its clicks to the stored ones).
    let events: ShareEventBuffer
    let metrics: ServerMetrics
    /// Default lifetime of a link, seconds.
    let defaultTTLSeconds: Int
    /// Longest lifetime of a link, seconds.
    let maxTTLSeconds: Int

    /// - Parameters: see the properties.
    init(
        store: StoreFront, keys: KeysInForce, apps: AppsInForce, events: ShareEventBuffer, metrics: ServerMetrics,
        defaultTTLSeconds: Int, maxTTLSeconds: Int
    ) {
        self.store = store
        self.keys = keys
        self.apps = apps
        self.events = events
        self.metrics = metrics
        self.defaultTTLSeconds = defaultTTLSeconds
        self.maxTTLSeconds = maxTTLSeconds
    }

    /// Caps on the fields of a new link. Lengths are in characters as JSON Schema's `maxLength` counts them
    /// (Unicode code points), so that docs/openapi.yaml states them exactly.
    enum Caps {
        static let routeLength = 200
        static let params = 32
        static let paramNameLength = 64
        static let paramValueLength = 512
        static let ownerLength = 200
        static let titleLength = 300
        static let campaignPartLength = 64
        static let minTTLSeconds = 60
    }

    // MARK: Token status

    /// A token's status from memory (with the link's record when it was read: the share page shows its title and
    /// counts its campaign without a second lookup), or the id of the link record that must be loaded first.
    enum MemoryVerdict {
        case decided(LinkStatus, record: LinkRecord?)
        case needsRecord(String)

        /// A status decided without a record.
        static func decided(_ status: LinkStatus) -> MemoryVerdict { .decided(status, record: nil) }
    }

    /// What a token's header states before its signature is checked: the link it names, and that link's record
    /// when it is cached. Read once per request on the memory-only paths, to decide whether memory can answer at
    /// all; never trusted as a claim (a token that verifies has this very header).
    struct StatedLink {
        let id: String
        let generation: UInt32
        let record: LinkRecord?

        /// The header of `token` with its link's cached record; nil when `token` is not a token's shape.
        init?(token: String, store: StoreFront) {
            guard let claims = UnverifiedToken.claims(of: token) else { return nil }
            id = claims.linkID.hex
            generation = claims.generation
            record = store.cachedLink(id: id)
        }
    }

    /// Decides a token's status without I/O when the link record is cached. The signature is checked through
    /// `verified`, so a caller that asks again after reading the record (or resolves a URL a second time) does not
    /// check it twice.
    ///
    /// With `recordFirst` (the memory-only answers: the fast path, and the share route's first try), a token whose
    /// header names a link neither cached nor revoked is `needsRecord` before its signature is checked: the answer
    /// needs a store read anyway, and the full path that does it checks the signature, once, before it reads. The
    /// full path never sets it, so a forged token never costs a store read.
    func memoryStatus(
        token: String, app: String, now: Date, verified: inout VerifiedTokens, recordFirst: Bool = false
    ) -> MemoryVerdict {
        memoryStatus(
            token: token, app: app, now: now, verified: &verified, stated: recordFirst ? StatedLink(token: token, store: store) : nil)
    }

    /// `memoryStatus` with the header already read (`stated`; nil on the full path, which checks before it reads).
    func memoryStatus(
        token: String, app: String, now: Date, verified: inout VerifiedTokens, stated: StatedLink?
    ) -> MemoryVerdict {
        if token == Self.patternMissToken { return .decided(.unknown) }
        if ShortID.isShape(token) { return memoryStatus(shortID: token, app: app, now: now) }
        if let stated, stated.record == nil, !store.isRevoked(linkID: stated.id, generation: stated.generation) {
            return .needsRecord(stated.id)
        }
        let claims: TokenClaims
        switch verified.verify(token, app: app, now: now, keys: keys) {
        case .success(let value): claims = value
        case .failure(let error):
            return .decided(error.publicVerdict == .expired ? .unavailable(linkID: nil, reason: .expired) : .unknown)
        }
        let id = stated?.id ?? claims.linkID.hex
        if store.isRevoked(linkID: id, generation: claims.generation) {
            return .decided(.unavailable(linkID: id, reason: .revoked))
        }
        guard let record = stated?.record ?? store.cachedLink(id: id) else { return .needsRecord(id) }
        return .decided(Self.status(of: record, generation: Int(claims.generation), app: app, now: now, router: router), record: record)
    }

    /// A short id's status from memory: its link's cached record judged as a token of the record's own generation
    /// would be (the revocation set first, so a revocation another instance made bites here as for tokens), `unknown`
    /// for a short id the store lately did not have, else `needsRecord` (with the short id, which `load` reads).
    /// A short id of another app than `app` is `unknown`, as another app's token is.
    private func memoryStatus(shortID: String, app: String, now: Date) -> MemoryVerdict {
        switch store.cachedLink(shortID: shortID) {
        case .unknown: return .decided(.unknown)
        case .miss: return .needsRecord(shortID)
        case .record(let record):
            guard record.app == app else { return .decided(.unknown) }
            if store.isRevoked(linkID: record.id, generation: UInt32(clamping: record.generation)) {
                return .decided(.unavailable(linkID: record.id, reason: .revoked))
            }
            return .decided(Self.status(of: record, generation: record.generation, app: app, now: now, router: router), record: record)
        }
    }

    /// Reads into memory what `needsRecord` named: a link record by its id, or by its short id (a short id's shape
    /// tells them apart). A store failure leaves memory as it was.
    func load(_ key: String) async {
        if key.contains("/") {
            await loadPath(key)
        } else if ShortID.isShape(key) {
            _ = try? await store.link(shortID: key)
        } else {
            _ = try? await store.link(id: key)
        }
    }

    /// A token's status, reading the link record from the store on a cache miss. A store failure makes the
    /// token `unknown` for this request (never an error page); the cache is retried next time.
    func status(token: String, app: String, now: Date, verified: inout VerifiedTokens) async -> LinkStatus {
        switch memoryStatus(token: token, app: app, now: now, verified: &verified) {
        case .decided(let status, _): return status
        case .needsRecord(let key):
            await load(key)
            if case .decided(let status, _) = memoryStatus(token: token, app: app, now: now, verified: &verified) { return status }
            return .unknown
        }
    }

    /// A record's status for a token of it (of `generation`): an active link whose route the manifest in force no
    /// longer has (a publish with `force`) is unavailable as `deleted`, as its resolution is.
    private static func status(of record: LinkRecord, generation: Int, app: String, now: Date, router: Router) -> LinkStatus {
        guard record.app == app else { return .unknown }
        guard record.generation == generation else { return .unavailable(linkID: record.id, reason: .revoked) }
        switch record.status {
        case .revoked: return .unavailable(linkID: record.id, reason: .revoked)
        case .deleted: return .unavailable(linkID: record.id, reason: .deleted)
        case .active:
            guard record.expires > now else { return .unavailable(linkID: record.id, reason: .expired) }
            guard router.hasRoute(app: app, route: record.route) else { return .unavailable(linkID: record.id, reason: .deleted) }
            return .active(ShareLinkTarget(linkID: record.id, route: record.route, params: record.params, expiresAt: record.expires))
        }
    }

    // MARK: Links

    /// Creates a link of `app`: checks the target against the manifest, signs a token, stores the record.
    func create(_ request: CreateLinkRequest, app: String, now: Date = Date()) async throws -> CreatedLink {
        let router = self.router
        let checked = try check(request, app: app, router: router)
        let routeID = checked.route, params = checked.params, ttl = checked.ttlSeconds, shareManifest = checked.manifest
        if let path = request.path { try await checkCustomPath(path, app: app, manifest: shareManifest, router: router) }
        let linkID = LinkID.random()
        let nowSeconds = Int(now.timeIntervalSince1970)
        let expiresAt = nowSeconds + ttl
        let token: String
        do {
            token = try keys.keyring.issue(
                app: app, suite: checked.suite, linkID: linkID, expiresAt: UInt32(clamping: expiresAt), generation: 1, flags: 0,
                now: UInt32(clamping: nowSeconds))
        } catch {
            throw LinkError(.conflict, "cannot sign for \(app): \((error as? TokenError)?.message ?? "\(error)")")
        }
        let made = LinkRecord(
            id: linkID.hex, app: app, route: routeID, params: params, owner: request.owner, title: request.title,
            created: Date(timeIntervalSince1970: TimeInterval(nowSeconds)),
            expires: Date(timeIntervalSince1970: TimeInterval(expiresAt)), campaign: checked.campaign,
            shortID: ShortID.generate(), path: request.path)
        // `link.created` is queued in the insert's transaction. A taken short id (one in 2^65 per link stored) is
        // drawn again; a conflict that outlasts the tries (the link id itself) is the API's 409.
        let record = try await Self.storing { [store] () async throws -> LinkRecord in
            var record = made
            var attempt = 1
            while true {
                do {
                    try await store.createLink(record, events: [WebhookEvents.linkCreated(record, at: now)])
                    return record
                } catch let error as LinkStoreError where error.code == .conflict && attempt < Self.shortIDAttempts {
                    attempt += 1
                    record.shortID = ShortID.generate()
                } catch let taken as CustomPathTaken {
                    throw PathHolder.link(taken.linkID).refusal(record.path ?? taken.path)
                }
            }
        }
        let tokenURL = router.shareURL(app: app, token: token) ?? ""
        let shortURL = record.shortID.flatMap { router.shareURL(app: app, token: $0) } ?? ""
        let url = shareManifest.share?.url == .short ? shortURL : tokenURL
        return CreatedLink(
            id: record.id, app: app, token: token, url: url, shortURL: shortURL,
            pathURL: record.path.flatMap { Self.customPathURL($0, app: app, router: router) }, expiresAt: record.expires)
    }

    /// How many short ids a new link tries before its insert's conflict is answered.
    static let shortIDAttempts = 3

    /// The inspector's view of link `id`, or 404.
    func view(id: String, caller: Caller, now: Date = Date()) async throws -> LinkView {
        let record = try await existing(id: id, caller: caller)
        return try await view(of: record, now: now)
    }

    /// Revokes link `id` (idempotent) and returns its view.
    func revoke(id: String, caller: Caller, now: Date = Date()) async throws -> LinkView {
        let target = try await existing(id: id, caller: caller)
        // The audit entry is written in the revocation's transaction: both or neither.
        // `link.revoked` goes with it when this revocation is the one that revokes the link.
        let entry = AuditEntry(
            at: now, actor: caller.keyID, action: AuditAction.linkRevoke.rawValue, detail: "\(target.app) \(id)", app: target.app,
            events: target.status == .active ? [WebhookEvents.linkRevoked(target, at: now)] : [])
        guard let record = try await Self.storing({ try await store.revokeLink(id: id, at: now, audit: entry) }) else {
            throw LinkError(.notFound, "no link \(id)")
        }
        metrics.setRevocationSetSize(store.revocations.count)
        return try await view(of: record, now: now)
    }

    /// The stored link `id` if `caller` may see it; else 404, the same whether it does not exist or is another app's.
    func existing(id: String, caller: Caller) async throws -> LinkRecord {
        guard LinkID(hex: id) != nil, let record = try await Self.storing({ try await store.link(id: id) }) else {
            throw LinkError(.notFound, "no link \(id.prefix(64))")
        }
        // A client key of another app sees the same 404 as for a missing link: no oracle across apps.
        guard caller.kind == .admin || caller.app == record.app else {
            throw LinkError(.notFound, "no link \(id)")
        }
        return record
    }

    private func view(of record: LinkRecord, now: Date) async throws -> LinkView {
        let store = self.store
        let counted = try await Self.storing {
            try await events.counted(linkID: record.id) { try await store.clicks(linkID: record.id) }
        }
        return LinkView(record, clicks: counted, now: now, router: router)
    }

    /// Refuses text that would reach a log, a page or a terminal with characters that forge lines or reorder what is
    /// shown (`PrintableText.isUnsafe`): the error names the field, the character and its position.
    static func checkPrintable<E: Error>(_ text: String, field: String, _ refusal: (String) -> E) throws(E) {
        guard let (scalar, offset) = PrintableText.firstUnsafe(in: text) else { return }
        throw refusal("\(field) must not contain control, line-separator or format characters "
            + "(\(PrintableText.name(scalar)) at character \(offset + 1))")
    }

    /// Runs a store call; a store failure becomes `storeUnavailable` (the API's 503, never a 500), an existing id
    /// `conflict`.
    static func storing<T>(_ body: () async throws -> T) async throws(LinkError) -> T {
        do {
            return try await body()
        } catch let error as LinkError {
            throw error
        } catch let error as LinkStoreError where error.code == .conflict {
            throw LinkError(.conflict, error.message)
        } catch {
            throw LinkError(.storeUnavailable, "the store failed; retry later")
        }
    }
}
