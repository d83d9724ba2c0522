import LinkStore
import Logging
import ServiceLifecycle

/// Keeps this instance current with what other instances change in a shared store (the change feed, and the API
/// keys), and closes the store last at shutdown: it is listed before the share-event flusher and the claim expiry,
/// so their final runs come first.
struct StoreSyncService: Service {
    let store: StoreFront
    let keys: KeyAdministration
    /// The API keys in memory, read again with the rest when the store is shared.
    let apiKeys: APIKeyDirectory
    /// Installs the manifests another instance published.
    let publisher: ManifestPublisher

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            guard store.changeFeedVersion != nil else { return }  // not shared: nothing changes behind this instance
            async let followed: Void = apiKeys.follow(store)
            try await store.synchronize {
                await keys.reload()
            } onManifestsChanged: {
                try? await publisher.reloadFromStore()
            }
            await followed
        }
        // An unshared store returns at once: stay until shutdown, then close.
        try? await gracefulShutdown()
        await store.close()
    }
}
