import Foundation
import LinkStore
import Synchronization

/// The API keys in memory, by secret digest: what lets a valid key be recognised without asking the store, so
/// that an address locked out for failed attempts is still served with a valid key while its failed attempts cost
/// the store nothing.
///
/// Loaded at start, reloaded after this instance makes or revokes a key, and — on a store shared with other
/// instances — every `refreshInterval` (a key made or revoked elsewhere is known here within it). The table is
/// small: one row per API key an admin made.
final class APIKeyDirectory: Sendable {
    private let byDigest = Mutex<[Data: APIKeyRecord]>([:])

    /// How often a shared store's keys are read again.
    static let refreshInterval: Duration = .seconds(2)

    /// An empty directory (`reload` fills it).
    init() {}

    /// The key whose secret has this digest, revoked or not; nil when this instance does not know it (yet).
    func record(digest: Data) -> APIKeyRecord? {
        byDigest.withLock { $0[digest] }
    }

    /// The key with this id, revoked or not; nil when this instance does not know it (a console session's key is
    /// checked here on every request, so a revoked admin key ends its sessions).
    func record(id: String) -> APIKeyRecord? {
        byDigest.withLock { $0.values.first { $0.id == id } }
    }

    /// Reads every key from the store.
    func reload(from store: StoreFront) async throws {
        let records = try await store.allAPIKeys()
        let map = Dictionary(records.map { ($0.secretHash, $0) }, uniquingKeysWith: { first, _ in first })
        byDigest.withLock { $0 = map }
    }

    /// Adds a key the store just gave for a digest (found by a lookup this instance made).
    func remember(_ record: APIKeyRecord) {
        byDigest.withLock { $0[record.secretHash] = record }
    }

    /// Keeps the directory current with a shared store until the task is cancelled.
    func follow(_ store: StoreFront) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.refreshInterval)
            try? await reload(from: store)
        }
    }
}
