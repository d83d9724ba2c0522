import ServiceLifecycle
import WebFallback

/// Owns the origin fetches (libcurl transfers on their own threads) for the server's lifetime: at graceful
/// shutdown no new fetch starts (pages go out without a fresh preview) and the ones in flight are waited for, up to
/// `drainLimit` (an origin transfer's own time limit, 2 s by default, bounds each).
struct OriginFetchService: Service {
    let fetches: OriginFetches
    /// The longest wait for the fetches in flight at shutdown.
    var drainLimit: Duration = .seconds(5)

    func run() async throws {
        try? await gracefulShutdown()
        fetches.close()
        _ = await fetches.drained(within: drainLimit)
    }
}
