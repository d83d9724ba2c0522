import HTTPTypes
import Hummingbird
import NIOCore
import Testing
import LinkdHTTP
@testable import WebFallback
@testable import LinkdServer

/// Rendered pages become responses with their own status, headers and body, whether their head was converted
/// before (`PageHeads`) or not, and past the table's bound.
@Suite struct PageHeadsTests {
    @Test("pages sharing a head keep their own bodies; twenty other heads each keep their own fields and status")
    func headsAndBodies() {
        let headers = [(name: "Content-Type", value: "text/html; charset=utf-8"), (name: "Cache-Control", value: "no-store")]
        let first = ReadyResponse(page: RenderedPage(status: 200, headers: headers, body: "<p>one</p>"))
        let second = ReadyResponse(page: RenderedPage(status: 200, headers: headers, body: "<p>two, longer</p>"))
        #expect(first.response.status == .ok && second.response.status == .ok)
        #expect(first.response.headers[.contentType] == "text/html; charset=utf-8")
        #expect(second.response.headers[.cacheControl] == "no-store")
        #expect(first.response.body.contentLength == 10 && second.response.body.contentLength == 18)
        for n in 0..<(PageHeads.maxHeads + 4) {
            let own = headers + [(name: "X-Test", value: "head \(n)")]
            let page = ReadyResponse(page: RenderedPage(status: n % 2 == 0 ? 404 : 410, headers: own, body: "gone \(n)"))
            #expect(page.response.status.code == (n % 2 == 0 ? 404 : 410))
            #expect(page.response.headers[HTTPField.Name("X-Test")!] == "head \(n)")
            #expect(page.response.body.contentLength == "gone \(n)".utf8.count)
        }
    }
}
