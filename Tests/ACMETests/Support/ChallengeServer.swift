import ACME
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A tiny HTTP/1 server on 127.0.0.1 that answers `GET /.well-known/acme-challenge/<token>` from one
/// `HTTP01Challenges` (404 for anything else), as the daemon's plain listener will: pebble validates against it.
/// One per test process (the port is pebble's fixed HTTP-01 port), started on first use and never stopped.
enum ChallengeServer {
    /// The challenges every test publishes into.
    static let challenges = HTTP01Challenges()

    private static let bound = Mutex<Result<Int, any Error>?>(nil)

    /// Starts the server on `port` once (later calls return at once).
    static func start(port: Int) throws {
        try bound.withLock { state in
            if let state { return _ = try state.get() }
            let result = Result { () throws -> Int in
                let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .serverChannelOption(.backlog, value: 64)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .childChannelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                            try channel.pipeline.syncOperations.addHandler(Handler(challenges: challenges))
                        }
                    }
                    .bind(host: "127.0.0.1", port: port).wait()
                return channel.localAddress?.port ?? port
            }
            state = result
            _ = try result.get()
        }
    }

    /// Answers each request at its end (keep-alive: the client closes); bodies are ignored.
    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let challenges: HTTP01Challenges
        var head: HTTPRequestHead?
        init(challenges: HTTP01Challenges) { self.challenges = challenges }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): self.head = head
            case .body: break
            case .end:
                guard let head else { return }
                self.head = nil
                let answer = head.method == .GET ? challenges.keyAuthorization(forPath: head.uri) : nil
                let body = answer ?? "not found\n"
                let headers = HTTPHeaders([("Content-Type", "text/plain"), ("Content-Length", String(body.utf8.count))])
                let status: HTTPResponseStatus = answer == nil ? .notFound : .ok
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
