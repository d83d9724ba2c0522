import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import LinkdHTTP
@testable import LinkdServer

/// `RequestScanner` against NIO's own HTTP/1 decoder: what the scanner reads, NIO reads the same; what it cannot
/// read it says so (and NIO's decoder gets the bytes).
@Suite("RequestScanner")
struct RequestScannerTests {
    /// What NIO's decoder makes of `bytes`: the request heads and body sizes, or nil when it refuses them.
    static func nio(_ bytes: [UInt8]) -> [(head: HTTPRequestHead, body: Int)]? {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)))
        defer { _ = try? channel.finish() }
        do {
            try channel.writeInbound(ByteBuffer(bytes: bytes))
            var requests: [(head: HTTPRequestHead, body: Int)] = []
            var complete = true
            while let part: HTTPServerRequestPart = try channel.readInbound() {
                switch part {
                case .head(let head): requests.append((head, 0)); complete = false
                case .body(let body): requests[requests.count - 1].body += body.readableBytes
                case .end: complete = true
                }
            }
            return complete ? requests : nil
        } catch {
            return nil
        }
    }

    /// The scanner's head of `bytes`, checked against NIO's reading of exactly that request's bytes.
    static func agreesWithNIO(_ bytes: [UInt8], _ head: ScannedHead, sourceLocation: SourceLocation = #_sourceLocation) {
        let buffer = ByteBuffer(bytes: bytes)
        func text(_ range: Range<Int>?) -> String? { range.flatMap { buffer.getString(at: $0.lowerBound, length: $0.count) } }
        guard head.length <= bytes.count, let requests = nio(Array(bytes[..<head.length])), requests.count == 1 else {
            Issue.record("NIO does not read one request from \(String(decoding: bytes, as: UTF8.self).debugDescription)",
                         sourceLocation: sourceLocation)
            return
        }
        let (nioHead, body) = requests[0]
        let method: ScannedHead.Method = nioHead.method == .GET ? .get : nioHead.method == .POST ? .post : .other
        #expect(method == head.method, sourceLocation: sourceLocation)
        #expect(text(head.target) == nioHead.uri, sourceLocation: sourceLocation)
        #expect(nioHead.version == .http1_1 && nioHead.isKeepAlive, sourceLocation: sourceLocation)
        // Field values without their trailing whitespace, as HTTPFields (Hummingbird's view of them) keeps them.
        func field(_ name: String) -> String? { nioHead.headers.first(name: name).map(trimmed) }
        #expect(text(head.host) == field("host"), sourceLocation: sourceLocation)
        #expect(head.userAgentCount == nioHead.headers["user-agent"].count, sourceLocation: sourceLocation)
        #expect(text(head.userAgent) == field("user-agent"), sourceLocation: sourceLocation)
        #expect(head.refererCount == nioHead.headers["referer"].count, sourceLocation: sourceLocation)
        #expect(text(head.referer) == field("referer"), sourceLocation: sourceLocation)
        #expect(head.contentTypeCount == nioHead.headers["content-type"].count, sourceLocation: sourceLocation)
        #expect(text(head.contentType) == field("content-type"), sourceLocation: sourceLocation)
        #expect(body == head.contentLength, sourceLocation: sourceLocation)
    }

    static func trimmed(_ value: String) -> String {
        var scalars = Substring(value).unicodeScalars
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }

    static let samples: [String] = [
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        "GET /s/AQAAAAE-x_y HTTP/1.1\r\nhost:links.handz.example:8443 \r\nUser-Agent: Mozilla/5.0 (iPhone; CPU iPhone OS 17_0)\r\nAccept: */*\r\n\r\n",
        "POST /v1/resolve HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n{\"url\":\"handz://library\"}\r\n",
        "GET /v1/resolve?url=handz%3A%2F%2Flibrary&state=free HTTP/1.1\r\nHOST: \t x.example\t \r\nConnection: Keep-Alive\r\n\r\n",
        "DELETE /v1/links/abc HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer lkd_x\r\nContent-Length: 0\r\n\r\n",
        "PUT /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
        "GET /s/t HTTP/1.1\r\nHost: a\r\nUser-Agent: one\r\nUser-Agent: two\r\nX-Empty:\r\nX-Obs: caf\u{E9}\r\n\r\n",
        "POST /v1/resolve HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
        "GET /a?b=c&d=%20|{}~^`\"<> HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /s/AQAAAAE?utm_source=x HTTP/1.1\r\nHost: a\r\nReferer:  https://t.co/abc \r\nreferer: https://b.example/\r\n\r\n",
    ]

    @Test("what it reads, NIO's decoder reads the same: method, target, host, agents, content type, body length")
    func readsAsNIO() throws {
        for sample in Self.samples {
            let bytes = Array(sample.utf8)
            guard case .head(let head) = RequestScanner.scan(ByteBuffer(bytes: bytes)) else {
                Issue.record("not read: \(sample.debugDescription)")
                continue
            }
            Self.agreesWithNIO(bytes, head)
            #expect(head.length == bytes.count, "\(sample.debugDescription)")
        }
        // Pipelined: the first request's length is where the second starts.
        let two = Array((Self.samples[0] + Self.samples[2]).utf8)
        guard case .head(let first) = RequestScanner.scan(ByteBuffer(bytes: two)) else { Issue.record("not read"); return }
        guard case .head(let second) = RequestScanner.scan(ByteBuffer(bytes: Array(two[first.length...]))) else {
            Issue.record("second not read")
            return
        }
        #expect(first.length + second.length == two.count && second.method == .post && second.contentLength == 27)
    }

    @Test("every strict prefix of a head is incomplete")
    func prefixes() {
        for sample in Self.samples {
            guard case .head(let head) = RequestScanner.scan(ByteBuffer(string: sample)) else { continue }
            let bytes = Array(sample.utf8)
            for end in 0..<head.headLength {
                #expect(RequestScanner.scan(ByteBuffer(bytes: bytes[..<end])) == .incomplete, "\(end): \(sample.debugDescription)")
            }
        }
    }

    @Test("what it does not read goes to NIO's decoder: chunked, Expect, Upgrade, Connection: close, HTTP/1.0, malformed, huge")
    func unsupported() {
        let refused = [
            "POST /v1/resolve HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST /v1/resolve HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, close\r\n\r\n",
            "GET /healthz HTTP/1.0\r\nHost: a\r\n\r\n",
            "GET /healthz HTTP/2.0\r\n\r\n",
            "GET http://a.example/healthz HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET  /healthz HTTP/1.1\r\n\r\n",
            "GET /healthz HTTP/1.1\nHost: a\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: a\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost : a\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: a\u{1}b\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
            "POST /v1/resolve HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
            "POST /v1/resolve HTTP/1.1\r\nHost: a\r\nContent-Length: -2\r\n\r\n",
            "POST /v1/resolve HTTP/1.1\r\nHost: a\r\nContent-Length: 1234567890\r\n\r\n",
            "\r\nGET /healthz HTTP/1.1\r\nHost: a\r\n\r\n",
            "G\u{E9}T /healthz HTTP/1.1\r\n\r\n",
            "GET /caf\u{E9} HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: a\r\n" + String(repeating: "X-Pad: 0123456789\r\n", count: 1000) + "\r\n",
        ]
        for text in refused {
            #expect(RequestScanner.scan(ByteBuffer(string: text)) == .unsupported, "\(text.prefix(120).debugDescription)")
        }
    }

    @Test("random edits of requests: whatever it still reads, NIO reads the same way")
    func fuzz() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = Array(" \t\r\n:/?%-_.aAzZ09\u{0}\u{7F}".utf8) + [0x80, 0xC3, 0xE9, 0xFF, UInt8(ascii: "\"")]
        var read = 0
        for round in 0..<20_000 {
            let bytes = randomlyEdited(Array(Self.samples[round % Self.samples.count].utf8), alphabet: alphabet, using: &generator)
            guard case .head(let head) = RequestScanner.scan(ByteBuffer(bytes: bytes)), head.length <= bytes.count else { continue }
            read += 1
            Self.agreesWithNIO(bytes, head)
        }
        #expect(read > 1000, "the edits left enough readable requests to compare")
    }
}
