import Hummingbird
import NIOCore

/// The request context of linkd's routes: Hummingbird's core storage plus the peer address, which keys the
/// per-client rate limits.
struct LinkdRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connected peer.
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The rate-limit key of the caller: its IP address.
    var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}
