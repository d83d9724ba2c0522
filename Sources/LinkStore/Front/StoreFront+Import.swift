public import Foundation

// Imports through the front: the backend writes a batch; memory learns the short ids and custom paths it stored, as
// it does for a created link (so a short id or path asked for before, and remembered as unknown, answers at once).
extension StoreFront {
    /// Writes an import's batch (`LinkImportTable.importLinks`) and notes what it stored.
    public func importLinks(_ records: [LinkRecord], dryRun: Bool, at now: Date = Date()) async throws -> [ImportedLink] {
        let outcomes = try await backend.importLinks(records, dryRun: dryRun, at: now)
        guard !dryRun else { return outcomes }
        for (record, outcome) in zip(records, outcomes) {
            guard case .inserted(let shortID) = outcome else { continue }
            if let shortID { shortIDs.put(shortID, linkID: record.id) }
            noteCustomPath(of: record)
        }
        return outcomes
    }
}
