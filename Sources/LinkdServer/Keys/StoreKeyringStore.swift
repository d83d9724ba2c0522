import Foundation
import LinkStore
import Synchronization
import TokenSigning

/// TokenSigning's synchronous `KeyringStore` over the asynchronous store: the keyring reads and writes an
/// in-memory copy of the key records; `refresh` fills the copy from the store and `commit` writes what the keyring
/// changed, in one transaction. `KeyAdministration` runs every change as refresh → change → commit.
final class StoreKeyringStore: KeyringStore {
    private struct State {
        var records: [KeyRecord] = []
        var changed: [KeyRecord] = []
    }

    private let store: StoreFront
    private let state = Mutex(State())

    /// A key store over `store`, with the records it holds now.
    init(store: StoreFront) async throws {
        self.store = store
        try await refresh()
    }

    /// The in-memory copy of the key records.
    func loadKeyRecords() throws -> [KeyRecord] {
        state.withLock { $0.records }
    }

    /// Changes the in-memory copy; the record is written by the next `commit`.
    func saveKeyRecord(_ record: KeyRecord) throws {
        state.withLock { state in
            state.records.removeAll { $0.app == record.app && $0.kid == record.kid }
            state.records.append(record)
            state.records.sort { ($0.app, $0.kid) < ($1.app, $1.kid) }
            state.changed.removeAll { $0.app == record.app && $0.kid == record.kid }
            state.changed.append(record)
        }
    }

    /// Replaces the in-memory copy with the store's records, dropping uncommitted changes.
    func refresh() async throws {
        let decoder = JSONDecoder()
        let records = try await store.keyRecords().map { stored in
            do { return try decoder.decode(KeyRecord.self, from: stored.record) } catch {
                throw LinkStoreError(.storage, "key record \(stored.app)/\(stored.kid) cannot be read: \(error)")
            }
        }
        state.withLock { $0 = State(records: records, changed: []) }
    }

    /// Writes the records changed since the last refresh or commit, and `audit`, all or none.
    func commit(audit: AuditEntry? = nil) async throws {
        let changed = state.withLock { $0.changed }
        guard !changed.isEmpty || audit != nil else { return }
        let encoder = JSONEncoder()
        let stored = try changed.map { StoredKeyRecord(app: $0.app, kid: Int64($0.kid), record: try encoder.encode($0)) }
        try await store.saveKeyRecords(stored, audit: audit)
        state.withLock { $0.changed.removeAll() }
    }
}
