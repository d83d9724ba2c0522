import Foundation
import LinkRouter
import LinkStore
import TokenSigning

/// The share URLs of a link, for the console's inspector: a link's token is shown only when the link is made, so the
/// inspector signs another one for the same link (same id, expiry and generation) with the app's active key — it
/// opens exactly what the first one opens, and stops when the link is revoked or expires.
extension AdminService {
    /// A share URL of a link and the host it is on.
    struct ShareURL: Sendable {
        /// A host the app's share path is served on.
        let host: String
        /// `https://<host>/<share path with the token>`.
        let url: String
    }

    /// One share URL per share host of an active, unexpired link of `id` — the token's, then the short id's — (empty
    /// otherwise, or when its app has no share section; no token's without an active key, no short one for a link
    /// made before short ids).
    func shareURLs(id: String, by caller: Caller, now: Date = Date()) async throws -> [ShareURL] {
        let record = try await links.existing(id: id, caller: caller)
        guard record.status == .active, record.expires > now, router.manifest(app: record.app)?.share != nil,
              let linkID = LinkID(hex: record.id)
        else { return [] }
        let keyring = keys.inForce.keyring
        let expires = UInt32(clamping: Int(record.expires.timeIntervalSince1970))
        let issued = Self.suites.lazy.compactMap { suite in
            try? keyring.issue(app: record.app, suite: suite, linkID: linkID, expiresAt: expires,
                               generation: UInt32(clamping: record.generation), flags: 0, now: UInt32(clamping: Int(now.timeIntervalSince1970)))
        }.first
        let tokenURLs = issued.map { router.shareURLs(app: record.app, token: $0) } ?? []
        let shortURLs = record.shortID.map { router.shareURLs(app: record.app, token: $0) } ?? []
        return (tokenURLs + shortURLs).map { ShareURL(host: $0.host, url: $0.url) }
    }

    /// The suites a share URL is signed with, in order of preference (the first with an active key).
    private static let suites: [TokenSuite] = [.hmacSHA256, .ed25519]
}
