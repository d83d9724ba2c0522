import LinkStore
import Logging
import ServiceLifecycle

/// Writes the analytics counted on the request path (`StatsBuffer`) to the daily rows every `interval`, and expires
/// the claim codes whose time is up (counting each on its link), then once more at shutdown. Like the click flusher,
/// graceful shutdown cuts the wait short and the HTTP server has stopped first.
struct StatsFlushService: Service {
    let buffer: StatsBuffer
    let store: StoreFront
    let metrics: AnalyticsMetrics
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await ClickFlushService.repeating(every: interval) { await flush() }
    }

    private func flush() async {
        do {
            try await buffer.flush(into: store)
        } catch {
            logger.error("stats flush failed", metadata: ["error": "\(error)"])
        }
        do {
            for (app, count) in try await store.expireClaims() { metrics.recordClaims(app: app, .expired, count: count) }
        } catch {
            logger.error("claim expiry failed", metadata: ["error": "\(error)"])
        }
    }
}
