import Foundation
import LinkStore
import TokenSigning

/// TokenSigning's `KeyringStore` on the SQLite store: each key record (secret sealed by TokenSigning) is kept
/// as JSON in the `key_records` table, keyed by app and kid.
struct SQLiteKeyringStore: KeyringStore {
    let store: any LinkStorage

    func loadKeyRecords() throws -> [KeyRecord] {
        let decoder = JSONDecoder()
        return try store.keyRecords().map { try decoder.decode(KeyRecord.self, from: $0.record) }
    }

    func saveKeyRecord(_ record: KeyRecord) throws {
        let data = try JSONEncoder().encode(record)
        try store.saveKeyRecord(StoredKeyRecord(app: record.app, kid: Int64(record.kid), record: data))
    }
}
