import HTTPTypes
import NIOCore
import NIOHTTP1

/// What a connection is waiting for and since when: the input of its next deadline.
package struct ConnectionClock {
    /// The last bytes read or response ended.
    var lastActivity = NIODeadline.now()
    /// The first byte of a head not whole yet.
    var headSince: NIODeadline?
    /// A head whole, its body not.
    var bodySince: NIODeadline?
    /// The socket not writable.
    var blockedSince: NIODeadline?
    /// Pass-through: the first bytes since the last response ended (request boundaries are not seen there).
    var passThroughSince: NIODeadline?
    /// When the last read ended, until the next read is asked for — which comes at once unless a handler after this
    /// one holds it (Hummingbird's, while its requests queue): the client is not late meanwhile.
    var readEndedAt: NIODeadline?
    /// The connection was refused: it is answered `503` once its first bytes come, or at once after a second.
    var refusal: ConnectionCounter.Refusal?
    /// The check scheduled, and when.
    var scheduled: Scheduled<Void>?
    var scheduledAt: NIODeadline?

    mutating func sawBytes(passThrough: Bool) {
        lastActivity = .now()
        if passThrough, passThroughSince == nil { passThroughSince = lastActivity }
    }

    mutating func waiting(head: Bool, body: Bool) {
        headSince = head ? headSince ?? lastActivity : nil
        bodySince = body ? bodySince ?? lastActivity : nil
    }

    mutating func readEnded() {
        readEndedAt = lastActivity
    }

    /// A read is asked for: when reading was held for a while, the head and body clocks restart.
    mutating func readAsked() {
        guard let ended = readEndedAt else { return }
        readEndedAt = nil
        guard headSince != nil || bodySince != nil, NIODeadline.now() - ended > .milliseconds(100) else { return }
        restartClientClocks()
    }

    /// The client's head and body clocks start again (linkd, not the client, held the request meanwhile).
    mutating func restartClientClocks() {
        let now = NIODeadline.now()
        if headSince != nil { headSince = now }
        if bodySince != nil { bodySince = now }
    }

    mutating func answered() {
        lastActivity = .now()
        passThroughSince = nil
    }

    mutating func blocked(_ isBlocked: Bool) {
        blockedSince = isBlocked ? blockedSince ?? .now() : nil
    }

    /// The connection's next deadline and what expires then; nil while linkd itself is answering.
    func deadline(_ limits: EdgeLimits, unanswered: Int) -> (NIODeadline, ConnectionExpiry)? {
        if let blockedSince { return (blockedSince + limits.writeTimeout, .writeTimeout) }
        if readEndedAt != nil, unanswered > 0 { return nil }  // reading is held: the server is behind, not the client
        if let headSince { return (headSince + limits.headTimeout, .headTimeout) }
        if let bodySince { return (bodySince + limits.bodyTimeout, .bodyTimeout) }
        if let passThroughSince { return (passThroughSince + limits.headTimeout + limits.bodyTimeout, .requestTimeout) }
        if unanswered > 0 { return nil }
        return (lastActivity + limits.idleTimeout, .idle)
    }
}

extension EdgeHandler {
    /// How long a refused connection is given to send its request before the `503` goes anyway.
    static let refusalWait = TimeAmount.seconds(1)

    // MARK: Admission

    /// Counts the connection in, or marks it refused (it gets a `503` once its request comes, within a second).
    func admit(_ context: ChannelHandlerContext) {
        guard !admitted, clock.refusal == nil else { return }
        if let refusal = connections.admit(peer.key, capPerClient: !peer.isTrustedProxy) {
            clock.refusal = refusal
            schedule(context, at: .now() + Self.refusalWait)
            return
        }
        admitted = true
        armDeadline(context)
    }

    /// Counts the connection out (once) and drops its scheduled check.
    func leave() {
        clock.scheduled?.cancel()
        clock.scheduled = nil
        clock.scheduledAt = nil
        if admitted {
            admitted = false
            connections.release(peer.key)
        }
    }

    /// Answers a refused connection's first bytes (or its silence) with `503` and closes it.
    func refuse(_ context: ChannelHandlerContext, _ refusal: ConnectionCounter.Refusal) {
        sendAndClose(context, refusal == .total ? EdgeAnswers.overTotal : EdgeAnswers.overPerClient)
    }

    // MARK: Deadlines

    /// Makes sure a check is scheduled no later than the connection's next deadline.
    func armDeadline(_ context: ChannelHandlerContext) {
        guard admitted, let (deadline, _) = clock.deadline(limits, unanswered: unanswered) else { return }
        if let at = clock.scheduledAt, at <= deadline { return }  // the earlier check re-arms for the later deadline
        clock.scheduled?.cancel()
        schedule(context, at: deadline)
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        clock.scheduledAt = deadline
        clock.scheduled = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            check(context)
        }
    }

    /// The scheduled check: acts on a deadline passed, or schedules the next one.
    private func check(_ context: ChannelHandlerContext) {
        clock.scheduled = nil
        clock.scheduledAt = nil
        if let refusal = clock.refusal {
            refuse(context, refusal)
            return
        }
        guard admitted, let (deadline, expiry) = clock.deadline(limits, unanswered: unanswered) else { return }
        guard deadline <= .now() else {
            schedule(context, at: deadline)
            return
        }
        connections.recordExpiry(expiry)
        switch expiry {
        case .headTimeout where unanswered == 0, .bodyTimeout where pendingHead != nil && unanswered == 0:
            sendAndClose(context, EdgeAnswers.requestTimeout)
        default:
            context.close(promise: nil)
        }
    }

    /// Writes `answer` past the response encoder (as the fast path writes its answers), then closes the connection.
    func sendAndClose(_ context: ChannelHandlerContext, _ answer: ReadyResponse) {
        leave()
        closing = true
        flushIfWritten()
        pending = nil
        let channel = context.channel
        guard let wire else {
            channel.close(promise: nil)
            return
        }
        wire.write(NIOAny(IOData.byteBuffer(answer.wirePrefix)), promise: nil)
        wire.write(NIOAny(IOData.byteBuffer(answer.wireTrailer(date: date.current(), server: serverName, addedFields: addedFields, allocator: channel.allocator))), promise: nil)
        wire.writeAndFlush(NIOAny(IOData.byteBuffer(answer.body))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}

/// The answers the edge gives before closing a connection, made once.
package enum EdgeAnswers {
    /// `408 request_timeout`: a head or body not whole in time.
    static let requestTimeout = APIError(
        .requestTimeout, .requestTimeout, "the request did not arrive in time; send it whole and promptly"
    ).readyResponse(closing: true)
    /// `503 too_many_connections` at `maxConnections`.
    static let overTotal = APIError(
        .serviceUnavailable, .tooManyConnections, "the server has as many connections open as it takes; retry shortly",
        retryAfterSeconds: 1
    ).readyResponse(closing: true)
    /// `503 too_many_connections` at `maxConnectionsPerClient`.
    static let overPerClient = APIError(
        .serviceUnavailable, .tooManyConnections, "too many connections open from this address; close some and retry",
        retryAfterSeconds: 1
    ).readyResponse(closing: true)
}
