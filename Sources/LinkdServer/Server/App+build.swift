public import Foundation
public import Hummingbird
import HummingbirdCore
import ACME
import LinkdHTTP
import LinkRouter
public import LinkStore
public import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import TokenSigning
import WebFallback

/// A built server: the application to run, and where the admin key made on first start was written.
public struct Daemon<App: ApplicationProtocol> {
    /// The Hummingbird application (routes and background services).
    public let application: App
    /// The file (`<dataDir>/initial-admin-key`, mode 0600) holding the admin key generated on this first start; nil
    /// when one existed already. The key itself is in the file only: never printed or logged.
    public let initialAdminKeyFile: String?
    /// The store the server answers from (closed by the server's services at shutdown).
    public let store: StoreFront
    /// The hot-route table both entrances read.
    let hotRoutes: HotRouteTable
    /// The public listener's routes as registered (what its 405 answers are made from).
    let routes: RouteCatalog
    /// The keys in force (what every token is checked with).
    let keys: KeysInForce

    /// Runs the server and its services until SIGTERM or SIGINT, then shuts them down gracefully.
    public func run() async throws {
        try await application.runService()
    }
}

/// The `Server` header value of every listener.
private let serverName = "linkd"

/// Builds the linkd HTTP server from a configuration: opens (creating) the data directory and store, loads the
/// manifests and keys, registers the routes and the background services. `linkd serve` and the tests call it.
/// - Parameters:
///   - logger: where the server logs (default: swift-log's handler, stderr); its level is set from `logLevel`.
///   - wrapBackend: wraps the opened store's backend (the tests put a fault-injecting one around it); identity by default.
///   - onListening: called with the bound port once the server listens (port 0 picks one).
///   - onOpsListening: called with the ops listener's bound port once it listens (only with `opsPort` set).
///   - onTLSListening: called with the TLS listener's bound port once it listens (only with `tls.port` set).
public func buildServer(
    configuration: ServerConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment,
    logger: Logger = Logger(label: "linkd"),
    wrapBackend: (any StoreBackend) -> any StoreBackend = { $0 },
    onListening: @escaping @Sendable (Int) async -> Void = { _ in },
    onOpsListening: @escaping @Sendable (Int) async -> Void = { _ in },
    onTLSListening: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> Daemon<some ApplicationProtocol> {
    var logger = logger
    logger.logLevel = Logger.Level(rawValue: configuration.ops.logLevel) ?? .info
    let components = try await ServerComponents.make(
        configuration: configuration, environment: environment, logger: logger, wrapBackend: wrapBackend)
    let router = buildPublicRouter(components)
    let responder = HeadResponder(base: router.router.buildResponder())
    // The hot routes answered on the event loop when memory has all they need (on the plain listener only when it
    // does not send everything to HTTPS).
    let fastRoutes = configuration.http.fastPath ? components.hotRoutes : nil
    let redirectPort = configuration.tls.isEnabled && configuration.tls.redirectHTTP ? BoundPort(configuration.tls.port ?? 0) : nil
    // The ops and TLS listeners run as services of the public one, so all start and stop together.
    let ops: [any Service] = configuration.hasOpsListener ? [opsApplication(
        configuration: configuration, router: buildOpsRouter(components), serverName: serverName,
        eventLoopGroup: components.eventLoopGroup, logger: logger, onListening: onOpsListening)] : []
    let tls: [any Service] = configuration.tls.isEnabled ? [try tlsApplication(
        configuration: configuration, responder: responder, routes: fastRoutes, certificates: components.certificates,
        connections: components.connections, clients: components.clients, serverName: serverName,
        eventLoopGroup: components.eventLoopGroup, logger: logger,
        onListening: { port in
            redirectPort?.port = port
            await onTLSListening(port)
        })] : []
    let connections = components.connections, clients = components.clients, limits = configuration.edge.limits
    let background = ServiceGroup(configuration: ServiceGroupConfiguration(
        services: backgroundServices(components, listeners: ops + tls), logger: logger))
    let application = Application(
        responder: HTTPSRedirectResponder(base: responder, tlsPort: redirectPort),
        server: HTTPServerBuilder { responder in
            EdgeChannel(
                base: HTTP1Channel(responder: responder, configuration: .init(httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: EdgeLimits.maxHeadBytes, maxHeaderListSize: EdgeLimits.maxHeadBytes))),
                routes: redirectPort == nil ? fastRoutes : nil, serverName: serverName,
                limits: limits, connections: connections, clients: clients)
        },
        configuration: .init(
            address: .hostname(configuration.http.host, port: configuration.http.port), serverName: serverName),
        // The background services are one group: Hummingbird stops the listener first, then the group, which stops
        // its services in the reverse of their order (`backgroundServices`).
        services: [background],
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.http.port) },
        eventLoopGroupProvider: components.eventLoopGroup,
        logger: logger
    )
    return Daemon(
        application: application, initialAdminKeyFile: components.bootstrap.initialAdminKeyFile, store: components.store,
        hotRoutes: components.hotRoutes, routes: router.catalog, keys: components.bootstrap.keys.inForce)
}

