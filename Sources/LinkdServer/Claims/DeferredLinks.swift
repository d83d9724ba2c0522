import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
import LinkRouter
import LinkStore
import Logging
import TokenSigning
import WebFallback

/// Deferred deep links without fingerprinting: the landing page's store buttons come here
/// (`GET /s/{token}/install/{platform}`), which makes a one-time claim code for the link and sends the person to the
/// store with it — in the Play install referrer on Android, on a page to copy it from on iOS; after install the app
/// hands the code back once (`POST /v1/claims/{code}`) and gets the link's resolution. Nothing about the person (no
/// address, no user agent, no device trait) is kept or compared: the code itself is the hand-off.
///
/// Abuse: an address makes at most `claimCodesPerMinute` codes, the store holds at most `maxLiveClaimCodes` live
/// ones, crawlers and `HEAD` requests make none, inactive links none; past any of these the person still goes to
/// the store, without a code. Claims are limited per address (`claimAttemptsPerMinute`, then 429), and an unknown,
/// expired or already claimed code gets one and the same 404.
final class DeferredLinks: Sendable {
    let links: LinkService
    /// The apps in force: their share pages.
    let apps: AppsInForce
    /// The share pages in force now.
    var pages: SharePages<ReadyResponse> { apps.snapshot.sharePages }
    let claimPages: ClaimPageRenderer
    let analytics: ShareAnalytics
    /// Codes made per address.
    let codeLimiter: RateLimiter
    /// Claims tried per address.
    let claimLimiter: RateLimiter
    /// How long a code can be claimed.
    let claimTTL: TimeInterval
    /// The live codes in the store, counted at most once a second against `maxLiveClaimCodes`.
    let liveClaims: LiveClaimGauge
    /// The most live codes of one link.
    let maxLiveClaimsPerLink: Int
    let logger: Logger

    /// Codes an address may make at once before `claimCodesPerMinute` applies.
    static let codeBurst: Double = 5
    /// Claims an address may try at once before `claimAttemptsPerMinute` applies.
    static let attemptBurst: Double = 10
    /// Body cap of `POST /v1/claims/{code}` (`{"state": …}`).
    static let maxClaimBodyBytes = 1_024

    /// From the configuration's claim keys.
    init(
        links: LinkService, apps: AppsInForce, claimPages: ClaimPageRenderer, analytics: ShareAnalytics,
        configuration: ServerConfiguration, logger: Logger
    ) {
        self.links = links
        self.apps = apps
        self.claimPages = claimPages
        self.analytics = analytics
        self.codeLimiter = RateLimiter(perSecond: configuration.claims.claimCodesPerMinute / 60, burst: Self.codeBurst)
        self.claimLimiter = RateLimiter(perSecond: configuration.claims.claimAttemptsPerMinute / 60, burst: Self.attemptBurst)
        self.claimTTL = TimeInterval(configuration.claims.claimTTLSeconds)
        self.liveClaims = LiveClaimGauge(store: links.store, limit: configuration.claims.maxLiveClaimCodes)
        self.maxLiveClaimsPerLink = configuration.claims.maxLiveClaimCodesPerLink
        self.logger = logger
    }

    // MARK: Store redirects

    /// `GET /s/{token}/install/{platform}` (or `/s/{short id}/install/{platform}`): for an active link, a store redirect with a new claim code (Android:
    /// `302` to Google Play with `referrer=linkd_claim%3D<code>`; iOS: the claim page, which goes on to the App
    /// Store). Without a code (crawler, `HEAD`, a limit, the store failing) a plain `302` to the store. A link that
    /// is not active gets the share path's own 410/404 page; a platform the app has no store for (no App Store id,
    /// no Android package) a `302` to the link's landing page, by the same token or short id; a platform linkd does
    /// not know, the 404 page. `token` may be a short id: the claim code then seals the short id.
    func install(token: String, platform name: String, host: String?, userAgent: String?, client: String, isHead: Bool) async -> ReadyResponse {
        let (app, status) = await links.shareStatus(token: token, host: host)
        links.metrics.recordTokenVerdict(status)
        guard case .active(let target) = status, let app, let manifest = links.router.manifest(app: app) else {
            if case .unavailable = status { return pages.gonePage(app: app) }
            return pages.unknownPage(host: host)
        }
        let info = AppPageInfo(manifest)
        guard let platform = StorePlatform(rawValue: name) else { return pages.unknownPage(host: host) }
        guard let storeURL = platform == .ios ? info.appStoreURL : info.playStoreURL else {
            // No store for this platform: the link's own landing page, which offers what the app has (opening it,
            // its web page, the stores it is in), rather than a 404 that says a live link is gone.
            return Self.redirect(to: links.router.shareURL(app: app, token: token) ?? "/s/\(token)")
        }
        let agent = UserAgentKind(userAgent: userAgent)
        if agent.isCrawler {
            analytics.metrics.recordWithheld(.crawler)
            return Self.redirect(to: storeURL)
        }
        // A HEAD request only asks where it goes: the store, counted and coded never.
        guard !isHead else { return Self.redirect(to: storeURL) }
        analytics.recordStoreRedirect(linkID: target.linkID, app: app, platform: platform)
        guard let code = await makeCode(token: token, linkID: target.linkID, app: app, platform: platform, client: client) else {
            return Self.redirect(to: storeURL)
        }
        let claim = "\(ClaimPage.claimKey)=\(code.text)"
        switch platform {
        case .android:
            return Self.redirect(to: info.playStoreURL(referrer: claim) ?? storeURL)
        case .ios:
            let shareURL = links.router.shareURL(app: app, token: token) ?? ""
            let page = ClaimPage(
                app: info, title: links.store.cachedLink(id: target.linkID)?.title, claimLink: "\(shareURL)#\(claim)",
                storeURL: storeURL)
            return ReadyResponse(page: claimPages.render(page))
        }
    }

