import Hummingbird
import LinkdHTTP
import Logging
import NIOCore
import ServiceLifecycle

/// The ops listener's routes: `/metrics`, `/readyz` and `/healthz`, and the admin console when it is served here
/// (`adminConsole: ops`), with the public listener's error shape, request metrics, `405` and `HEAD` answers, and no
/// fast path (these are not hot).
func buildOpsRouter(_ components: ServerComponents) -> RouteRecorder<LinkdRequestContext> {
    let router = RouteRecorder(router: Hummingbird.Router(context: LinkdRequestContext.self))
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: RequestMetricsMiddleware(metrics: components.metrics.http))
    components.health.register(on: router)
    HealthRoutes.registerLiveness(on: router)
    if components.configuration.console.placement == .ops { components.console?.register(on: router) }
    router.add(middleware: MethodNotAllowedMiddleware(routes: router.catalog))
    return router
}

/// The ops listener's application (`opsHost`:`opsPort`) over `router` (`buildOpsRouter`). It runs as a service of
/// the public application, so both start and stop together.
/// - Parameter onListening: called with the bound port once it listens.
func opsApplication(
    configuration: ServerConfiguration, router: RouteRecorder<LinkdRequestContext>, serverName: String,
    eventLoopGroup: EventLoopGroupProvider, logger: Logger, onListening: @escaping @Sendable (Int) async -> Void
) -> some Service {
    let port = configuration.ops.opsPort ?? 0
    return Application(
        responder: HeadResponder(base: router.router.buildResponder()),
        configuration: .init(address: .hostname(configuration.resolvedOpsHost, port: port), serverName: serverName),
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
        eventLoopGroupProvider: eventLoopGroup,
        logger: logger
    )
}
