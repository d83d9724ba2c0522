public import Foundation
public import Hummingbird
import HummingbirdCore
import ACME
import LinkRouter
public import LinkStore
public import Logging
import NIOCore
import NIOPosix
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

    /// Runs the server and its services until SIGTERM or SIGINT, then shuts them down gracefully.
    public func run() async throws {
        try await application.runService()
    }
}

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
    logger.logLevel = Logger.Level(rawValue: configuration.logLevel) ?? .info

    FileDescriptorLimit.raise(for: configuration.maxConnections, logger: logger)
    // Everything read from files is read and checked first: a broken template or manifest stops the start before
    // anything is written to the data directory.
    let files = try ServerBootstrap.loadManifestFiles(configuration.manifests, environment: environment)
    let pages = try TemplateSet.load(configuration)
    let certificates = TLSCertificates()
    do { certificates.installFiles(try TLSCertificates.read(configuration.tls.certificates)) } catch {
        throw ConfigurationError(message: "tls.certificates: \(error)")
    }
    try DataDirectory.prepare(configuration.dataDir)
    DaemonDataDirectory.mark(configuration.dataDir)  // so `linkd token keyring …` refuses this directory
    // The templates, read once; every snapshot of the manifests in force renders with them.
    let factory = AppSnapshotFactory(
        renderer: pages.renderer, fetches: OriginFetches(limit: configuration.maxOriginFetches),
        previewWait: .milliseconds(configuration.previewWaitMilliseconds))
    let store = try await openStore(configuration, wrapBackend: wrapBackend, logger: logger)
    let bootstrap: ServerBootstrap
    do {
        bootstrap = try await ServerBootstrap.run(
            configuration: configuration, files: files, store: store, factory: factory, environment: environment, logger: logger)
    } catch {
        await store.close()
        throw error
    }
    let apps = bootstrap.apps
    let metrics = ServerMetrics()
    let acmeStatus = ACMEStatus(registry: configuration.acme.isEnabled ? metrics.registry : nil)
    metrics.setRevocationSetSize(store.revocations.count)
    let clicks = ClickBuffer()
    // The analytics: events counted in memory on the request path, written by `StatsFlushService`.
    let statsBuffer = StatsBuffer()
    let analyticsMetrics = AnalyticsMetrics(registry: metrics.registry, apps: apps.router.appIDs)
    let analytics = ShareAnalytics(buffer: statsBuffer, metrics: analyticsMetrics)
    let links = LinkService(
        store: store, keys: bootstrap.keys.inForce, apps: apps, clicks: clicks, metrics: metrics,
        defaultTTLSeconds: configuration.defaultTTLSeconds, maxTTLSeconds: configuration.maxTTLSeconds)
    let apiKeys = APIKeyDirectory()
    do { try await apiKeys.reload(from: store) } catch {
        await store.close()
        throw ConfigurationError(message: "the store: cannot read the API keys: \(error)")
    }
    let auth = APIKeyAuthenticator(
        store: store,
        failures: RateLimiter(perSecond: configuration.authFailuresPerMinute / 60, burst: APIKeyAuthenticator.failureBurst),
        directory: apiKeys)
    let limiter = configuration.rateLimitPerSecond > 0
        ? RateLimiter(perSecond: configuration.rateLimitPerSecond, burst: configuration.rateLimitBurst) : nil

    let clients = ClientAddresses(trustedProxies: configuration.trustedProxyNetworks)
    // Every route is registered through the recorder, which keeps the table 405 answers are made from.
    let router = RouteRecorder(router: Hummingbird.Router(context: LinkdRequestContext.self))
    // First: the client key every later step (rate limits, the auth-failure lockout) reads.
    router.add(middleware: ClientAddressMiddleware(clients: clients))
    // Outermost: unmatched routes and unexpected errors leave as JSON errors, and are counted as they leave.
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
    let health = HealthRoutes(store: store, metrics: metrics)
    if !configuration.hasOpsListener { health.register(on: router) }  // else on the ops listener only
    LinkRoutes(links: links, auth: auth, maxBodyBytes: configuration.maxBodyBytes).register(on: router)
    let resolveRoutes = ResolveRoutes(links: links)
    // The admin actions, once: the admin API and the console are two front doors to them.
    let instance = InstanceIdentity.make()
    let webhookSettings = configuration.webhookDelivery
    let webhookPolicy = WebhookURLPolicy(allowLoopback: webhookSettings.allowLoopback)
    let admin = AdminService(
        store: store, keys: bootstrap.keys, links: links, apiKeys: apiKeys, metrics: metrics, instance: instance,
        publisher: ManifestPublisher(store: store, apps: apps, keys: bootstrap.keys, logger: logger),
        masterKey: bootstrap.masterKey, webhookPolicy: webhookPolicy,
        backupsDirectory: configuration.dataDir + "/backups", certificates: certificates, acmeStatus: acmeStatus)
    AdminRoutes(admin: admin, auth: auth, maxBodyBytes: configuration.maxBodyBytes).register(on: router)
    AppRoutes(admin: admin, auth: auth).register(on: router)
    WebhookRoutes(admin: admin, auth: auth, maxBodyBytes: configuration.maxBodyBytes).register(on: router)
    let webhookDelivery = WebhookDeliveryService(
        store: store, sender: WebhookSender(settings: webhookSettings, policy: webhookPolicy, masterKey: bootstrap.masterKey),
        settings: webhookSettings, metrics: WebhookMetrics(metrics: metrics), logger: logger)
    let claimPages = pages.claims
    let console = configuration.consolePlacement == .off ? nil : ConsoleRoutes(
        admin: admin, auth: auth,
        sessions: ConsoleSessions(
            store: store, directory: apiKeys, idle: TimeInterval(configuration.adminSessionIdleSeconds),
            maximum: TimeInterval(configuration.adminSessionMaxSeconds)),
        pages: pages.console)
    let deletions = LinkDeletions(store: store, logger: logger)
    let shareRoutes = ShareRoutes(links: links, apps: apps, deletions: deletions, analytics: analytics)
    // Share pages, resolutions and /healthz: declared once, read by Hummingbird's router and the event-loop fast path.
    let hotRoutes = HotRouteTable(
        routes: HotRouteTable.linkdRoutes(resolve: resolveRoutes, share: shareRoutes), limiter: limiter, metrics: metrics,
        requestLog: logger.logLevel <= .debug ? logger : nil)
    hotRoutes.register(on: router)
    WebRoutes(apps: apps, stylesheet: factory.renderer.stylesheet).register(on: router)
    // Deferred deep links (store redirects with claim codes, claims) and per-link/app stats.
    DeferredRoutes(deferred: DeferredLinks(
        links: links, apps: apps, claimPages: claimPages, analytics: analytics, configuration: configuration, logger: logger
    )).register(on: router)
    StatsRoutes(links: links, auth: auth).register(on: router)
    // The code of an app's build made from its manifest in force (docs/codegen.md).
    CodegenRoutes(apps: apps, auth: auth).register(on: router)
    // Automatic certificates: HTTP-01 answers on the listeners, the orders in a service of their own.
    let acme = configuration.acme.isEnabled ? ACMEChallengeAnswers(store: store) : nil
    acme?.register(on: router)
    // The admin console: here, or on the ops listener (`adminConsole`).
    if configuration.consolePlacement == .public { console?.register(on: router) }
    // Added last, so it wraps only the unmatched-request responder (Hummingbird applies a middleware to the endpoints
    // added after it, and to the not-found responder): browsers on an app's link URLs get its pages.
    router.add(middleware: AppLinkPagesMiddleware(
        apps: apps, limiter: limiter))
    // Inside it: a path some route has, asked with a method none takes, is a 405 rather than a page or a 404.
    router.add(middleware: MethodNotAllowedMiddleware(routes: router.catalog))

    let flusher = ClickFlushService(
        buffer: clicks, store: store, interval: .milliseconds(Int(configuration.clickFlushSeconds * 1000)), logger: logger)
    let statsFlusher = StatsFlushService(
        buffer: statsBuffer, store: store, metrics: analyticsMetrics,
        interval: .milliseconds(Int(configuration.clickFlushSeconds * 1000)), logger: logger)
    // The hot routes answered on the event loop when memory has all they need (on the plain listener only when it
    // does not send everything to HTTPS).
    let fastRoutes = configuration.fastPath ? hotRoutes : nil
    let redirectPort = configuration.tls.isEnabled && configuration.tls.redirectHTTP ? BoundPort(configuration.tls.port ?? 0) : nil
    let serverName = "linkd"
    let connections = ConnectionCounter(limits: configuration.edgeLimits, metrics: metrics)
    let eventLoopGroup: EventLoopGroupProvider = configuration.eventLoopThreads > 0
        ? .shared(MultiThreadedEventLoopGroup(numberOfThreads: configuration.eventLoopThreads)) : .singleton
    // With `opsPort` set, /metrics, /readyz and /healthz on a listener of their own, run as one more service.
    let ops = configuration.hasOpsListener ? [opsApplication(
        configuration: configuration, health: health, console: configuration.consolePlacement == .ops ? console : nil,
        metrics: metrics, serverName: serverName,
        eventLoopGroup: eventLoopGroup, logger: logger, onListening: onOpsListening)] : []
    let responder = HeadResponder(base: router.router.buildResponder())
    // With `tls.port` set, the same responder and fast path behind TLS, on a listener of its own.
    let tls = configuration.tls.isEnabled ? [try tlsApplication(
        configuration: configuration, responder: responder, routes: fastRoutes, certificates: certificates,
        connections: connections, clients: clients, serverName: serverName, eventLoopGroup: eventLoopGroup, logger: logger,
        onListening: { port in
            redirectPort?.port = port
            await onTLSListening(port)
        })] : []
    let application = Application(
        responder: HTTPSRedirectResponder(base: responder, tlsPort: redirectPort),
        server: HTTPServerBuilder { responder in
            EdgeChannel(
                base: HTTP1Channel(responder: responder, configuration: .init(httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: EdgeLimits.maxHeadBytes, maxHeaderListSize: EdgeLimits.maxHeadBytes))),
                routes: redirectPort == nil ? fastRoutes : nil, serverName: serverName, limits: configuration.edgeLimits,
                connections: connections,
                clients: clients)
        },
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: serverName),
        // The sync service closes the store; listed first, it is shut down after the flusher's last flush and the
        // deletions still queued (shut down in reverse order). The origin fetches end first: no new one starts once
        // shutdown begins, and the ones in flight are waited for.
        // The webhook deliveries under way finish and are recorded before the store closes.
        // The ops listener, last, stops right after the public one.
        services: [StoreSyncService(store: store, keys: bootstrap.keys, apiKeys: apiKeys, publisher: admin.publisher), statsFlusher, flusher, deletions, OriginFetchService(fetches: factory.fetches), webhookDelivery,
                   HeartbeatService(store: store, identity: instance, logger: logger),
                   ManifestReloadService(publisher: admin.publisher, paths: configuration.manifests, logger: logger)] + ops + tls
            + (configuration.tls.certificates.isEmpty ? [] : [TLSCertificateReloadService(
                files: configuration.tls.certificates, certificates: certificates, logger: logger)])
            + (acme.map { challenges in [ACMECertificateService(
                client: ACMEClient(configuration: ACMEClientConfiguration(
                    directoryURL: configuration.acme.directory ?? "", caCertificatesFile: configuration.acme.caCertificates,
                    contactEmail: configuration.acme.email)),
                store: store, apps: apps, certificates: certificates, challenges: challenges, masterKey: bootstrap.masterKey,
                holder: instance.id, status: acmeStatus, logger: logger,
                checkInterval: .milliseconds(Int64(configuration.acme.checkIntervalSeconds * 1000)),
                retryBase: configuration.acme.retryBaseSeconds)] } ?? []),
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
        eventLoopGroupProvider: eventLoopGroup,
        logger: logger
    )
    return Daemon(
        application: application, initialAdminKeyFile: bootstrap.initialAdminKeyFile, store: store, hotRoutes: hotRoutes,
        routes: router.catalog)
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
                    directory: configuration.templatesDir, appDirectories: configuration.appTemplates)),
                claims: try ClaimPageRenderer(directory: configuration.templatesDir),
                console: try ConsolePages(templatesDirectory: configuration.templatesDir))
        } catch {
            throw ConfigurationError(message: "templates: \(error) (templatesDir is \(configuration.templatesDir); set "
                + "templatesDir: in the configuration file or LINKD_TEMPLATES_DIR to the folder holding landing.mustache)")
        }
    }
}

