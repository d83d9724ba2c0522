/// Why a call of `LinkdClient` failed.
public enum LinkdClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with an error, `{"error": {"code", "message"}}`: its status, code and message.
    case server(ServerError)
    /// No answer came within `LinkdClient.Configuration.timeout` (on the last attempt).
    case timedOut(Duration)
    /// The request could not be sent or its answer not read: connection refused or lost, DNS, TLS. `code` is
    /// Foundation's `URLError.Code` raw value.
    case transport(code: Int, message: String)
    /// The server answered something that is not the API's JSON (a proxy's page, a body of the wrong shape, one
    /// over `Configuration.maxResponseBytes`).
    case unexpectedResponse(status: Int, reason: String)
    /// The call was refused before anything was sent (a claim code of the wrong shape, a URL that cannot be built).
    case invalidRequest(String)

    /// The server's error, when it sent one.
    public var serverError: ServerError? {
        if case .server(let error) = self { error } else { nil }
    }

    /// A line for logs.
    public var description: String {
        switch self {
        case .server(let error): "\(error.status) \(error.code): \(error.message)"
        case .timedOut(let limit): "no answer within \(limit)"
        case .transport(let code, let message): "transport error \(code): \(message)"
        case .unexpectedResponse(let status, let reason): "unexpected answer (HTTP \(status)): \(reason)"
        case .invalidRequest(let reason): "invalid request: \(reason)"
        }
    }
}

/// An error answer of the server.
public struct ServerError: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The machine code.
    public var code: ServerErrorCode
    /// The server's message (English, for logs; it names the field or param at fault).
    public var message: String
    /// `Retry-After`, when the answer carried one (every 429; 503 `too_many_connections`).
    public var retryAfter: Duration?

    /// Creates a server error.
    public init(status: Int, code: ServerErrorCode, message: String, retryAfter: Duration? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }
}
