import Foundation
import Hummingbird
import HummingbirdCore
import LinkRouter
import LinkStore
import Logging
import NIOCore
import NIOPosix
import WebFallback

/// A built server: the application to run and the admin key made on first start (to print once).
struct LinkdServer<App: ApplicationProtocol> {
    /// The Hummingbird application (routes and background services).
    let application: App
    /// The admin key generated on this first start; nil when one existed already.
    let initialAdminKey: String?
}

/// Builds the linkd HTTP server from a configuration: opens (creating) the data directory and store, loads the
/// manifests and keys, registers the routes and the background services. `linkd serve` and the tests call it.
/// - Parameters:
///   - logger: where the server logs (default: swift-log's handler, stderr); its level is set from `logLevel`.
///   - wrapStore: wraps the opened store (the tests put a fault-injecting store around it); identity by default.
///   - onListening: called with the bound port once the server listens (port 0 picks one).
func buildServer(
    configuration: ServerConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment,
    logger: Logger = Logger(label: "linkd"),
    wrapStore: (any LinkStorage) -> any LinkStorage = { $0 },
    onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> LinkdServer<some ApplicationProtocol> {
    var logger = logger
    logger.logLevel = Logger.Level(rawValue: configuration.logLevel) ?? .info

    try DataDirectory.prepare(configuration.dataDir)
    let store = wrapStore(try await openStore(configuration, logger: logger))
    let bootstrap: ServerBootstrap
    do {
        bootstrap = try await ServerBootstrap.run(configuration: configuration, store: store, environment: environment, logger: logger)
    } catch {
        await store.close()
        throw error
    }
    let metrics = ServerMetrics()
    metrics.setRevocationSetSize(store.revocations.count)
    let clicks = ClickBuffer()
    let links = LinkService(
        store: store, keyring: bootstrap.keyring, router: bootstrap.router, clicks: clicks, metrics: metrics,
        defaultTTLSeconds: configuration.defaultTTLSeconds, maxTTLSeconds: configuration.maxTTLSeconds)
    let auth = APIKeyAuthenticator(
        store: store,
        failures: RateLimiter(perSecond: configuration.authFailuresPerMinute / 60, burst: APIKeyAuthenticator.failureBurst))
    let limiter = configuration.rateLimitPerSecond > 0
        ? RateLimiter(perSecond: configuration.rateLimitPerSecond, burst: configuration.rateLimitBurst) : nil

    let router = Hummingbird.Router(context: LinkdRequestContext.self)
    // Outermost: unmatched routes and unexpected errors leave as JSON errors, and are counted as they leave.
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: MetricsMiddleware(metrics: metrics))
    HealthRoutes(store: store, metrics: metrics).register(on: router)
    LinkRoutes(links: links, auth: auth, maxBodyBytes: configuration.maxBodyBytes).register(on: router)
    let resolveRoutes = ResolveRoutes(links: links, limiter: limiter)
    resolveRoutes.register(on: router)
    AdminRoutes(
        store: store, keys: bootstrap.keys, router: bootstrap.router, auth: auth, metrics: metrics,
        maxBodyBytes: configuration.maxBodyBytes
    ).register(on: router)
    let pages: SharePages
    let wellKnown: WellKnownFiles
    do {
        pages = try SharePages(
            router: bootstrap.router,
            templates: PageConfiguration(directory: configuration.templatesDir, appDirectories: configuration.appTemplates),
            previewWait: .milliseconds(configuration.previewWaitMilliseconds), maxOriginFetches: configuration.maxOriginFetches)
        wellKnown = try WellKnownFiles(manifests: bootstrap.router.manifests)
    } catch let error as PageError {
        throw ConfigurationError(message: "templates: \(error)")
    } catch let error as WellKnownError {
        throw ConfigurationError(message: error.message)
    }
    let deletions = LinkDeletions(store: store, logger: logger)
    let shareRoutes = ShareRoutes(links: links, pages: pages, limiter: limiter, deletions: deletions)
    shareRoutes.register(on: router)
    WebRoutes(wellKnown: wellKnown, stylesheet: pages.renderer.stylesheet).register(on: router)

    let flusher = ClickFlushService(
        buffer: clicks, store: store, interval: .milliseconds(Int(configuration.clickFlushSeconds * 1000)), logger: logger)
    // Share pages, resolutions and /healthz answered on the event loop when memory has all they need.
    let fastRoutes = configuration.fastPath
        ? FastRoutes(
            resolve: resolveRoutes, share: shareRoutes, limiter: limiter, metrics: metrics,
            requestLog: logger.logLevel <= .debug ? logger : nil)
        : nil
    let serverName = "linkd"
    let application = Application(
        router: router,
        server: HTTPServerBuilder { responder in
            FastPathChannel(base: HTTP1Channel(responder: responder), routes: fastRoutes, serverName: serverName)
        },
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: serverName),
        // The sync service closes the store; listed first, it is shut down after the flusher's last flush and the
        // deletions still queued (shut down in reverse order).
        services: [StoreSyncService(store: store, keys: bootstrap.keys), flusher, deletions],
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
        eventLoopGroupProvider: configuration.eventLoopThreads > 0
            ? .shared(MultiThreadedEventLoopGroup(numberOfThreads: configuration.eventLoopThreads)) : .singleton,
        logger: logger
    )
    return LinkdServer(application: application, initialAdminKey: bootstrap.initialAdminKey)
}

/// The configured store: PostgreSQL when `database` is set, else SQLite in the data directory.
func openStore(_ configuration: ServerConfiguration, logger: Logger) async throws -> any LinkStorage {
    guard let url = configuration.database else {
        return try SQLiteLinkStore(path: configuration.dataDir + "/linkd.sqlite", cacheCapacity: configuration.linkCacheCapacity)
    }
    do {
        let store = try await PostgresLinkStore.open(
            url: url, cacheCapacity: configuration.linkCacheCapacity,
            syncInterval: .milliseconds(Int(configuration.syncIntervalSeconds * 1000)), logger: logger)
        logger.notice("using the shared PostgreSQL store", metadata: ["database": "\(store.location)"])
        return store
    } catch let error as LinkStoreError {
        throw ConfigurationError(message: error.code == .configuration ? error.message : "the database: \(error.message)")
    }
}

/// The data directory: created with mode 0700 when missing. Files linkd creates in it are 0600 (umask 077).
enum DataDirectory {
    static func prepare(_ path: String) throws {
        // The process only writes secrets and its database here: nothing it creates is for other users.
        umask(0o077)
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw ConfigurationError(message: "\(path): not a directory") }
            return
        }
        do {
            try manager.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ConfigurationError(message: "\(path): cannot create the data directory: \(error.localizedDescription)")
        }
    }
}
