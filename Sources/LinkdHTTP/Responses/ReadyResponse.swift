package import HTTPTypes
package import Hummingbird
package import NIOCore
import NIOHTTP1

/// A response made in full before it is sent: status, header fields and body bytes. Routes make these; Hummingbird
/// answers one as a `Response`, the event-loop fast path (`EdgeHandler`) writes its HTTP/1.1 bytes.
package struct ReadyResponse: Sendable {
    /// The status.
    let status: HTTPResponse.Status
    /// The header fields (`Content-Length`, `Date` and `Server` are added when it is sent).
    let headers: HTTPFields
    /// The body.
    let body: ByteBuffer
    /// The status line and header fields as HTTP/1.1 bytes, encoded once with the response (a cached page is sent
    /// many times; JSON answers share one).
    let wirePrefix: ByteBuffer

    /// A JSON answer with `Cache-Control: no-store` (API answers reflect revocations at once).
    package static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> ReadyResponse {
        let body = ByteBuffer(bytes: bytes)
        guard status == .ok else { return ReadyResponse(status: status, headers: jsonHeaders, body: body) }
        return ReadyResponse(status: .ok, headers: jsonHeaders, body: body, wirePrefix: jsonOKPrefix)
    }

    private static let jsonHeaders: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
    private static let jsonOKPrefix = encodedPrefix(status: .ok, headers: jsonHeaders)

    /// A response with header fields given as `name`/`value` pairs (WebFallback's form).
    package init(status: HTTPResponse.Status, headers: [(name: String, value: String)], body: ByteBuffer) {
        var fields = HTTPFields()
        for header in headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        self.init(status: status, headers: fields, body: body)
    }

    /// A response from its parts.
    package init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer) {
        self.init(status: status, headers: headers, body: body, wirePrefix: Self.encodedPrefix(status: status, headers: headers))
    }

    private init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer, wirePrefix: ByteBuffer) {
        self.status = status
        self.headers = headers
        self.body = body
        self.wirePrefix = wirePrefix
    }

    /// This response's status and header fields (their encoded bytes shared) with another body.
    package func replacingBody(_ body: ByteBuffer) -> ReadyResponse {
        ReadyResponse(status: status, headers: headers, body: body, wirePrefix: wirePrefix)
    }

    /// As a Hummingbird response.
    package var response: Response {
        Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// What follows the header fields on the wire: `Content-Length`, `Date`, `Server` and the blank line — the
    /// fields Hummingbird adds, in its order. The body comes after.
    func wireTrailer(date: String, server: String, addedFields: String = "", allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 80 + server.utf8.count + addedFields.utf8.count)
        buffer.writeStaticString("Content-Length: ")
        buffer.writeString(String(body.readableBytes))
        buffer.writeStaticString("\r\nDate: ")
        buffer.writeString(date)
        buffer.writeStaticString("\r\nServer: ")
        buffer.writeString(server)
        buffer.writeStaticString("\r\n")
        buffer.writeString(addedFields)
        buffer.writeStaticString("\r\n")
        return buffer
    }

    /// The status line and header fields as HTTP/1.1 bytes.
    private static func encodedPrefix(status: HTTPResponse.Status, headers: HTTPFields) -> ByteBuffer {
        var buffer = ByteBuffer()
        // A status made from a bare code (a page's 200/404/410) has no phrase: NIO's is the one Hummingbird sends.
        let phrase = status.reasonPhrase.isEmpty ? HTTPResponseStatus(statusCode: status.code).reasonPhrase : status.reasonPhrase
        buffer.writeString("HTTP/1.1 \(status.code) \(phrase)\r\n")
        for field in headers {
            buffer.writeString(field.name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
        return buffer
    }
}
