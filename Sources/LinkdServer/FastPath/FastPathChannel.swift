import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 child channel with `FastPathHandler` added in front of NIO's HTTP/1 request decoder.
struct FastPathChannel: ServerChildChannel, HTTPChannelHandler {
    /// The channel Hummingbird would use.
    let base: HTTP1Channel
    /// What the fast path answers; nil turns it off (every request goes to Hummingbird).
    let routes: HotRouteTable?
    /// The `Server` header value.
    let serverName: String

    var responder: Responder { base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            if let routes {
                let operations = channel.pipeline.syncOperations
                let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                try operations.addHandler(FastPathHandler(routes: routes, serverName: serverName), position: .before(decoder))
            }
            return value
        }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
