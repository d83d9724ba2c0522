import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import WebFallback

/// A response made in full before it is sent: status, header fields and body bytes. Routes make these; Hummingbird
/// answers one as a `Response`, the event-loop fast path (`FastPathHandler`) writes its HTTP/1.1 bytes.
struct ReadyResponse: Sendable {
    /// The status.
    var status: HTTPResponse.Status
    /// The header fields (`Content-Length`, `Date` and `Server` are added when it is sent).
    var headers: HTTPFields
    /// The body.
    var body: ByteBuffer

    /// A JSON answer with `Cache-Control: no-store` (API answers reflect revocations at once).
    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> ReadyResponse {
        ReadyResponse(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: ByteBuffer(bytes: bytes))
    }

    /// A rendered web-fallback page with its own status and headers.
    init(page: RenderedPage) {
        self.init(status: HTTPResponse.Status(code: page.status), headers: page.headers, body: ByteBuffer(string: page.body))
    }

    /// A response with header fields given as `name`/`value` pairs (WebFallback's form).
    init(status: HTTPResponse.Status, headers: [(name: String, value: String)], body: ByteBuffer) {
        var fields = HTTPFields()
        for header in headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        self.init(status: status, headers: fields, body: body)
    }

    /// A response from its parts.
    init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// As a Hummingbird response.
    var response: Response {
        Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// Appends the HTTP/1.1 response to `buffer`: status line, the header fields, `Content-Length`, `Date`,
    /// `Server`, the body — the bytes Hummingbird sends for `response`.
    func write(to buffer: inout ByteBuffer, date: String, server: String) {
        // A status made from a bare code (a page's 200/404/410) has no phrase: NIO's is the one Hummingbird sends.
        let phrase = status.reasonPhrase.isEmpty ? HTTPResponseStatus(statusCode: status.code).reasonPhrase : status.reasonPhrase
        buffer.writeString("HTTP/1.1 \(status.code) \(phrase)\r\n")
        for field in headers {
            buffer.writeString(field.name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("Content-Length: ")
        buffer.writeString(String(body.readableBytes))
        buffer.writeStaticString("\r\nDate: ")
        buffer.writeString(date)
        buffer.writeStaticString("\r\nServer: ")
        buffer.writeString(server)
        buffer.writeStaticString("\r\n\r\n")
        buffer.writeImmutableBuffer(body)
    }
}
