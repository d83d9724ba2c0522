import Foundation
import LinkStore
import Logging
import TokenSigning

/// Changes to the signing keys, safe with many instances on one store.
///
/// Every change runs under the store's key lock on fresh records and is written all or none; other instances
/// reload through the change feed. A rotation on a shared store follows the key life cycle (docs/design.md) across
/// instances: the new key is written `pending`, linkd waits the store's propagation bound so that every instance
/// knows it, and only then makes it `active` — so no instance ever meets a token signed with a key it has not loaded.
struct KeyAdministration: Sendable {
    let store: StoreFront
    let keyStore: StoreKeyringStore
    let keyring: Keyring
    let logger: Logger
    /// Serializes this instance's changes and feed-driven reloads (a reload in the middle of a change would drop
    /// the change's uncommitted records).
    private let local = AsyncLock()

    /// Opens the keyring of `store` under `masterKey`.
    static func open(store: StoreFront, masterKey: MasterKey, logger: Logger) async throws -> KeyAdministration {
        let keyStore = try await StoreKeyringStore(store: store)
        let keyring: Keyring
        do {
            keyring = try Keyring(store: keyStore, masterKey: masterKey)
        } catch let error as TokenError {
            throw ConfigurationError(message: "the signing keys cannot be opened (is this the master key they were sealed with?): \(error.message)")
        }
        return KeyAdministration(store: store, keyStore: keyStore, keyring: keyring, logger: logger)
    }

    private init(store: StoreFront, keyStore: StoreKeyringStore, keyring: Keyring, logger: Logger) {
        self.store = store
        self.keyStore = keyStore
        self.keyring = keyring
        self.logger = logger
    }

    /// Runs `body` on the keyring under the store-wide key lock, with the store's current records, and writes
    /// what it changed together with the audit entry `audit` makes of its result (one transaction). On failure
    /// nothing is written and the keyring is back on the store's records.
    func change<T: Sendable>(
        audit: (@Sendable (T) -> AuditEntry?)? = nil, _ body: @escaping @Sendable (Keyring) throws -> T
    ) async throws -> T {
        try await store.withKeyLock { try await changeHoldingLock(audit: audit, body) }
    }

    /// `change` for a caller that holds the store's key lock already.
    func changeHoldingLock<T: Sendable>(
        audit: (@Sendable (T) -> AuditEntry?)? = nil, _ body: @escaping @Sendable (Keyring) throws -> T
    ) async throws -> T {
        try await local.run {
            try await keyStore.refresh()
            try keyring.reload()
            do {
                let value = try body(keyring)
                try await keyStore.commit(audit: audit?(value))
                return value
            } catch {
                try? await keyStore.refresh()
                try? keyring.reload()
                throw error
            }
        }
    }

    /// Reloads the keys after another instance changed them.
    func reload() async {
        do {
            try await local.run {
                try await keyStore.refresh()
                try keyring.reload()
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
        let pending = try await change(audit: { $0.state == .pending ? nil : audit($0) }) { keyring in
            if let existing = keyring.keys(app: app).first(where: { $0.suite == suite && $0.state == .pending }) {
                return existing
            }
            return try keyring.generate(app: app, suite: suite)
        }
        // No active key before: `generate` made this one active, nothing to wait for.
        guard pending.state == .pending else { return pending }
        let knownEverywhere = pending.createdAt.addingTimeInterval(Self.seconds(bound))
        let wait = knownEverywhere.timeIntervalSinceNow
        if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000) + 1)) }
        return try await change(audit: audit) { keyring in
            // Another instance may have activated this pending key meanwhile: then it is done.
            if let current = keyring.keys(app: app).first(where: { $0.kid == pending.kid }), current.state != .pending {
                return current
            }
            return try keyring.rotate(app: app, suite: suite)
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }
}
