public import Foundation

/// An HTTP answer as the admin client reads it.
public struct AdminResponse: Sendable {
    /// The status code.
    public let status: Int
    /// The body, at most the connection's `maxResponseBytes`.
    public let body: Data

    /// Creates a response.
    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }

    /// The body as a JSON object (empty when it is not one).
    public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
}

/// Why a request got no HTTP answer.
public enum TransportFailure: Error, Sendable {
    /// No answer within the time limit (connecting or waiting).
    case timedOut
    /// The answer was larger than the cap.
    case tooLarge
    /// No connection: refused, unknown host, network unreachable, TLS failure — with what the client library said.
    case unreachable(String)
}

/// How requests go out: `OutboundHTTP` (libcurl) in the CLI; anything that performs one HTTP exchange in a test.
public protocol AdminTransport: Sendable {
    /// Performs one exchange within `connection`'s limits; never throws, never waits past `connection.timeout`.
    func perform(
        method: String, url: String, headers: [(String, String)], body: Data?, connection: AdminConnection
    ) async -> Result<AdminResponse, TransportFailure>
}

/// The admin API over a transport: sends a request with the key and turns every answer that is not a 2xx into an
/// `AdminFailure` whose message names the daemon and quotes the server's code and message.
public struct AdminClient: Sendable {
    /// Where and how.
    public let connection: AdminConnection
    /// How requests go out.
    public let transport: any AdminTransport

    /// A client of `connection` over `transport`.
    public init(connection: AdminConnection, transport: any AdminTransport) {
        self.connection = connection
        self.transport = transport
    }

    /// Sends `request`: the 2xx answer, or the failure of anything else.
    public func send(_ request: AdminRequest) async throws(AdminFailure) -> AdminResponse {
        var headers = [("Authorization", "Bearer \(connection.key)"), ("Accept", "application/json")]
        if request.body != nil { headers.append(("Content-Type", "application/json")) }
        headers += request.headers
        let url = connection.baseURL + request.target
        let answer = await transport.perform(
            method: request.method, url: url, headers: headers, body: request.body, connection: connection)
        switch answer {
        case .failure(.timedOut):
            throw AdminFailure(.unreachable, "\(connection.baseURL) did not answer within \(Self.seconds(connection.timeout)) (--timeout)")
        case .failure(.tooLarge):
            throw AdminFailure(.api, "\(request.method) \(request.target): the answer is larger than \(connection.maxResponseBytes) bytes")
        case .failure(.unreachable(let detail)):
            throw AdminFailure(.unreachable, "cannot reach the daemon at \(connection.baseURL): \(detail)")
        case .success(let response) where (200..<300).contains(response.status):
            return response
        case .success(let response):
            throw failure(of: response, request)
        }
    }

    /// The failure an error answer means: its kind by status, its message the server's code and message.
    func failure(of response: AdminResponse, _ request: AdminRequest) -> AdminFailure {
        let error = response.json["error"] as? [String: Any]
        let what = "\(request.method) \(request.target)"
        guard let code = error?["code"] as? String, let message = error?["message"] as? String else {
            return AdminFailure(.api, "\(what): HTTP \(response.status) from \(connection.baseURL), not a linkd API answer — is the URL the daemon's?")
        }
        let said = "\(code) (HTTP \(response.status)): \(message)"
        switch response.status {
        case 401:
            return AdminFailure(.refused, "the daemon at \(connection.baseURL) refused the key: \(said) — check LINKD_ADMIN_KEY, --key or the credentials file")
        case 403:
            return AdminFailure(.refused, "the daemon at \(connection.baseURL) refused the key: \(said) — these verbs need an admin key")
        case 404:
            return AdminFailure(.notFound, "\(what): \(said)")
        case 429, 503:
            return AdminFailure(.temporary, "\(what): \(said) — retry later")
        default:
            return AdminFailure(.api, "\(what): \(said)")
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }
}
