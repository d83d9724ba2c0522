import LinkStore
import Logging
import ServiceLifecycle

/// Writes counted clicks to the store every `interval`, and once more at shutdown. Graceful shutdown cuts the wait
/// short (the HTTP server is shut down first, so the last flush sees every click it counted).
struct ClickFlushService: Service {
    let buffer: ClickBuffer
    let store: StoreFront
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await Self.repeating(every: interval) { await flush() }
    }

    /// Runs `work` every `interval` until graceful shutdown (which cuts the wait short), then once more: the loop of
    /// the flushing services.
    static func repeating(every interval: Duration, _ work: () async -> Void) async {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            await work()
        }
        await work()
    }

    private func flush() async {
        do {
            try await buffer.flush(into: store)
        } catch {
            logger.error("click flush failed", metadata: ["error": "\(error)"])
        }
    }
}
