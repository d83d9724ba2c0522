import Hummingbird
import HummingbirdCore
import HTTPTypes
import LinkdHTTP
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The TLS listener's application (`tls.host`:`tls.port`): the public listener's responder and fast path behind TLS
/// (`TLSEdgeChannel`), with `Strict-Transport-Security` on every answer when `tls.hstsMaxAgeSeconds` is set. It runs
/// as a service of the public application, so both start and stop together.
func tlsApplication<Responder: HTTPResponder>(
    configuration: ServerConfiguration, responder: Responder, routes: HotRouteTable?, certificates: TLSCertificates,
    connections: ConnectionCounter, clients: ClientAddresses, serverName: String, eventLoopGroup: EventLoopGroupProvider,
    logger: Logger, onListening: @escaping @Sendable (Int) async -> Void
) throws -> some Service where Responder.Context == LinkdRequestContext {
    let settings = configuration.tls
    let context = try TLSEdgeChannel.makeContext(certificates: certificates)
    let hsts = settings.hstsMaxAgeSeconds > 0 ? "max-age=\(settings.hstsMaxAgeSeconds)" : nil
    let port = settings.port ?? 0
    return Application(
        responder: AddedFieldsResponder(base: responder, fields: hsts.map { [.strictTransportSecurity: $0] } ?? [:]),
        server: HTTPServerBuilder { responder in
            TLSEdgeChannel(
                edge: EdgeChannel(
                    base: HTTP1Channel(responder: responder, configuration: .init(httpDecoderConfiguration: .init(
                        maxHeaderFieldSize: EdgeLimits.maxHeadBytes, maxHeaderListSize: EdgeLimits.maxHeadBytes))),
                    routes: routes, serverName: serverName,
                    addedFields: hsts.map { "Strict-Transport-Security: \($0)\r\n" } ?? "",
                    limits: configuration.edge.limits, connections: connections, clients: clients),
                context: context, handshakeTimeout: .milliseconds(Int64(settings.handshakeTimeoutSeconds * 1000)))
        },
        configuration: .init(address: .hostname(settings.host ?? configuration.http.host, port: port), serverName: serverName),
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
        eventLoopGroupProvider: eventLoopGroup,
        logger: logger
    )
}

/// Adds header fields to every answer of `base` (HSTS on the TLS listener).
struct AddedFieldsResponder<Base: HTTPResponder>: HTTPResponder {
    typealias Context = Base.Context
    let base: Base
    let fields: HTTPFields

    func respond(to request: Request, context: Context) async throws -> Response {
        var response = try await base.respond(to: request, context: context)
        for field in fields { response.headers[field.name] = field.value }
        return response
    }
}

/// A port a listener reports once it is bound (a TLS port of 0 is known only then), read by the plain listener's
/// redirects.
final class BoundPort: Sendable {
    private let value: Mutex<Int>

    /// `configured` until the listener reports.
    init(_ configured: Int) { value = Mutex(configured) }

    /// The port.
    var port: Int {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
