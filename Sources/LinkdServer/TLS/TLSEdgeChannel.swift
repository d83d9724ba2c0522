import HummingbirdCore
import LinkdHTTP
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// The TLS listener's child channel: NIO's TLS server handler (certificates chosen by SNI, `TLSCertificates`) and
/// the handshake's time limit in front of the same `EdgeChannel` the plain listener runs, so the edge's caps, time
/// limits, backpressure and fast path all work on the decrypted bytes.
struct TLSEdgeChannel: ServerChildChannel, HTTPChannelHandler {
    /// The plain listener's channel, run behind TLS.
    let edge: EdgeChannel
    /// TLS 1.2 and 1.3, modern ciphers, HTTP/1.1 by ALPN; the certificate per handshake.
    let context: NIOSSLContext
    /// How long a handshake may take from the connection's start.
    let handshakeTimeout: TimeAmount

    var responder: Responder { edge.responder }

    /// TLS 1.2+ only, AEAD ciphers with forward secrecy (TLS 1.3's own suites are always those), `http/1.1` by
    /// ALPN, the certificate chosen per handshake by `certificates`.
    static func makeContext(certificates: TLSCertificates) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none  // no client certificates are asked for
        configuration.minimumTLSVersion = .tlsv12
        configuration.cipherSuiteValues = [
            .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
            .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
            .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        ]
        configuration.applicationProtocols = ["http/1.1"]
        configuration.sslContextCallback = certificates.contextCallback
        return try NIOSSLContext(configuration: configuration)
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        channel.eventLoop.makeCompletedFuture {
            let operations = channel.pipeline.syncOperations
            try operations.addHandler(NIOSSLServerHandler(context: context))
            try operations.addHandler(TLSHandshakeDeadline(timeout: handshakeTimeout))
        }.flatMap {
            edge.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await edge.handle(value: value, logger: logger)
    }
}

/// Closes a connection whose TLS handshake is not done within `timeout` of its start (a client that opens a
/// connection and sends nothing, or a byte a minute, holds no more than that); removed once the handshake is done,
/// when the edge's own limits take over.
final class TLSHandshakeDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent {
            timer?.cancel()
            timer = nil
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }
}