    /// A new claim code stored for the link, or nil (counted as withheld) past the address's rate, past the cap of
    /// live codes (all, or the link's), or when the store fails.
    private func makeCode(token: String, linkID: String, app: String, platform: StorePlatform, client: String) async -> ClaimCode? {
        guard codeLimiter.allow(client) else {
            analytics.metrics.recordWithheld(.rateLimited)
            return nil
        }
        let code = ClaimCode.generate()
        let now = Date()
        let record = ClaimRecord(
            lookupKey: Data(code.lookupKey), linkID: linkID, app: app, platform: platform.rawValue,
            sealedToken: Data(code.seal(Array(token.utf8))), created: now, expires: now.addingTimeInterval(claimTTL))
        do {
            guard try await liveClaims.hasRoom(now: now) else {
                analytics.metrics.recordWithheld(.cap)
                logger.warning("claim codes are at maxLiveClaimCodes; store redirects go without one", metadata: ["app": "\(app)"])
                return nil
            }
            guard try await links.store.insertClaim(record, maxPerLink: maxLiveClaimsPerLink, now: now) else {
                analytics.metrics.recordWithheld(.linkCap)
                logger.warning(
                    "a link's claim codes are at maxLiveClaimCodesPerLink; its store redirects go without one",
                    metadata: ["app": "\(app)", "link": "\(linkID)"])
                return nil
            }
            liveClaims.added()
        } catch {
            analytics.metrics.recordWithheld(.store)
            logger.error("cannot store a claim code", metadata: ["error": "\(error)"])
            return nil
        }
        analytics.recordClaimMade(linkID: linkID, app: app)
        return code
    }

    /// A `302` to `url`, never cached (each one may carry a new code), telling the store nothing of where it came from.
    private static func redirect(to url: String) -> ReadyResponse {
        ReadyResponse(
            status: .found,
            headers: [.location: url, .cacheControl: "no-store", HTTPField.Name("Referrer-Policy")!: "no-referrer"],
            body: ByteBuffer())
    }

    // MARK: Claims

    /// `POST /v1/claims/{code}` with an optional `{"state": …}`: the link's resolution exactly as `/v1/resolve`
    /// answers its share URL (a revoked, expired or deleted link: `linkUnavailable`), once. A second claim, an
    /// expired, an unknown or a malformed code: the same 404. 429 past the address's claims per minute.
    func claim(code text: String, body: ByteBuffer, client: String) async throws -> ReadyResponse {
        guard claimLimiter.allow(client) else {
            throw APIError.rateLimited("too many claims from this address", retryAfterSeconds: claimLimiter.secondsUntilAvailable(client))
        }
        let fields = body.readableBytes == 0 ? [:] : try JSONBody.stringFields(in: body, required: [], optional: ["state"])
        let state = try ResolveRoutes.name(fields["state"], field: "state")
        guard let code = ClaimCode(text: text) else { throw Self.noSuchClaim }
        // The request is checked against the claim's app before the code is spent: a state the app lacks leaves it.
        if let state {
            guard let waiting = try await LinkService.storing({ try await links.store.peekClaim(lookupKey: Data(code.lookupKey)) })
            else { throw Self.noSuchClaim }
            if let manifest = links.router.manifest(app: waiting.app), !manifest.states.contains(state) {
                throw APIError(.unprocessableContent, .unknownState,
                               "state '\(state)' is not a state of \(waiting.app) (\(manifest.states.joined(separator: ", "))); the code is not spent")
            }
        }
        guard let record = try await LinkService.storing({
                  try await links.store.redeemClaim(lookupKey: Data(code.lookupKey), events: Self.claimedEvents)
              }),
              let token = code.open(Array(record.sealedToken)).map({ String(decoding: $0, as: UTF8.self) }),
              let url = links.router.shareURL(app: record.app, token: token)
        else { throw Self.noSuchClaim }
        let resolution = await links.resolve(url: url, state: state, app: record.app)
        claimSucceeded(record, resolution: resolution)
        return .json(resolution.jsonBytes())
    }

    /// The webhook events of a claim taken, written with it (in its transaction): `link.claimed`, when the link
    /// still exists.
    @Sendable static func claimedEvents(_ claim: ClaimRecord, link: LinkRecord?) -> [WebhookEvent] {
        guard let link else { return [] }
        return [WebhookEvents.linkClaimed(link, platform: claim.platform, at: Date())]
    }

    /// Where a claim succeeds: the code is taken (it will never answer again) and the resolution is made. Counts the
    /// claim (its `link.claimed` webhook event went to the outbox with the claim: `claimedEvents`).
    func claimSucceeded(_ claim: ClaimRecord, resolution: Resolution) {
        liveClaims.removed()
        analytics.recordClaimClaimed(linkID: claim.linkID, app: claim.app)
    }

    /// The one answer for a code that cannot be claimed — never made, claimed already, expired, malformed — so
    /// that nothing tells them apart. 404 rather than 410: 410 would say the code once existed, which a never-made
    /// code cannot truthfully say, and answering one of them differently is the oracle this avoids.
    static let noSuchClaim = APIError(
        .notFound, .notFound, "no claim with this code: it was never made, was claimed already, or expired")
}
