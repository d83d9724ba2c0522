import LinkStore
import Logging
import ServiceLifecycle

/// Writes counted clicks to the store every `interval`, and once more at shutdown.
struct ClickFlushService: Service {
    let buffer: ClickBuffer
    let store: LinkStore
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await Task.sleep(for: interval)
            flush()
        }
        flush()
    }

    private func flush() {
        do {
            try buffer.flush(into: store)
        } catch {
            logger.error("click flush failed", metadata: ["error": "\(error)"])
        }
    }
}