/// The configured store: PostgreSQL when `database` is set, else SQLite in the data directory; its backend wrapped
/// by `wrapBackend` (the tests inject faults there).
func openStore(
    _ configuration: ServerConfiguration, wrapBackend: (any StoreBackend) -> any StoreBackend, logger: Logger
) async throws -> StoreFront {
    guard let url = configuration.database else {
        let backend = try SQLiteBackend(path: configuration.dataDir + "/linkd.sqlite")
        return try await StoreFront(backend: wrapBackend(backend), cacheCapacity: configuration.linkCacheCapacity)
    }
    do {
        let backend = try await PostgresBackend.open(
            url: url, syncInterval: .milliseconds(Int(configuration.syncIntervalSeconds * 1000)), logger: logger)
        if let warning = backend.location.tlsWarning { logger.warning("\(warning)") }
        do {
            let store = try await StoreFront(backend: wrapBackend(backend), cacheCapacity: configuration.linkCacheCapacity, logger: logger)
            logger.notice("using the shared PostgreSQL store", metadata: ["database": "\(store.location)"])
            return store
        } catch {
            await backend.close()
            throw error
        }
    } catch let error as LinkStoreError {
        throw ConfigurationError(message: error.code == .configuration ? error.message : "the database: \(error.message)")
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
