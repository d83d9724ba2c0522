import Foundation
import LinkStore
import Logging
import TokenSigning

/// Changes to the signing keys, safe with many instances on one store; the owner of the keys in force.
///
/// Every change runs under the store's key lock on the store's records as they are then: `KeyRotation`'s functions
/// change a `KeyRecordDraft` of them, the records they wrote are saved with the change's audit entry (one
/// transaction, all or none), and only then is the keyring of the new records put in force, whole (`KeysInForce`).
/// Other instances reload through the change feed. A rotation on a shared store follows the key life cycle
/// (docs/design.md) across instances: the new key is written `pending`, linkd waits the store's propagation bound
/// so that every instance knows it, and only then makes it `active` — so no instance ever meets a token signed with
/// a key it has not loaded.
struct KeyAdministration: Sendable {
    let store: StoreFront
    /// The keyring in force, read by the request path.
    let inForce: KeysInForce
    /// Seals the keys a change makes; the keyring in force opens the records with it.
    let masterKey: MasterKey
    let logger: Logger
    /// Serializes this instance's changes and feed-driven reloads, so that a reload never installs records older
    /// than a change's.
    private let local = AsyncLock()

    /// The keyring in force now.
    var keyring: Keyring { inForce.keyring }

    /// Opens the keyring of `store` under `masterKey`.
    static func open(store: StoreFront, masterKey: MasterKey, logger: Logger) async throws -> KeyAdministration {
        let records = try await loadRecords(from: store)
        let keyring: Keyring
        do {
            keyring = try Keyring(records: records, masterKey: masterKey)
        } catch let error as TokenError {
            throw ConfigurationError(message: "the signing keys cannot be opened (is this the master key they were sealed with?): \(error.message)")
        }
        return KeyAdministration(store: store, inForce: KeysInForce(keyring), masterKey: masterKey, logger: logger)
    }

    private init(store: StoreFront, inForce: KeysInForce, masterKey: MasterKey, logger: Logger) {
        self.store = store
        self.inForce = inForce
        self.masterKey = masterKey
        self.logger = logger
    }

    /// Runs `body` on a draft of the store's current records under the store-wide key lock, writes the records it
    /// changed together with the audit entry `audit` makes of its result (one transaction), then puts the keyring
    /// of the new records in force. On failure nothing is written and the keyring in force is the store's.
    func change<T: Sendable>(
        audit: (@Sendable (T) -> AuditEntry?)? = nil, _ body: @escaping @Sendable (inout KeyRecordDraft) throws -> T
    ) async throws -> T {
        try await store.withKeyLock { try await changeHoldingLock(audit: audit, body) }
    }

    /// `change` for a caller that holds the store's key lock already.
    func changeHoldingLock<T: Sendable>(
        audit: (@Sendable (T) -> AuditEntry?)? = nil, _ body: @escaping @Sendable (inout KeyRecordDraft) throws -> T
    ) async throws -> T {
        try await local.run {
            // The store's records first, in force at once (as a reload would put them): a change starts from them,
            // and a change that fails leaves them.
            let current = try inForce.keyring.replacing(records: try await Self.loadRecords(from: store))
            inForce.install(current)
            var draft = KeyRecordDraft(records: current.records, masterKey: masterKey)
            let value = try body(&draft)
            let entry = audit?(value)
            guard !draft.changed.isEmpty || entry != nil else { return value }
            // Made before anything is written: records that would not open are never stored.
            let next = try current.replacing(records: draft.records)
            try await Self.save(draft.changed, audit: entry, to: store)
            inForce.install(next)
            return value
        }
    }

    /// Reloads the keys after another instance changed them.
    func reload() async {
        do {
            try await local.run {
                inForce.install(try inForce.keyring.replacing(records: try await Self.loadRecords(from: store)))
            }
        } catch {
            logger.error("cannot reload the signing keys", metadata: ["error": "\(error)"])
        }
    }

    /// Makes a new active key of `app`/`suite`; the previous one verifies until its tokens have expired. The
    /// entry `audit` makes of the new key is written with its activation, in one transaction.
    /// On a shared store this waits `store.propagationBound` between writing the key and activating it.
    func rotate(app: String, suite: TokenSuite, audit: @escaping @Sendable (KeyInfo) -> AuditEntry) async throws -> KeyInfo {
        let bound = store.propagationBound
        guard bound > .zero else { return try await change(audit: audit) { try $0.rotate(app: app, suite: suite) } }
        // A key made active at once (there was none) is the rotation: audited now; a pending one when activated.
        let pending = try await change(audit: { $0.state == .pending ? nil : audit($0) }) { draft in
            if let existing = draft.keys(app: app).first(where: { $0.suite == suite && $0.state == .pending }) {
                return existing
            }
            return try draft.generate(app: app, suite: suite)
        }
        // No active key before: `generate` made this one active, nothing to wait for.
        guard pending.state == .pending else { return pending }
        let knownEverywhere = pending.createdAt.addingTimeInterval(Self.seconds(bound))
        let wait = knownEverywhere.timeIntervalSinceNow
        if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000) + 1)) }
        return try await change(audit: audit) { draft in
            // Another instance may have activated this pending key meanwhile: then it is done.
            if let current = draft.keys(app: app).first(where: { $0.kid == pending.kid }), current.state != .pending {
                return current
            }
            return try draft.rotate(app: app, suite: suite)
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }

    // MARK: The store's key records

    /// Every key record in the store (each stored as its JSON).
    static func loadRecords(from store: StoreFront) async throws -> [KeyRecord] {
        let decoder = JSONDecoder()
        return try await store.keyRecords().map { stored in
            do { return try decoder.decode(KeyRecord.self, from: stored.record) } catch {
                throw LinkStoreError(.storage, "key record \(stored.app)/\(stored.kid) cannot be read: \(error)")
            }
        }
    }

    /// Writes `records` (each replacing the stored record of its app and kid) and `audit`, all or none.
    static func save(_ records: [KeyRecord], audit: AuditEntry?, to store: StoreFront) async throws {
        let encoder = JSONEncoder()
        let stored = try records.map { StoredKeyRecord(app: $0.app, kid: Int64($0.kid), record: try encoder.encode($0)) }
        try await store.saveKeyRecords(stored, audit: audit)
    }
}
