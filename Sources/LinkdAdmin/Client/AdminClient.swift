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

    /// Performs one exchange whose 2xx body goes to `write` as it arrives (no size cap; `connection.timeout` is how
    /// long it may stall, not how long it may take); the response returned then has an empty body. Any other status
    /// comes back whole, as from `perform`.
    func download(
        method: String, url: String, headers: [(String, String)], connection: AdminConnection,
        write: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool
    ) async -> Result<AdminResponse, TransportFailure>

    /// Performs one exchange whose body is read from `body` as it is sent (no size cap; `connection.timeout` is how
    /// long it may stall); the answer whole, as from `perform`.
    func upload(
        method: String, url: String, headers: [(String, String)], body: AdminUpload, connection: AdminConnection
    ) async -> Result<AdminResponse, TransportFailure>
}

/// A request body read piece by piece as it is sent (an upload), with its length when known.
public struct AdminUpload: Sendable {
    /// The body's length in bytes, when known (sent as `Content-Length`).
    public let length: Int?
    /// Fills the buffer with the next bytes: how many (0 at the end), or nil when the source failed.
    public let read: @Sendable (UnsafeMutableRawBufferPointer) -> Int?

    /// An upload of `length` bytes read through `read`.
    public init(length: Int?, read: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Int?) {
        self.length = length
        self.read = read
    }
}

extension AdminTransport {
    /// The whole body read first, then `perform`: for transports that cannot stream an upload.
    public func upload(
        method: String, url: String, headers: [(String, String)], body: AdminUpload, connection: AdminConnection
    ) async -> Result<AdminResponse, TransportFailure> {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            guard let count = buffer.withUnsafeMutableBytes({ body.read($0) }) else { return .failure(.unreachable("the body could not be read")) }
            if count == 0 { break }
            data.append(contentsOf: buffer[..<count])
        }
        return await perform(method: method, url: url, headers: headers, body: data, connection: connection)
    }

    /// `perform`, then the whole body to `write`: for transports that cannot stream.
    public func download(
        method: String, url: String, headers: [(String, String)], connection: AdminConnection,
        write: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool
    ) async -> Result<AdminResponse, TransportFailure> {
        let answer = await perform(method: method, url: url, headers: headers, body: nil, connection: connection)
        guard case .success(let response) = answer, (200..<300).contains(response.status) else { return answer }
        guard response.body.withUnsafeBytes({ write($0) }) else { return .failure(.unreachable("the body could not be written")) }
        return .success(AdminResponse(status: response.status, body: Data()))
    }
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

    /// Sends `request` (a `GET`) and hands its 2xx body to `write` piece by piece as it arrives, however large: a
    /// download. The failure of anything else, as `send`; a stall longer than the connection's timeout is `unreachable`.
    public func download(
        _ request: AdminRequest, accept: String, write: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool
    ) async throws(AdminFailure) {
        let headers = [("Authorization", "Bearer \(connection.key)"), ("Accept", accept)] + request.headers
        let answer = await transport.download(
            method: request.method, url: connection.baseURL + request.target, headers: headers, connection: connection, write: write)
        switch answer {
        case .failure(.timedOut):
            throw AdminFailure(.unreachable, "\(connection.baseURL) sent nothing for \(Self.seconds(connection.timeout)) (--timeout)")
        case .failure(.tooLarge):
            throw AdminFailure(.api, "\(request.method) \(request.target): the error answer is larger than \(connection.maxResponseBytes) bytes")
        case .failure(.unreachable(let detail)):
            throw AdminFailure(.unreachable, "the download from \(connection.baseURL) failed: \(detail)")
        case .success(let response) where (200..<300).contains(response.status):
            return
        case .success(let response):
            throw failure(of: response, request)
        }
    }

    /// Sends `request` with `body` read as it goes (however large: never held whole) as `contentType`, and returns
    /// the answer whatever its status (the caller reads a report from an error's details too); a transport failure
    /// as `send`'s, a stall longer than the connection's timeout `unreachable`.
    public func upload(_ request: AdminRequest, contentType: String, body: AdminUpload) async throws(AdminFailure) -> AdminResponse {
        let headers = [("Authorization", "Bearer \(connection.key)"), ("Accept", "application/json"), ("Content-Type", contentType)]
            + request.headers
        let answer = await transport.upload(
            method: request.method, url: connection.baseURL + request.target, headers: headers, body: body, connection: connection)
        switch answer {
        case .failure(.timedOut):
            throw AdminFailure(.unreachable, "\(connection.baseURL) took nothing and said nothing for \(Self.seconds(connection.timeout)) (--timeout)")
        case .failure(.tooLarge):
            throw AdminFailure(.api, "\(request.method) \(request.target): the answer is larger than \(connection.maxResponseBytes) bytes")
        case .failure(.unreachable(let detail)):
            throw AdminFailure(.unreachable, "the upload to \(connection.baseURL) failed: \(detail)")
        case .success(let response):
            return response
        }
    }

    /// The failure an error answer means: its kind by status, its message the server's code and message.
    public func failure(of response: AdminResponse, _ request: AdminRequest) -> AdminFailure {
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
