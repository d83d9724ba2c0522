package import HummingbirdCore
package import Logging
package import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 child channel with `EdgeHandler` added in front of NIO's HTTP/1 request decoder, on every
/// connection (with the fast path off it still delimits requests, holds the time limits and caps, and answers
/// nothing itself).
package struct EdgeChannel: ServerChildChannel, HTTPChannelHandler {
    /// The channel Hummingbird would use.
    let base: HTTP1Channel
    /// What the fast path answers; nil turns it off (every request goes to Hummingbird).
    let routes: HotRouteTable?
    /// The `Server` header value.
    let serverName: String
    /// Header lines the fast path adds to every answer (`Name: value\r\n` each; empty on the plain listener).
    var addedFields = ""
    /// Every connection's time limits and caps.
    let limits: EdgeLimits
    /// The open connections (shared by all of them).
    let connections: ConnectionCounter
    /// Who a request comes from.
    let clients: ClientAddresses

    /// Hummingbird's channel `base` with the edge in front, answering `routes` on the fast path (nil: none).
    package init(
        base: HTTP1Channel, routes: HotRouteTable?, serverName: String, addedFields: String = "", limits: EdgeLimits,
        connections: ConnectionCounter, clients: ClientAddresses
    ) {
        self.base = base
        self.routes = routes
        self.serverName = serverName
        self.addedFields = addedFields
        self.limits = limits
        self.connections = connections
        self.clients = clients
    }

    package var responder: Responder { base.responder }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let edge = EdgeHandler(
                routes: routes, serverName: serverName, addedFields: addedFields, limits: limits, connections: connections,
                clients: clients)
            try operations.addHandler(edge, position: .before(decoder))
            return value
        }
    }

    package func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
