package import NIOCore
package import NIOHTTP1

/// The first handler of every connection, ahead of NIO's HTTP/1 decoder, on the connection's bytes. It
/// - admits the connection or refuses it (`ConnectionCounter`: total and per-client caps, a `503` and close);
/// - delimits each request (`RequestScanner`: head and `Content-Length` body), searching a head that arrives in
///   pieces only once, and holds each connection to its time limits (`EdgeLimits`: head, body, idle, blocked
///   writes; `EdgeHandler+Deadlines.swift`);
/// - with the fast path on, answers the hot requests — a share page, a resolution, `/healthz` — on the event loop
///   when all they need is in memory, and hands every other request to Hummingbird unchanged;
/// - bounds the memory of a connection: while the socket is not writable it answers nothing more and reads
///   nothing more (docs/operating.md, "Limits", states the bound).
///
/// Why a fast path: Hummingbird answers each request in a Swift task, a thread hop away from the event loop and
/// back; for answers that are memory lookups the hops and the task cost more than the answer (docs/benchmarks.md,
/// "Where the time goes").
/// What stays the same on both paths: the routes (both read `HotRouteTable`, where each hot route is declared once),
/// the bytes sent (`ReadyResponse`, with the `Date` and `Server` Hummingbird adds), per-client rate limits (a
/// request is charged once, by whichever path answers it) and the request metrics.
///
/// A request the fast path does not answer reaches the decoder as the exact bytes that came in, whole requests
/// only, so the decoder is always between requests when the next one is read here. A request the scanner does not
/// read (chunked, `Expect`, `Upgrade`, `Connection: close`, not HTTP/1.1, malformed, over 16 KB of head) sends the
/// connection's bytes to the decoder for good ("pass-through"; its time limit is then coarser, see
/// `ConnectionClock.deadline`).
///
/// Order: it answers only while no request it handed on is unanswered (it sees Hummingbird's response parts go out),
/// so responses leave in request order, pipelining included. It writes its encoded responses through the response
/// encoder's context (bytes, not response parts): nothing else writes on the connection meanwhile.
package final class EdgeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    /// What the fast path answers; nil: every request goes to Hummingbird (`fastPath: false`).
    let routes: HotRouteTable?
    let serverName: String
    /// Header lines added to every answer of the fast path (`Name: value\r\n` each): HSTS on the TLS listener.
    let addedFields: String
    let limits: EdgeLimits
    let connections: ConnectionCounter
    let clients: ClientAddresses

    /// Bytes not handled yet: a request's head still arriving, a candidate's body still arriving, or requests
    /// waiting while the socket is not writable.
    var pending: ByteBuffer?
    /// The head at the front of `pending`, once read whole, while its body arrives (it is not read again).
    var pendingHead: ScannedHead?
    /// How many bytes of `pending` were searched for the end of the head (`RequestScanner.findHeadEnd`).
    var headSearched = 0
    /// Body bytes of a request handed on that are still to come, and go straight on.
    var bodyToHandOn = 0
    /// The connection's bytes all go to NIO's decoder (a request the scanner does not read came).
    var passThrough = false
    /// Requests handed to Hummingbird whose response has not ended.
    var unanswered = 0
    /// The context of NIO's response encoder: encoded bytes are written from there, past the encoder.
    var wire: ChannelHandlerContext?
    /// The `Date` header's text, made once a second.
    var date = HTTPDateText()
    private var wrote = false
    /// Whether anything was handed on since the last read-complete event: only then is the event passed on too.
    private var handedOn = false
    /// A graceful-shutdown event that came while a candidate's body was arriving: passed on once it is answered, so
    /// Hummingbird's connection handler does not close the connection under it.
    private var heldQuiesce: Any?
    /// The socket is not writable: nothing more is answered or read until it is.
    var paused = false
    /// A read asked for while paused, to ask for once writable again.
    private var readHeld = false

    /// The peer's client key and whether it is a trusted proxy (once per connection).
    var peer: (key: String, isTrustedProxy: Bool) = ("unknown", false)
    /// The connection counts against `connections` (released once, when it goes).
    var admitted = false
    /// A last answer is going out and the connection closes after it: nothing more is read.
    var closing = false

    /// The connection's time limits (`EdgeHandler+Deadlines.swift`).
    var clock = ConnectionClock()

    /// A handler for one connection.
    init(
        routes: HotRouteTable?, serverName: String, addedFields: String = "", limits: EdgeLimits, connections: ConnectionCounter,
        clients: ClientAddresses
    ) {
        self.routes = routes
        self.serverName = serverName
        self.addedFields = addedFields
        self.limits = limits
        self.connections = connections
        self.clients = clients
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        wire = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        peer = clients.peer(context.channel.remoteAddress)
        if context.channel.isActive { admit(context) }
    }

    package func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        leave()
        wire = nil
    }

    package func channelInactive(context: ChannelHandlerContext) {
        leave()
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        defer { releaseHeldQuiesce(context) }
        guard !closing else { return }
        if let refusal = clock.refusal {
            refuse(context, refusal)  // its request is read (and dropped) first, so the answer is not lost to a reset
            return
        }
        let bytes = unwrapInboundIn(data)
        clock.sawBytes(passThrough: passThrough)
        if passThrough || wire == nil {
            handOn(context, bytes)
            return
        }
        if var earlier = pending {
            var bytes = bytes
            earlier.writeBuffer(&bytes)
            pending = earlier
        } else {
            pending = bytes
        }
        if !paused { handlePending(context) }
        armDeadline(context)
    }

    /// Handles the requests at the front of `pending` until it is empty, a request is incomplete, or the socket
    /// stops being writable.
    private func handlePending(_ context: ChannelHandlerContext) {
        guard var bytes = pending else { return }
        pending = nil
        defer {
            if bytes.readableBytes > 0 { pending = bytes }
            clock.waiting(head: pending != nil && pendingHead == nil && bodyToHandOn == 0, body: pendingHead != nil || bodyToHandOn > 0)
        }
        while bytes.readableBytes > 0 {
            if bodyToHandOn > 0 {
                let count = min(bodyToHandOn, bytes.readableBytes)
                bodyToHandOn -= count
                handOn(context, bytes.readSlice(length: count)!)
                continue
            }
            if paused { return }
            guard let head = nextHead(bytes) else {
                if passThrough {
                    handOn(context, bytes)
                    bytes.moveReaderIndex(to: bytes.writerIndex)
                }
                return
            }
            if unanswered == 0, mayAnswer(head) {
                guard bytes.readableBytes >= head.length else {
                    pendingHead = head  // the body is still arriving
                    return
                }
                pendingHead = nil
                let request = bytes.readSlice(length: head.length)!
                if let routes, let candidate = routes.candidate(head, bytes: request, at: .now),
                   let response = routes.answer(candidate, client: client(head, request)), let wire {
                    // Three buffers, one writev: the shared head, this response's length and date, the shared body.
                    let trailer = response.wireTrailer(
                        date: date.current(), server: serverName, addedFields: addedFields, allocator: context.channel.allocator)
                    wire.write(NIOAny(IOData.byteBuffer(response.wirePrefix)), promise: nil)
                    wire.write(NIOAny(IOData.byteBuffer(trailer)), promise: nil)
                    wire.write(NIOAny(IOData.byteBuffer(response.body)), promise: nil)
                    wrote = true
                    if !context.channel.isWritable { pause(context) }
                } else {
                    unanswered += 1
                    handOn(context, request)
                }
            } else {
                // Handed on whole: its head and what has come of its body now, the rest as it comes.
                pendingHead = nil
                unanswered += 1
                let count = min(head.length, bytes.readableBytes)
                bodyToHandOn = head.length - count
                handOn(context, bytes.readSlice(length: count)!)
            }
        }
    }

    /// The head at the front of `bytes` when it has come whole; nil while it is arriving (or when the scanner
    /// does not read it: `passThrough` is then set). A head arriving in pieces is searched from where the last
    /// search stopped.
    private func nextHead(_ bytes: ByteBuffer) -> ScannedHead? {
        if let pendingHead { return pendingHead }
        let result: RequestScanner.Result = bytes.withUnsafeReadableBytes { p in
            if headSearched > 0 {
                switch RequestScanner.findHeadEnd(p, from: headSearched - 3) {
                case .notYet(let searched):
                    headSearched = searched
                    return .incomplete
                case .found(let end): return RequestScanner.scan(UnsafeRawBufferPointer(rebasing: p[..<end]))
                case .unreadable: return .unsupported
                }
            }
            return RequestScanner.scan(p)
        }
        switch result {
        case .head(let head):
            headSearched = 0
            return head
        case .incomplete:
            headSearched = max(headSearched, min(bytes.readableBytes, RequestScanner.maxHeadBytes))
            return nil
        case .unsupported:
            headSearched = 0
            passThrough = true
            return nil
        }
    }

    /// Whether the fast path may answer a request with this head: a GET without a body, or a POST with a body
    /// within the largest cap of a fast-path route (a larger one gets Hummingbird's 413).
    private func mayAnswer(_ head: ScannedHead) -> Bool {
        guard let routes else { return false }
        switch head.method {
        case .get: return head.contentLength == 0
        case .post: return head.contentLength <= routes.maxFastBodyBytes
        case .other: return false
        }
    }

    /// The client key of a request: the peer's, or the client a trusted proxy names (`ClientAddresses`).
    private func client(_ head: ScannedHead, _ request: ByteBuffer) -> String {
        guard peer.isTrustedProxy else { return peer.key }
        func text(_ range: Range<Int>?, _ count: Int) -> String? {
            guard let range, count == 1 else { return nil }
            return request.getString(at: request.readerIndex + range.lowerBound, length: range.count)
        }
        return clients.client(
            peerKey: peer.key, peerIsTrusted: true, forwarded: text(head.forwarded, head.forwardedCount),
            xForwardedFor: text(head.xForwardedFor, head.xForwardedForCount))
    }

    // MARK: Backpressure

    /// The socket stopped taking bytes: what was written goes out, nothing more is answered or read meanwhile.
    private func pause(_ context: ChannelHandlerContext) {
        paused = true
        clock.blocked(true)
        flushIfWritten()
        armDeadline(context)
    }

    package func read(context: ChannelHandlerContext) {
        clock.readAsked()
        if paused {
            readHeld = true
        } else {
            context.read()
        }
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        // Whoever wrote (this handler or Hummingbird), a socket that stays unwritable is held to writeTimeout.
        let writable = context.channel.isWritable
        clock.blocked(!writable)
        if !writable { armDeadline(context) }
        if paused, writable {
            paused = false
            clock.restartClientClocks()
            handlePending(context)
            flushIfWritten()
            if handedOn {
                handedOn = false
                context.fireChannelReadComplete()
            }
            armDeadline(context)
            if !paused, readHeld {
                readHeld = false
                context.read()
            }
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Shutdown

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, pendingHead != nil {
            heldQuiesce = event  // a request's head has come, its body has not: answer it first
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func releaseHeldQuiesce(_ context: ChannelHandlerContext) {
        guard let event = heldQuiesce, pendingHead == nil else { return }
        heldQuiesce = nil
        flushIfWritten()
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: Passing on

    package func channelReadComplete(context: ChannelHandlerContext) {
        clock.readEnded()
        flushIfWritten()
        guard handedOn else { return }
        handedOn = false
        context.fireChannelReadComplete()
    }

    func flushIfWritten() {
        guard wrote else { return }
        wrote = false
        wire?.flush()
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            unanswered = max(0, unanswered - 1)
            clock.answered()
            if unanswered == 0 { armDeadline(context) }
        }
        context.write(data, promise: promise)
    }

    /// Passes bytes on to NIO's decoder (and so to Hummingbird).
    private func handOn(_ context: ChannelHandlerContext, _ bytes: ByteBuffer) {
        handedOn = true
        context.fireChannelRead(wrapInboundOut(bytes))
    }
}
