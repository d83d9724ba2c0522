import ACME
import Foundation
import Hummingbird
import LinkdHTTP
import LinkRouter
import LinkStore
import Logging
import NIOPosix
import TokenSigning
import WebFallback

/// Every component of one server, each made once, in the order they depend on one another; the routers and the
/// services are built from them (`buildPublicRouter`, `backgroundServices`). Made by `ServerComponents.make`.
struct ServerComponents {
    let configuration: ServerConfiguration
    let logger: Logger
    /// The templates, read once.
    let pages: TemplateSet
    /// The manifests in force and the pages made from them.
    let factory: AppSnapshotFactory
    let certificates: TLSCertificates
    let store: StoreFront
    let bootstrap: ServerBootstrap
    let metrics: ServerMetrics
    let acmeStatus: ACMEStatus
    /// What the share path counts, until `ShareEventFlushService` writes it.
    let events: ShareEventBuffer
    let analyticsMetrics: AnalyticsMetrics
    let analytics: ShareAnalytics
    let links: LinkService
    let apiKeys: APIKeyDirectory
    let auth: APIKeyAuthenticator
    /// The per-client rate limit of the hot routes; nil when `rateLimitPerSecond` is 0.
    let limiter: RateLimiter?
    let clients: ClientAddresses
    let instance: InstanceIdentity
    /// Every admin action, once: the admin API and the console are two front doors to it.
    let admin: AdminService
    let webhookDelivery: WebhookDeliveryService
    /// The admin console; nil when `adminConsole` is `off`.
    let console: ConsoleRoutes?
    let deletions: LinkDeletions
    let health: HealthRoutes
    /// The share pages (the hot routes' and custom paths').
    let shareRoutes: ShareRoutes
    /// Share pages, resolutions and `/healthz`: read by Hummingbird's router and the event-loop fast path.
    let hotRoutes: HotRouteTable
    /// HTTP-01 answers, with ACME on.
    let acmeChallenges: ACMEChallengeAnswers?
    let connections: ConnectionCounter
    let eventLoopGroup: EventLoopGroupProvider

    /// Reads and checks every file first (a broken template or manifest stops the start before anything is written
    /// to the data directory), then opens the store and makes every component.
    static func make(
        configuration: ServerConfiguration, environment: [String: String], logger: Logger,
        wrapBackend: (any StoreBackend) -> any StoreBackend
    ) async throws -> ServerComponents {
        FileDescriptorLimit.raise(for: configuration.edge.maxConnections, logger: logger)
        let files = try ServerBootstrap.loadManifestFiles(configuration.links.manifests, environment: environment)
        let pages = try TemplateSet.load(configuration)
        let certificates = TLSCertificates()
        do { certificates.installFiles(try TLSCertificates.read(configuration.tls.certificates)) } catch {
            throw ConfigurationError(message: "tls.certificates: \(error)")
        }
        try DataDirectory.prepare(configuration.store.dataDir)
        DaemonDataDirectory.mark(configuration.store.dataDir)  // so `linkd token keyring …` refuses this directory
        let factory = AppSnapshotFactory(
            renderer: pages.renderer, fetches: OriginFetches(limit: configuration.pages.maxOriginFetches),
            previewWait: .milliseconds(configuration.pages.previewWaitMilliseconds))
        let store = try await openStore(configuration, wrapBackend: wrapBackend, logger: logger)
        let bootstrap: ServerBootstrap
        let apiKeys = APIKeyDirectory()
        do {
            bootstrap = try await ServerBootstrap.run(
                configuration: configuration, files: files, store: store, factory: factory, environment: environment, logger: logger)
            do { try await apiKeys.reload(from: store) } catch {
                throw ConfigurationError(message: "the store: cannot read the API keys: \(error)")
            }
        } catch {
            await store.close()
            throw error
        }
        return make(
            configuration: configuration, logger: logger, pages: pages, factory: factory, certificates: certificates,
            store: store, bootstrap: bootstrap, apiKeys: apiKeys)
    }

