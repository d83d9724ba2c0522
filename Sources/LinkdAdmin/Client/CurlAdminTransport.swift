public import Foundation
import OutboundHTTP

/// The admin client's requests over `OutboundHTTP` (libcurl): the connection's time limits and response cap on
/// every call, http and https only, no redirect followed (a 3xx is an error answer: the URL should be the daemon's).
public struct CurlAdminTransport: AdminTransport {
    /// Creates the transport.
    public init() {}

    /// Performs one exchange within `connection`'s limits.
    public func perform(
        method: String, url: String, headers: [(String, String)], body: Data?, connection: AdminConnection
    ) async -> Result<AdminResponse, TransportFailure> {
        var request = Self.request(method: method, url: url, headers: headers, connection: connection)
        request.body = body.map(Array.init) ?? []
        return await Self.perform(request)
    }

    /// Performs one exchange whose 2xx body streams to `write`: the connection's timeout is how long it may stall.
    public func download(
        method: String, url: String, headers: [(String, String)], connection: AdminConnection,
        write: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool
    ) async -> Result<AdminResponse, TransportFailure> {
        var request = Self.request(method: method, url: url, headers: headers, connection: connection)
        request.bodyStream = OutboundBodyStream(stallTimeoutMilliseconds: Self.milliseconds(connection.timeout), write: write)
        return await Self.perform(request)
    }

    /// A request within `connection`'s limits, through the environment's proxy, with no body yet.
    private static func request(
        method: String, url: String, headers: [(String, String)], connection: AdminConnection
    ) -> OutboundRequest {
        let limits = OutboundLimits(
            connectTimeoutMilliseconds: milliseconds(connection.connectTimeout),
            totalTimeoutMilliseconds: milliseconds(connection.timeout), maxResponseBytes: connection.maxResponseBytes)
        return OutboundRequest(
            method: method, url: url, headers: headers.map { OutboundHeader($0.0, $0.1) }, limits: limits, usesEnvironmentProxy: true)
    }

    /// Performs one exchange whose body is read from `body` as curl sends it: the connection's timeout is how long
    /// it may stall.
    public func upload(
        method: String, url: String, headers: [(String, String)], body: AdminUpload, connection: AdminConnection
    ) async -> Result<AdminResponse, TransportFailure> {
        var request = Self.request(method: method, url: url, headers: headers, connection: connection)
        request.bodySource = OutboundBodySource(
            length: body.length, stallTimeoutMilliseconds: Self.milliseconds(connection.timeout), read: body.read)
        return await Self.perform(request)
    }

    private static func perform(_ request: OutboundRequest) async -> Result<AdminResponse, TransportFailure> {
        switch await OutboundHTTP.perform(request) {
        case .success(let response):
            return .success(AdminResponse(status: response.status, body: Data(response.body)))
        case .failure(let failure):
            switch failure.kind {
            case .timedOut: return .failure(.timedOut)
            case .tooLarge: return .failure(.tooLarge)
            case .couldNotResolve: return .failure(.unreachable("the host name does not resolve (\(failure.message))"))
            case .couldNotConnect: return .failure(.unreachable("no connection (\(failure.message)) — is linkd serve running there?"))
            case .tls: return .failure(.unreachable("TLS failed (\(failure.message))"))
            case .invalidRequest, .transport, .addressRefused: return .failure(.unreachable(failure.message))
            }
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
