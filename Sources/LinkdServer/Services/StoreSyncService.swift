import LinkStore
import Logging
import ServiceLifecycle

/// Keeps this instance current with what other instances change in a shared store (the change feed), and closes
/// the store last at shutdown: it is listed before the click flusher, so its final flush runs first.
struct StoreSyncService: Service {
    let store: StoreFront
    let keys: KeyAdministration

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            try await store.synchronize {
                await keys.reload()
            }
        }
        // An unshared store returns at once: stay until shutdown, then close.
        try? await gracefulShutdown()
        await store.close()
    }
}
