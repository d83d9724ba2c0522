import LinkStore
import Logging
import ServiceLifecycle

/// Keeps this instance current with what other instances change in a shared store: the change feed (revocations,
/// links, signing keys, manifests) and the API keys. On an unshared store nothing changes behind this instance and it
/// returns at once (its group ignores that: `backgroundServices`).
struct StoreSyncService: Service {
    let store: StoreFront
    let keys: KeyAdministration
    /// The API keys in memory, read again with the rest when the store is shared.
    let apiKeys: APIKeyDirectory
    /// Installs the manifests another instance published.
    let publisher: ManifestPublisher

    func run() async throws {
        guard store.changeFeedVersion != nil else { return }
        try? await cancelWhenGracefulShutdown {
            async let followed: Void = apiKeys.follow(store)
            try await store.synchronize {
                await keys.reload()
            } onManifestsChanged: {
                try? await publisher.reloadFromStore()
            }
            await followed
        }
    }
}

/// Closes the store (ending the PostgreSQL pool) at the end of a graceful shutdown. Listed first among the
/// background services, it is stopped last, after every service that writes to the store has written what it holds.
struct StoreCloseService: Service {
    let store: StoreFront

    func run() async throws {
        try? await gracefulShutdown()
        await store.close()
    }
}
