import HTTPTypes
import LinkdHTTP
import NIOCore
import WebFallback

extension ReadyResponse {
    /// A rendered web-fallback page with its own status and headers.
    init(page: RenderedPage) {
        self.init(status: HTTPResponse.Status(code: page.status), headers: page.headers, body: ByteBuffer(string: page.body))
    }
}
