import HTTPTypes
package import Hummingbird
package import NIOCore

/// The request context of linkd's routes: Hummingbird's core storage plus the peer address, which keys the
/// per-client rate limits.
package struct LinkdRequestContext: RequestContext, RemoteAddressRequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The connected peer.
    package let remoteAddress: SocketAddress?
    /// The client a trusted proxy named (`ClientAddressMiddleware`); nil when the peer is the client.
    var forwardedClient: String?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The rate-limit key of the caller: the forwarded client behind a trusted proxy, else the peer's IPv4 address
    /// or IPv6 /64 (`ClientAddresses`).
    package var clientAddress: String { forwardedClient ?? ClientAddresses.key(of: remoteAddress) }
}

/// Sets `forwardedClient` of a request from a trusted proxy, from its `Forwarded` or `X-Forwarded-For` (several
/// fields of one name are read joined, as a list); does nothing when no proxy is trusted.
package struct ClientAddressMiddleware: RouterMiddleware {
    package typealias Context = LinkdRequestContext
    let clients: ClientAddresses

    /// The middleware reading client keys as `clients` says.
    package init(clients: ClientAddresses) {
        self.clients = clients
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !clients.trustedProxies.isEmpty else { return try await next(request, context) }
        let (peerKey, trusted) = clients.peer(context.remoteAddress)
        guard trusted else { return try await next(request, context) }
        var context = context
        let forwarded = request.headers[values: HTTPField.Name("Forwarded")!].joined(separator: ",")
        let xForwardedFor = request.headers[values: HTTPField.Name("X-Forwarded-For")!].joined(separator: ",")
        context.forwardedClient = clients.client(
            peerKey: peerKey, peerIsTrusted: true, forwarded: forwarded.isEmpty ? nil : forwarded,
            xForwardedFor: xForwardedFor.isEmpty ? nil : xForwardedFor)
        return try await next(request, context)
    }
}
