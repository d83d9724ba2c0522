import HTTPTypes
import LinkdHTTP
import NIOCore
import Synchronization
import WebFallback

extension ReadyResponse {
    /// A rendered web-fallback page with its own status and headers. Pages share a few heads (every landing page
    /// has status 200 and the same header fields), so a head is converted and encoded once (`PageHeads`).
    init(page: RenderedPage) {
        let body = ByteBuffer(bytes: page.utf8)
        if let head = PageHeads.shared.head(of: page) {
            self = head.replacingBody(body)
        } else {
            self.init(status: HTTPResponse.Status(code: page.status), headers: page.headers, body: body)
        }
    }
}

/// The status and header fields of rendered pages, converted to HTTP fields and encoded once: at most `maxHeads`
/// of them (the pages' heads are a handful of constants), each kept as an empty-bodied `ReadyResponse`.
final class PageHeads: Sendable {
    /// The one table, for every page of the process.
    static let shared = PageHeads()
    /// The most heads kept; a page with another head is converted on its own.
    static let maxHeads = 16

    private let heads = Mutex<[(status: Int, headers: [(name: String, value: String)], response: ReadyResponse)]>([])

    /// The head of `page`, kept from a page before or made now; nil when the table is full of other heads.
    func head(of page: RenderedPage) -> ReadyResponse? {
        heads.withLock { heads in
            if let kept = heads.first(where: { $0.status == page.status && Self.same($0.headers, page.headers) }) {
                return kept.response
            }
            guard heads.count < Self.maxHeads else { return nil }
            let response = ReadyResponse(status: HTTPResponse.Status(code: page.status), headers: page.headers, body: ByteBuffer())
            heads.append((page.status, page.headers, response))
            return response
        }
    }

    private static func same(_ lhs: [(name: String, value: String)], _ rhs: [(name: String, value: String)]) -> Bool {
        lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}