/// The public listener's routes and middleware, in the order they must be added.
func buildPublicRouter(_ components: ServerComponents) -> RouteRecorder<LinkdRequestContext> {
    let c = components
    let configuration = c.configuration
    // Every route is registered through the recorder, which keeps the table 405 answers are made from.
    let router = RouteRecorder(router: Hummingbird.Router(context: LinkdRequestContext.self))
    // First: the client key every later step (rate limits, the auth-failure lockout) reads.
    router.add(middleware: ClientAddressMiddleware(clients: c.clients))
    // Outermost: unmatched routes and unexpected errors leave as JSON errors, and are counted as they leave.
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: RequestMetricsMiddleware(metrics: c.metrics.http))
    if !configuration.hasOpsListener { c.health.register(on: router) }  // else on the ops listener only
    let maxBodyBytes = configuration.http.maxBodyBytes
    LinkRoutes(links: c.links, auth: c.auth, maxBodyBytes: maxBodyBytes).register(on: router)
    AdminRoutes(admin: c.admin, auth: c.auth, maxBodyBytes: maxBodyBytes).register(on: router)
    ImportRoutes(links: c.links, auth: c.auth, maxBytes: configuration.links.importMaxBytes).register(on: router)
    AppRoutes(admin: c.admin, auth: c.auth).register(on: router)
    WebhookRoutes(admin: c.admin, auth: c.auth, maxBodyBytes: maxBodyBytes).register(on: router)
    // Share pages, resolutions and /healthz: declared once, read by Hummingbird's router and the event-loop fast path.
    c.hotRoutes.register(on: router)
    WebRoutes(
        apps: c.bootstrap.apps, stylesheet: c.factory.renderer.stylesheet, customPaths: CustomPathFiles(store: c.store)
    ).register(on: router)
    // Deferred deep links (store redirects with claim codes, claims) and per-link/app stats.
    DeferredRoutes(deferred: DeferredLinks(
        links: c.links, apps: c.bootstrap.apps, claimPages: c.pages.claims, analytics: c.analytics, configuration: configuration,
        logger: c.logger
    )).register(on: router)
    StatsRoutes(links: c.links, auth: c.auth).register(on: router)
    // The code of an app's build made from its manifest in force (docs/codegen.md).
    CodegenRoutes(apps: c.bootstrap.apps, auth: c.auth).register(on: router)
    // Automatic certificates: HTTP-01 answers on the listeners.
    c.acmeChallenges?.register(on: router)
    // The admin console: here, or on the ops listener (`adminConsole`).
    if configuration.console.placement == .public { c.console?.register(on: router) }
    // Added last, so it wraps only the unmatched-request responder (Hummingbird applies a middleware to the endpoints
    // added after it, and to the not-found responder): browsers on an app's link URLs get its pages.
    router.add(middleware: AppLinkPagesMiddleware(apps: c.bootstrap.apps, limiter: c.limiter, share: c.shareRoutes))
    // Inside it: a path some route has, asked with a method none takes, is a 405 rather than a page or a 404.
    router.add(middleware: MethodNotAllowedMiddleware(routes: router.catalog))
    return router
}

