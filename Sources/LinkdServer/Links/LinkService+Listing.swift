import Foundation
import LinkStore

/// A page of `GET /v1/links`: the links, newest first, and the cursor of the next page (absent on the last).
struct LinkPage: Encodable, Sendable {
    let links: [LinkView]
    let nextCursor: String?
}

/// Listing and searching links.
extension LinkService {
    /// The page sizes of a listing.
    enum ListCaps {
        /// Links per page when the request does not say.
        static let defaultLimit = 50
        /// The most links one page holds.
        static let maxLimit = 200
    }

    /// A page of the links that match `query` (its `limit` at most `ListCaps.maxLimit`), each as the inspector
    /// shows it — clicks not yet flushed included — and the cursor of the next page when there is one. The caller
    /// has scoped `query` to what its key may see.
    func list(_ query: LinkListQuery) async throws -> LinkPage {
        var probe = query
        probe.limit = min(max(query.limit, 1), ListCaps.maxLimit) + 1  // one more: is there a next page?
        let store = self.store
        let router = self.router
        let listed = try await Self.storing { try await events.counted { [probe] in try await store.listLinks(probe) } }
        let page = listed.prefix(probe.limit - 1)
        let next = listed.count > page.count ? page.last.map { LinkCursor.text(LinkPosition(of: $0.record)) } : nil
        return LinkPage(links: page.map { LinkView($0.record, clicks: $0.clicks, now: query.now, router: router) }, nextCursor: next)
    }
}
