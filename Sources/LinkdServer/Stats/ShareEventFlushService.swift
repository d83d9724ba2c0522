import LinkStore
import Logging
import ServiceLifecycle

/// Writes what the share path counted (`ShareEventBuffer`: the click totals and last openings, and the daily rows)
/// to the store every `interval`, in one transaction per flush, and once more at shutdown. Graceful shutdown cuts
/// the wait short (the HTTP server is shut down first, so the last flush sees every event it counted). A failed
/// write leaves the events in the buffer for the next flush; a `kill -9` loses what was counted since the last
/// flush that succeeded.
struct ShareEventFlushService: Service {
    let buffer: ShareEventBuffer
    let store: StoreFront
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await ServiceLoop.repeating(every: interval) { await flush() }
    }

    /// The links in a flush past which malloc's free pages are given back after it (`MallocTuning.trim`): a busy
    /// second's flush allocates and frees tens of megabytes, which would otherwise stay resident.
    static let trimAfterLinks = 1_000

    private func flush() async {
        do {
            let links = buffer.pendingLinks
            try await buffer.flush(into: store)
            if links >= Self.trimAfterLinks { MallocTuning.trim() }
        } catch {
            logger.error("share event flush failed", metadata: ["error": "\(error)", "pendingLinks": "\(buffer.pendingLinks)"])
        }
    }
}
