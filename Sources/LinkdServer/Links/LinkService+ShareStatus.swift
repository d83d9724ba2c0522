import Foundation
import LinkdHTTP
import PrintableText
import LinkRouter
import LinkStore
import TokenSigning

/// Share-path lookups: which app a token belongs to, by the request's host.
extension LinkService {
    /// The longest token considered (an Ed25519 token is 126 characters).
    static let maxTokenBytes = 128

    /// The app and status of a token: the app whose share host is the request's host, else the first app whose
    /// keys verify it. Every candidate is tried the same way, so an unknown token costs what a valid one does.
    /// Reads the link record on a cache miss; records no metric (the caller counts the verdict it answers).
    func shareStatus(token: String, host: String?, now: Date = Date()) async -> (app: String?, status: LinkStatus) {
        var verified = VerifiedTokens()
        return await shareStatus(token: token, host: host, now: now, verified: &verified)
    }

    /// `shareStatus`, checking signatures through `verified` (a caller that tried `shareStatusInMemory` first
    /// passes the same, so that the token's signature is checked once).
    func shareStatus(token: String, host: String?, now: Date = Date(), verified: inout VerifiedTokens) async -> (app: String?, status: LinkStatus) {
        guard token.utf8.count <= Self.maxTokenBytes else { return (nil, .unknown) }
        for app in candidates(host: host, cached: StatedLink(token: token, store: store)?.record) {
            let status = await status(token: token, app: app, now: now, verified: &verified)
            if status != .unknown { return (app, status) }
        }
        return (nil, .unknown)
    }

    /// `shareStatus` decided from memory; nil when a link record must be read first.
    func shareStatusInMemory(
        token: String, host: String?, now: Date = Date(), verified: inout VerifiedTokens
    ) -> (app: String?, status: LinkStatus, record: LinkRecord?)? {
        guard token.utf8.count <= Self.maxTokenBytes else { return (nil, .unknown, nil) }
        let stated = StatedLink(token: token, store: store)
        for app in candidates(host: host, cached: stated?.record) {
            switch memoryStatus(token: token, app: app, now: now, verified: &verified, stated: stated) {
            case .decided(.unknown, _): continue
            case .decided(let status, let record): return (app, status, record)
            case .needsRecord: return nil
            }
        }
        return (nil, .unknown, nil)
    }

    /// The apps whose keys a token on `host` is checked with, in turn: the app whose share host it is; on a host no
    /// app claims (a local or test setup), the app of the token's link when its record is `cached` (a token of
    /// another app's key could only decide `unknown` for that link, so its one check is the only one needed);
    /// else every app with share links.
    private func candidates(host: String?, cached: LinkRecord?) -> [String] {
        if let host = host.map(Authority.hostname), let app = router.shareApp(host: host) { return [app] }
        if let app = cached?.app, router.shareAppIDs.contains(app) { return [app] }
        return router.shareAppIDs
    }
}
