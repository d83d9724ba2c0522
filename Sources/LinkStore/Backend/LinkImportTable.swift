public import Foundation

/// What became of one link of an import's batch (`LinkImportTable.importLinks`).
public enum ImportedLink: Sendable, Equatable {
    /// Stored, with this short id: the one asked for, or a new one when another link holds it.
    case inserted(shortID: String?)
    /// A link with this id is stored already (an earlier run of the same import): nothing written.
    case alreadyPresent
    /// A link with this id is stored for another app: nothing written.
    case idTaken(app: String)
    /// Another link of the app holds the custom path (live, or not yet released): nothing written.
    case pathTaken(CustomPathTaken)
}

/// Links written in bulk (imports): a batch in one transaction, no webhook events, each link's fate reported rather
/// than thrown, so that one taken path or existing id costs its own row only.
public protocol LinkImportTable: Sendable {
    /// Writes `records` in one transaction: each is inserted unless its id is stored already (`alreadyPresent`, or
    /// `idTaken` for another app's) or its custom path is held (a revoked, deleted or expired holder lets it go, as
    /// at creation); a short id another link holds is drawn again. With `dryRun` the same statements run and the
    /// transaction is rolled back: the outcomes are what a real run would have done then. One outcome per record,
    /// in order. A store failure throws, and then nothing of the batch is written.
    func importLinks(_ records: [LinkRecord], dryRun: Bool, at now: Date) async throws -> [ImportedLink]
}
