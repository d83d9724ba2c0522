public import Foundation

/// One call of the admin API: method, path, query and JSON body.
public struct AdminRequest: Sendable, Equatable {
    /// `GET`, `POST` or `DELETE`.
    public var method: String
    /// The path segments after the base URL, each percent-encoded when the URL is built (`["v1", "links", id]`).
    public var segments: [String]
    /// Query parameters in order; nil values are left out.
    public var query: [(String, String?)]
    /// The JSON body, if any.
    public var body: Data?
    /// Headers besides the key and the content type (`If-Match`).
    public var headers: [(String, String)] = []

    /// A request of `method` to `segments`, with `query` and a JSON `body` (an object of JSON values).
    public init(_ method: String, _ segments: [String], query: [(String, String?)] = [], json: [String: Any]? = nil) {
        self.method = method
        self.segments = segments
        self.query = query
        self.body = json.flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) }
    }

    /// The path and query, percent-encoded: `/v1/links?owner=u%201`.
    public var target: String {
        let path = "/" + segments.map { Self.encode($0) }.joined(separator: "/")
        let pairs = query.compactMap { name, value in value.map { "\(Self.encode(name))=\(Self.encode($0))" } }
        return pairs.isEmpty ? path : path + "?" + pairs.joined(separator: "&")
    }

    /// Unreserved characters as they are, everything else percent-encoded (RFC 3986).
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    public static func == (lhs: AdminRequest, rhs: AdminRequest) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.body == rhs.body
    }
}
