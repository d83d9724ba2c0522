import NIOCore
import NIOHTTP1

/// Answers the hot requests — a share page, a resolution, `/healthz` — on the connection's event loop when all
/// they need is in memory, and hands every other request to Hummingbird unchanged.
///
/// Why: Hummingbird answers each request in a Swift task, a thread hop away from the event loop and back; for
/// answers that are memory lookups the hops and the task cost more than the answer (README, "Speed"). What stays
/// the same on both paths: the routes' logic (`FastRoutes` calls the functions the Hummingbird routes call), the
/// bytes sent (`ReadyResponse`, with the `Date` and `Server` Hummingbird adds), per-client rate limits (a request is
/// charged once, by whichever path answers it) and the request metrics.
///
/// Order: it answers only while no request it handed on is unanswered, so responses leave in request order,
/// pipelining included. It sits between NIO's HTTP/1 decoder and Hummingbird's HTTP-types codec and writes its
/// encoded responses through the response encoder's context (bytes, not response parts): nothing else writes on
/// the connection meanwhile. Requests that ask to close the connection or expect `100-continue` are handed on.
final class FastPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        /// Between requests.
        case idle
        /// The current request goes to Hummingbird.
        case handingOn
        /// The current request may be answered here; its body is being collected.
        case collecting(FastRoutes.Request)
    }

    private let routes: FastRoutes
    private let serverName: String
    private var state = State.idle
    /// Requests handed to Hummingbird whose response has not ended.
    private var unanswered = 0
    /// The context of NIO's response encoder: encoded bytes are written from there, past the encoder.
    private var wire: ChannelHandlerContext?
    private var clientAddress: String?
    private var date = HTTPDateText()
    private var wrote = false
    /// A graceful-shutdown event that came while a request was being collected: passed on once it is answered, so
    /// Hummingbird's connection handler does not close the connection under it.
    private var heldQuiesce: Any?

    /// A handler answering `routes`, naming itself `serverName` in the `Server` header.
    init(routes: FastRoutes, serverName: String) {
        self.routes = routes
        self.serverName = serverName
    }

    func handlerAdded(context: ChannelHandlerContext) {
        wire = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        wire = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if unanswered == 0, wire != nil, head.isKeepAlive, !head.headers.contains(name: "expect"),
               let request = FastRoutes.candidate(head, at: .now) {
                state = .collecting(request)
            } else {
                handOn(context, head: head, body: nil)
            }
        case .body(let chunk):
            guard case .collecting(var request) = state else {
                context.fireChannelRead(data)
                return
            }
            if request.head.method != .POST || (request.body?.readableBytes ?? 0) + chunk.readableBytes > FastRoutes.maxBodyBytes {
                handOn(context, head: request.head, body: request.body)
                context.fireChannelRead(data)
                return
            }
            if request.body == nil {
                request.body = chunk  // the usual single chunk: kept as read, no copy
            } else {
                request.body!.writeImmutableBuffer(chunk)
            }
            state = .collecting(request)
        case .end:
            guard case .collecting(let request) = state else {
                state = .idle
                context.fireChannelRead(data)
                return
            }
            state = .idle
            if let response = routes.answer(request, client: address(context)), let wire {
                // Three buffers, one writev: the shared head, this response's length and date, the shared body.
                let trailer = response.wireTrailer(date: date.current(), server: serverName, allocator: context.channel.allocator)
                wire.write(NIOAny(IOData.byteBuffer(response.wirePrefix)), promise: nil)
                wire.write(NIOAny(IOData.byteBuffer(trailer)), promise: nil)
                wire.write(NIOAny(IOData.byteBuffer(response.body)), promise: nil)
                wrote = true
            } else {
                handOn(context, head: request.head, body: request.body)
                context.fireChannelRead(data)
            }
            if let event = heldQuiesce {
                heldQuiesce = nil
                flushIfWritten()
                context.fireUserInboundEventTriggered(event)
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, case .collecting = state {
            heldQuiesce = event
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfWritten()
        context.fireChannelReadComplete()
    }

    private func flushIfWritten() {
        guard wrote else { return }
        wrote = false
        wire?.flush()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered = max(0, unanswered - 1) }
        context.write(data, promise: promise)
    }

    /// Passes a request's head (and the body collected so far) on to Hummingbird; the rest follows as it comes.
    private func handOn(_ context: ChannelHandlerContext, head: HTTPRequestHead, body: ByteBuffer?) {
        state = .handingOn
        unanswered += 1
        context.fireChannelRead(wrapInboundOut(.head(head)))
        if let body { context.fireChannelRead(wrapInboundOut(.body(body))) }
    }

    /// The peer's IP address (the rate-limit key, as `LinkdRequestContext.clientAddress` makes it), once per connection.
    private func address(_ context: ChannelHandlerContext) -> String {
        if let clientAddress { return clientAddress }
        let made = context.channel.remoteAddress?.ipAddress ?? "unknown"
        clientAddress = made
        return made
    }
}
