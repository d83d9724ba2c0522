import Hummingbird
import LinkdHTTP
import Logging
import NIOCore
import ServiceLifecycle

/// The ops listener's application (`opsHost`:`opsPort`): `/metrics`, `/readyz` and `/healthz`, with the public
/// listener's error shape, request metrics, `405` and `HEAD` answers, and no fast path (these are not hot). It runs
/// as a service of the public application, so both start and stop together.
/// - Parameters:
///   - health: the routes (and the readiness probe) the public listener no longer serves.
///   - console: the admin console, when it is served here (`adminConsole: ops`).
///   - onListening: called with the bound port once it listens.
func opsApplication(
    configuration: ServerConfiguration, health: HealthRoutes, console: ConsoleRoutes?, metrics: ServerMetrics, serverName: String,
    eventLoopGroup: EventLoopGroupProvider, logger: Logger, onListening: @escaping @Sendable (Int) async -> Void
) -> some Service {
    let router = RouteRecorder(router: Hummingbird.Router(context: LinkdRequestContext.self))
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: RequestMetricsMiddleware(metrics: metrics.http))
    health.register(on: router)
    HealthRoutes.registerLiveness(on: router)
    console?.register(on: router)
    router.add(middleware: MethodNotAllowedMiddleware(routes: router.catalog))
    let port = configuration.ops.opsPort ?? 0
    return Application(
        responder: HeadResponder(base: router.router.buildResponder()),
        configuration: .init(address: .hostname(configuration.resolvedOpsHost, port: port), serverName: serverName),
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
        eventLoopGroupProvider: eventLoopGroup,
        logger: logger
    )
}
