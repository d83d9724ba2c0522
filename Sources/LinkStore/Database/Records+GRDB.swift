internal import GRDB

// The records as the SQLite backend reads and writes them. GRDB stays behind the module's wall: these conformances
// are not part of LinkStore's API (an `internal import`), so a client of LinkStore never sees GRDB.

/// Dates as `StoredDate` writes and reads them (GRDB's text format, without loading ICU).
private protocol StoredDates: FetchableRecord, PersistableRecord {}

extension StoredDates {
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { StoredDate.encoding }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { StoredDate.decoding }
}


extension LinkRecord: StoredDates {
    /// The table the records are stored in.
    static let databaseTableName = "links"
}

extension APIKeyRecord: StoredDates {
    /// The table the records are stored in.
    static let databaseTableName = "api_keys"
}

extension AuditEntry: StoredDates {
    /// The table the records are stored in.
    static let databaseTableName = "audit_log"

    /// Queues the entry's webhook events in the transaction inserting it: an action and its events are stored
    /// together, through the one path every audited change already takes.
    func willInsert(_ db: Database) throws {
        try SQLiteBackend.enqueueWebhookEvents(events, in: db, at: at)
    }
}

extension StoredKeyRecord: StoredDates {
    /// The table the records are stored in.
    static let databaseTableName = "key_records"
}
