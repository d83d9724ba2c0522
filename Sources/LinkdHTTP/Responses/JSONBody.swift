package import Foundation
package import HTTPTypes
package import Hummingbird
package import NIOCore

/// Reading and answering JSON bodies with the API's caps and error codes.
package enum JSONBody {
    /// Collects the body of `request` up to `maxBytes`: 413 past the cap, 415 when `contentType` does not match.
    package static func collect(_ request: Request, maxBytes: Int, contentType: String = "application/json") async throws -> ByteBuffer {
        guard hasMediaType(request.headers[.contentType], contentType) else {
            throw APIError(.unsupportedMediaType, .unsupportedMediaType, "send the body as \(contentType)")
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBytes {
            throw APIError(.contentTooLarge, .payloadTooLarge, "the body is larger than \(maxBytes) bytes")
        }
        do {
            return try await request.body.collect(upTo: maxBytes)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, .payloadTooLarge, "the body is larger than \(maxBytes) bytes")
        }
    }

    /// Whether a `Content-Type` value names `mediaType` (parameters such as `charset` aside, any case).
    package static func hasMediaType(_ value: String?, _ mediaType: String) -> Bool {
        if value == mediaType { return true }  // the usual case, without splitting
        return value?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } == mediaType
    }

    /// Decodes a JSON object of type `T` from the body. Unknown keys are refused (400), so that a typo in a field
    /// name is an error rather than a silently ignored field.
    package static func decode<T: Decodable>(
        _ type: T.Type, from request: Request, maxBytes: Int, allowedKeys: Set<String>
    ) async throws -> T {
        let buffer = try await collect(request, maxBytes: maxBytes)
        let data = Data(buffer.readableBytesView)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw APIError(.badRequest, .badRequest, "the body must be a JSON object")
        }
        if let unknown = object.keys.sorted().first(where: { !allowedKeys.contains($0) }) {
            throw APIError(.badRequest, .badRequest, "unknown field '\(unknown)' (known: \(allowedKeys.sorted().joined(separator: ", ")))")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let DecodingError.keyNotFound(key, _) {
            throw APIError(.badRequest, .badRequest, "missing field '\(key.stringValue)'")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw APIError(.badRequest, .badRequest, "field '\(path)' has the wrong type")
        } catch {
            throw APIError(.badRequest, .badRequest, "the body is not valid JSON for this endpoint")
        }
    }

    /// A flat JSON object of string fields, parsed once (the hot `POST /v1/resolve` body): the same errors as
    /// `decode` — unknown field, missing field, wrong type — without a second pass through `JSONDecoder`.
    package static func stringFields(in buffer: ByteBuffer, required: Set<String>, optional: Set<String>) throws -> [String: String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any] else {
            throw APIError(.badRequest, .badRequest, "the body must be a JSON object")
        }
        let allowed = required.union(optional)
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIError(.badRequest, .badRequest, "unknown field '\(unknown)' (known: \(allowed.sorted().joined(separator: ", ")))")
        }
        if let missing = required.sorted().first(where: { object[$0] == nil }) {
            throw APIError(.badRequest, .badRequest, "missing field '\(missing)'")
        }
        var fields: [String: String] = [:]
        for (name, value) in object where !(value is NSNull) || required.contains(name) {
            guard let text = value as? String else {
                throw APIError(.badRequest, .badRequest, "field '\(name)' has the wrong type")
            }
            fields[name] = text
        }
        return fields
    }

    /// A JSON response with `Cache-Control: no-store` (API answers reflect revocations at once).
    package static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try encoder.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    /// The API's JSON writer (sorted keys, ISO 8601 dates); webhook bodies are written with it too.
    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
}