/// The background services, in order: a graceful shutdown stops them in the reverse of it, after the public
/// listener. Each entry says why it is where it is.
func backgroundServices(
    _ components: ServerComponents, listeners: [any Service]
) -> [ServiceGroupConfiguration.ServiceConfiguration] {
    typealias Entry = ServiceGroupConfiguration.ServiceConfiguration
    let c = components
    let configuration = c.configuration
    let flushInterval = Duration.milliseconds(Int(configuration.store.clickFlushSeconds * 1000))
    // By default an entry that ends, or fails, ends the daemon: the listeners' and the store's work cannot go on
    // without it.
    var services: [Entry] = [
        // First, so stopped last: closes the store once everything below has written what it holds.
        Entry(service: StoreCloseService(store: c.store)),
        // Follows other instances' changes; on an unshared store it has nothing to do and returns at once.
        Entry(
            service: StoreSyncService(store: c.store, keys: c.bootstrap.keys, apiKeys: c.apiKeys, publisher: c.admin.publisher),
            successTerminationBehavior: .ignore),
        // The last claim sweep and the last flush of what the share path counted, before the store closes.
        Entry(service: ClaimExpiryService(store: c.store, metrics: c.analyticsMetrics, interval: flushInterval, logger: c.logger)),
        Entry(service: ShareEventFlushService(buffer: c.events, store: c.store, interval: flushInterval, logger: c.logger)),
        // Deletions still queued are done before the store closes.
        Entry(service: c.deletions),
        // No new origin fetch starts once shutdown begins; the ones in flight are waited for.
        Entry(service: OriginFetchService(fetches: c.factory.fetches)),
        // Deliveries under way finish and are recorded before the store closes.
        Entry(service: c.webhookDelivery),
        Entry(service: HeartbeatService(store: c.store, identity: c.instance, logger: c.logger)),
        Entry(service: ManifestReloadService(publisher: c.admin.publisher, paths: configuration.links.manifests, logger: c.logger)),
    ]
    // The ops and TLS listeners: last, so they stop right after the public one.
    services += listeners.map { Entry(service: $0) }
    if !configuration.tls.certificates.isEmpty {
        services.append(Entry(service: TLSCertificateReloadService(
            files: configuration.tls.certificates, certificates: c.certificates, logger: c.logger)))
    }
    if let challenges = c.acmeChallenges {
        let acme = configuration.acme
        services.append(Entry(service: ACMECertificateService(
            client: ACMEClient(configuration: ACMEClientConfiguration(
                directoryURL: acme.directory ?? "", caCertificatesFile: acme.caCertificates, contactEmail: acme.email)),
            store: c.store, apps: c.bootstrap.apps, certificates: c.certificates, challenges: challenges,
            masterKey: c.bootstrap.masterKey, holder: c.instance.id, status: c.acmeStatus, logger: c.logger,
            checkInterval: .milliseconds(Int64(acme.checkIntervalSeconds * 1000)), retryBase: acme.retryBaseSeconds)))
    }
    return services
}

/// The templates of every page linkd renders, read and compiled once at start.
struct TemplateSet {
    /// Landing, unavailable and app-link pages.
    let renderer: PageRenderer
    /// The claim pages of deferred links.
    let claims: ClaimPageRenderer
    /// The admin console's pages.
    let console: ConsolePages

    /// Reads `templatesDir` (and `appTemplates`); a missing or broken template is a `ConfigurationError` naming it
    /// and saying where templates are looked for.
    static func load(_ configuration: ServerConfiguration) throws -> TemplateSet {
        do {
            return TemplateSet(
                renderer: try PageRenderer(configuration: PageConfiguration(
                    directory: configuration.pages.templatesDir, appDirectories: configuration.pages.appTemplates)),
                claims: try ClaimPageRenderer(directory: configuration.pages.templatesDir),
                console: try ConsolePages(templatesDirectory: configuration.pages.templatesDir))
        } catch {
            throw ConfigurationError(message: "templates: \(error) (templatesDir is \(configuration.pages.templatesDir); set "
                + "templatesDir: in the configuration file or LINKD_TEMPLATES_DIR to the folder holding landing.mustache)")
        }
    }
}

/// The data directory: created with mode 0700 when missing; an existing one whose mode gives group or others any
/// access is refused, naming its mode. Files linkd creates in it are 0600 (umask 077).
enum DataDirectory {
    static func prepare(_ path: String) throws {
        // The process only writes secrets and its database here: nothing it creates is for other users.
        umask(0o077)
        do {
            try SecretFile.prepareDirectory(path)
        } catch {
            throw ConfigurationError(message: error.code == .insecureFile ? error.message : "the data directory: \(error.message)")
        }
    }
}