    /// The components over an open store and a finished first start.
    private static func make(
        configuration: ServerConfiguration, logger: Logger, pages: TemplateSet, factory: AppSnapshotFactory,
        certificates: TLSCertificates, store: StoreFront, bootstrap: ServerBootstrap, apiKeys: APIKeyDirectory
    ) -> ServerComponents {
        let apps = bootstrap.apps
        let metrics = ServerMetrics()
        metrics.setRevocationSetSize(store.revocations.count)
        metrics.setLinkCache(records: store.cachedLinkCount, bytes: store.cachedLinkBytes)
        let acmeStatus = ACMEStatus(registry: configuration.acme.isEnabled ? metrics.registry : nil)
        let events = ShareEventBuffer(capacity: configuration.store.shareEventBufferCapacity)
        let analyticsMetrics = AnalyticsMetrics(registry: metrics.registry, apps: apps.router.appIDs)
        let analytics = ShareAnalytics(buffer: events, metrics: analyticsMetrics)
        let links = LinkService(
            store: store, keys: bootstrap.keys.inForce, apps: apps, events: events, metrics: metrics,
            defaultTTLSeconds: configuration.links.defaultTTLSeconds, maxTTLSeconds: configuration.links.maxTTLSeconds)
        let auth = APIKeyAuthenticator(
            store: store,
            failures: RateLimiter(perSecond: configuration.limits.authFailuresPerMinute / 60, burst: APIKeyAuthenticator.failureBurst),
            directory: apiKeys)
        let limits = configuration.limits
        let limiter = limits.rateLimitPerSecond > 0 ? RateLimiter(perSecond: limits.rateLimitPerSecond, burst: limits.rateLimitBurst) : nil
        let instance = InstanceIdentity.make()
        let webhookSettings = configuration.webhooks.delivery
        let webhookPolicy = WebhookURLPolicy(allowLoopback: webhookSettings.allowLoopback)
        let admin = AdminService(
            store: store, keys: bootstrap.keys, links: links, apiKeys: apiKeys, metrics: metrics, instance: instance,
            publisher: ManifestPublisher(store: store, apps: apps, keys: bootstrap.keys, logger: logger),
            masterKey: bootstrap.masterKey, webhookPolicy: webhookPolicy,
            backupsDirectory: configuration.store.dataDir + "/backups", certificates: certificates, acmeStatus: acmeStatus)
        let console = configuration.console.placement == .off ? nil : ConsoleRoutes(
            admin: admin, auth: auth,
            sessions: ConsoleSessions(
                store: store, directory: apiKeys, idle: TimeInterval(configuration.console.adminSessionIdleSeconds),
                maximum: TimeInterval(configuration.console.adminSessionMaxSeconds)),
            pages: pages.console)
        let deletions = LinkDeletions(store: store, logger: logger)
        let resolveRoutes = ResolveRoutes(links: links)
        let shareRoutes = ShareRoutes(links: links, apps: apps, deletions: deletions, analytics: analytics)
        let http = configuration.http
        return ServerComponents(
            configuration: configuration, logger: logger, pages: pages, factory: factory, certificates: certificates,
            store: store, bootstrap: bootstrap, metrics: metrics, acmeStatus: acmeStatus, events: events,
            analyticsMetrics: analyticsMetrics, analytics: analytics, links: links, apiKeys: apiKeys, auth: auth,
            limiter: limiter, clients: ClientAddresses(trustedProxies: http.trustedProxyNetworks), instance: instance,
            admin: admin,
            webhookDelivery: WebhookDeliveryService(
                store: store, sender: WebhookSender(settings: webhookSettings, policy: webhookPolicy, masterKey: bootstrap.masterKey),
                settings: webhookSettings, metrics: WebhookMetrics(metrics: metrics), logger: logger),
            console: console, deletions: deletions, health: HealthRoutes(store: store, metrics: metrics),
            shareRoutes: shareRoutes,
            hotRoutes: HotRouteTable(
                routes: HotRouteTable.linkdRoutes(resolve: resolveRoutes, share: shareRoutes), limiter: limiter,
                metrics: metrics.http, requestLog: logger.logLevel <= .debug ? logger : nil),
            acmeChallenges: configuration.acme.isEnabled ? ACMEChallengeAnswers(store: store) : nil,
            connections: ConnectionCounter(limits: configuration.edge.limits, metrics: metrics.http),
            eventLoopGroup: http.eventLoopThreads > 0
                ? .shared(MultiThreadedEventLoopGroup(numberOfThreads: http.eventLoopThreads)) : .singleton)
    }

    /// The configured store: PostgreSQL when `database` is set, else SQLite in the data directory.
    private static func openStore(
        _ configuration: ServerConfiguration, wrapBackend: (any StoreBackend) -> any StoreBackend, logger: Logger
    ) async throws -> StoreFront {
        let settings = configuration.store
        guard let url = settings.database else {
            return try await StoreFront.open(
                .sqlite(path: settings.dataDir + "/linkd.sqlite"), cacheCapacity: settings.linkCacheCapacity,
                cacheBytes: settings.linkCacheMegabytes << 20, logger: logger, revocationLoading: .inBackground,
                warmsLinkCache: settings.linkCacheWarmup, wrapBackend: wrapBackend)
        }
        if let warning = try? PostgresLocation(url: url).tlsWarning { logger.warning("\(warning)") }
        do {
            let timing = PostgresTiming(
                syncInterval: .milliseconds(Int(settings.syncIntervalSeconds * 1000)),
                fullResyncInterval: .milliseconds(Int(settings.fullResyncSeconds * 1000)))
            let store = try await StoreFront.open(
                .postgres(url: url, timing: timing), cacheCapacity: settings.linkCacheCapacity,
                cacheBytes: settings.linkCacheMegabytes << 20, logger: logger, revocationLoading: .inBackground,
                warmsLinkCache: settings.linkCacheWarmup, wrapBackend: wrapBackend)
            logger.notice("using the shared PostgreSQL store", metadata: ["database": "\(store.location)"])
            return store
        } catch let error as LinkStoreError {
            throw ConfigurationError(message: error.code == .configuration ? error.message : "the database: \(error.message)")
        }
    }
}
