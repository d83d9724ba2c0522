import Foundation
package import Hummingbird
package import HTTPTypes
package import JSONOutput
import NIOCore

extension JSONBody {
    /// A JSON response written from a `JSONValue`, with the headers of `response(_:status:)`.
    package static func response(json value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: value.bytes))
        )
    }

    /// A value as `encoder` writes it, for the odd member of a `JSONValue` whose form that encoder decides (a date).
    package static func encoded(_ value: some Encodable) throws -> JSONValue {
        .encoded(Array(try encoder.encode(value)))
    }
}
