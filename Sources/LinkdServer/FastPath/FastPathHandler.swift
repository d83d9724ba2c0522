import NIOCore
import NIOHTTP1

/// Answers the hot requests — a share page, a resolution, `/healthz` — on the connection's event loop when all
/// they need is in memory, and hands every other request to Hummingbird unchanged.
///
/// Why: Hummingbird answers each request in a Swift task, a thread hop away from the event loop and back; for
/// answers that are memory lookups the hops and the task cost more than the answer (README, "Speed"). What stays
/// the same on both paths: the routes (both read `HotRouteTable`, where each hot route is declared once), the
/// bytes sent (`ReadyResponse`, with the `Date` and `Server` Hummingbird adds), per-client rate limits (a request is
/// charged once, by whichever path answers it) and the request metrics.
///
/// Where: ahead of NIO's HTTP/1 decoder, on the connection's bytes. `RequestScanner` delimits each request (head and
/// `Content-Length` body); a request the fast path answers never reaches the decoder, and every other request reaches
/// it as the exact bytes that came in, whole requests only, so the decoder is always between requests when the next
/// one is read here. A request the scanner does not read (chunked, `Expect`, `Upgrade`, `Connection: close`, not
/// HTTP/1.1, malformed, over 16 KB of head) sends the connection's bytes to the decoder for good.
///
/// Order: it answers only while no request it handed on is unanswered (it sees Hummingbird's response parts go out),
/// so responses leave in request order, pipelining included. It writes its encoded responses through the response
/// encoder's context (bytes, not response parts): nothing else writes on the connection meanwhile.
final class FastPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: HotRouteTable
    private let serverName: String
    /// Bytes of a request not complete yet (its head, or a fast-path candidate's body still arriving).
    private var pending: ByteBuffer?
    /// Body bytes of a request handed on that are still to come, and go straight on.
    private var bodyToHandOn = 0
    /// The connection's bytes all go to NIO's decoder (a request the scanner does not read came).
    private var handingOnAll = false
    /// Requests handed to Hummingbird whose response has not ended.
    private var unanswered = 0
    /// The context of NIO's response encoder: encoded bytes are written from there, past the encoder.
    private var wire: ChannelHandlerContext?
    private var clientAddress: String?
    private var date = HTTPDateText()
    private var wrote = false
    /// Whether anything was handed on since the last read-complete event: only then is the event passed on too (the
    /// decoder and Hummingbird's handlers have nothing to do for reads the fast path answered).
    private var handedOn = false
    /// A graceful-shutdown event that came while a candidate's body was arriving: passed on once it is answered, so
    /// Hummingbird's connection handler does not close the connection under it.
    private var heldQuiesce: Any?

    /// A handler answering `routes`, naming itself `serverName` in the `Server` header.
    init(routes: HotRouteTable, serverName: String) {
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
        defer { releaseHeldQuiesce(context) }
        var bytes = unwrapInboundIn(data)
        if handingOnAll || wire == nil {
            handOn(context, bytes)
            return
        }
        if var earlier = pending {
            pending = nil
            earlier.writeBuffer(&bytes)
            bytes = earlier
        }
        while bytes.readableBytes > 0 {
            if bodyToHandOn > 0 {
                let count = min(bodyToHandOn, bytes.readableBytes)
                bodyToHandOn -= count
                handOn(context, bytes.readSlice(length: count)!)
                continue
            }
            switch RequestScanner.scan(bytes) {
            case .incomplete:
                pending = bytes
                return
            case .unsupported:
                handingOnAll = true
                handOn(context, bytes)
                return
            case .head(let head):
                if unanswered == 0, mayAnswer(head) {
                    guard bytes.readableBytes >= head.length else {
                        pending = bytes  // the body is still arriving
                        return
                    }
                    let request = bytes.readSlice(length: head.length)!
                    if let candidate = routes.candidate(head, bytes: request, at: .now),
                       let response = routes.answer(candidate, client: address(context)), let wire {
                        // Three buffers, one writev: the shared head, this response's length and date, the shared body.
                        let trailer = response.wireTrailer(date: date.current(), server: serverName, allocator: context.channel.allocator)
                        wire.write(NIOAny(IOData.byteBuffer(response.wirePrefix)), promise: nil)
                        wire.write(NIOAny(IOData.byteBuffer(trailer)), promise: nil)
                        wire.write(NIOAny(IOData.byteBuffer(response.body)), promise: nil)
                        wrote = true
                    } else {
                        unanswered += 1
                        handOn(context, request)
                    }
                } else {
                    // Handed on whole: its head and what has come of its body now, the rest as it comes.
                    unanswered += 1
                    let count = min(head.length, bytes.readableBytes)
                    bodyToHandOn = head.length - count
                    handOn(context, bytes.readSlice(length: count)!)
                }
            }
        }
    }

    /// Whether the fast path may answer a request with this head: a GET without a body, or a POST with a body
    /// within the largest cap of a fast-path route (a larger one gets Hummingbird's 413).
    private func mayAnswer(_ head: ScannedHead) -> Bool {
        switch head.method {
        case .get: head.contentLength == 0
        case .post: head.contentLength <= routes.maxFastBodyBytes
        case .other: false
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, let pending, case .head = RequestScanner.scan(pending) {
            heldQuiesce = event  // a request's head has come, its body has not: answer it first
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func releaseHeldQuiesce(_ context: ChannelHandlerContext) {
        guard let event = heldQuiesce else { return }
        if let pending, case .head = RequestScanner.scan(pending) { return }
        heldQuiesce = nil
        flushIfWritten()
        context.fireUserInboundEventTriggered(event)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfWritten()
        guard handedOn else { return }
        handedOn = false
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

    /// Passes bytes on to NIO's decoder (and so to Hummingbird).
    private func handOn(_ context: ChannelHandlerContext, _ bytes: ByteBuffer) {
        handedOn = true
        context.fireChannelRead(wrapInboundOut(bytes))
    }

    /// The peer's IP address (the rate-limit key, as `LinkdRequestContext.clientAddress` makes it), once per connection.
    private func address(_ context: ChannelHandlerContext) -> String {
        if let clientAddress { return clientAddress }
        let made = context.channel.remoteAddress?.ipAddress ?? "unknown"
        clientAddress = made
        return made
    }
}
