import Logging
import ServiceLifecycle
import UnixSignals

/// Re-reads the manifest files on `SIGHUP` and publishes the ones that changed (`ManifestPublisher.publishFiles`),
/// until shutdown.
struct ManifestReloadService: Service {
    let publisher: ManifestPublisher
    /// The manifest files configured (`manifests`).
    let paths: [String]
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            logger.notice("SIGHUP: reading the manifest files again")
            let published = await publisher.publishFiles(paths)
            logger.notice("SIGHUP: manifest files read", metadata: ["published": "\(published.joined(separator: ", "))"])
        }
    }
}
