import Foundation
import TokenSigning

/// The key records one `KeyAdministration.change` works on: the store's records, changed step by step through
/// `KeyRotation`'s functions, with every record a step wrote kept for the one transaction that saves them. Nothing
/// is in force or stored until the change is done: a step that throws leaves nothing behind.
struct KeyRecordDraft: Sendable {
    /// The records as the steps so far left them.
    private(set) var records: [KeyRecord]
    /// The records the steps wrote, the latest version of each, in the order first written.
    private(set) var changed: [KeyRecord] = []
    /// Seals the secrets of the keys the steps make.
    let masterKey: MasterKey

    /// A draft of `records`, nothing changed yet.
    init(records: [KeyRecord], masterKey: MasterKey) {
        self.records = records
        self.masterKey = masterKey
    }

    /// Public views of the keys of `app` (all apps when nil), as the steps so far left them.
    func keys(app: String?) -> [KeyInfo] {
        KeyInfo.list(records, app: app)
    }

    /// `KeyRotation.generate`: a key for `app`/`suite`, active when it has none, else pending.
    @discardableResult
    mutating func generate(app: String, suite: TokenSuite, now: Date = Date()) throws -> KeyInfo {
        try apply(KeyRotation.generate(records: records, app: app, suite: suite, masterKey: masterKey, now: now))
    }

    /// `KeyRotation.rotate`: a new active key of `app`/`suite`; the previous one verifies only.
    @discardableResult
    mutating func rotate(app: String, suite: TokenSuite, now: Date = Date()) throws -> KeyInfo {
        try apply(KeyRotation.rotate(records: records, app: app, suite: suite, masterKey: masterKey, now: now))
    }

    /// `KeyRotation.retire`: key `keyID` of `app` no longer signs or verifies.
    @discardableResult
    mutating func retire(app: String, keyID: UInt32, now: Date = Date()) throws -> KeyInfo {
        try apply(KeyRotation.retire(records: records, app: app, keyID: keyID, now: now))
    }

    private mutating func apply(_ change: KeyChange) -> KeyInfo {
        records = change.records
        for record in change.changed { record.place(in: &changed) }
        return change.key.info
    }
}
