import Foundation
import Hummingbird
import LinkStore
import Logging

/// Everything a running server shares: the store, click buffer and metrics.
struct ServerState: Sendable {
    let configuration: ServerConfiguration
    let store: LinkStore
    let clicks: ClickBuffer
    let metrics: ServerMetrics
}

/// Builds the linkd HTTP application from a configuration: opens (creating) the data directory and store,
/// registers the routes and the background services. `linkd serve` and the end-to-end tests both call it.
func buildApplication(configuration: ServerConfiguration) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "linkd")
    logger.logLevel = Logger.Level(rawValue: configuration.logLevel) ?? .info

    try DataDirectory.prepare(configuration.dataDir)
    let store = try LinkStore(
        path: configuration.dataDir + "/linkd.sqlite", cacheCapacity: configuration.linkCacheCapacity
    )
    let state = ServerState(configuration: configuration, store: store, clicks: ClickBuffer(), metrics: ServerMetrics())

    let router = Hummingbird.Router(context: BasicRequestContext.self)
    router.add(middleware: MetricsMiddleware(metrics: state.metrics))
    HealthRoutes(store: store, metrics: state.metrics).register(on: router)

    let flusher = ClickFlushService(
        buffer: state.clicks, store: store, interval: .milliseconds(Int(configuration.clickFlushSeconds * 1000)),
        logger: logger
    )
    return Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "linkd"),
        services: [flusher],
        logger: logger
    )
}

/// The data directory: created with mode 0700 when missing.
enum DataDirectory {
    static func prepare(_ path: String) throws {
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
