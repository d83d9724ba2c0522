public import Foundation

/// What one key life-cycle step did to a set of key records.
public struct KeyChange: Sendable {
    /// Every record after the step: the next `Keyring` is made of these.
    public let records: [KeyRecord]
    /// The records the step made or altered, in the order it wrote them: what the caller persists.
    public let changed: [KeyRecord]
    /// The key the step was about: the one made, activated or retired.
    public let key: KeyRecord
}

/// The key life cycle (`pending → active → verifyOnly → retired`) as functions over key records: each takes the
/// records as they are and returns them as they become (`KeyChange`), touching no store and no keyring. The
/// caller persists the change and makes the next keyring of its records (`Keyring.replacing(records:)`).
public enum KeyRotation {
    /// Creates a key for `app`/`suite`, sealed with `masterKey`: the first one becomes active, later ones are
    /// pending. Its key id is one past the app's highest.
    public static func generate(
        records: [KeyRecord], app: String, suite: TokenSuite, masterKey: MasterKey,
        maxTokenLifetime: UInt32 = Keyring.maxTokenLifetimeCap, now: Date = Date()
    ) throws -> KeyChange {
        try checkApp(app)
        let hasActive = records.contains { $0.app == app && $0.suite == suite && $0.state == .active }
        let record = try makeRecord(
            app: app, suite: suite, state: hasActive ? .pending : .active, records: records, masterKey: masterKey,
            maxTokenLifetime: maxTokenLifetime, now: now)
        return change(records, writing: [record], about: record)
    }

    /// Makes a new key active — the app's pending key of `suite` when there is one, else a new key sealed with
    /// `masterKey`; the previous active key becomes verify-only until now + its max token lifetime + the leeway.
    public static func rotate(
        records: [KeyRecord], app: String, suite: TokenSuite, masterKey: MasterKey,
        maxTokenLifetime: UInt32 = Keyring.maxTokenLifetimeCap, now: Date = Date()
    ) throws -> KeyChange {
        try checkApp(app)
        let newRecord: KeyRecord
        if var pending = records.first(where: { $0.app == app && $0.suite == suite && $0.state == .pending }) {
            pending.state = .active
            pending.activatedAt = now
            newRecord = pending
        } else {
            newRecord = try makeRecord(
                app: app, suite: suite, state: .active, records: records, masterKey: masterKey,
                maxTokenLifetime: maxTokenLifetime, now: now)
        }
        var written: [KeyRecord] = []
        for var old in records where old.app == app && old.suite == suite && old.state == .active {
            old.state = .verifyOnly
            old.verifyUntil = now.addingTimeInterval(TimeInterval(old.maxTokenLifetime) + TimeInterval(Keyring.expiryLeeway))
            written.append(old)
        }
        written.append(newRecord)
        return change(records, writing: written, about: newRecord)
    }

    /// Retires key `keyID` of `app`: it no longer signs or verifies. `keyNotFound` when there is no such key.
    public static func retire(records: [KeyRecord], app: String, keyID: UInt32, now: Date = Date()) throws -> KeyChange {
        guard var record = records.first(where: { $0.app == app && $0.kid == keyID }) else {
            throw TokenError(.keyNotFound, "no key \(keyID) for app \(app)")
        }
        record.state = .retired
        record.retiredAt = now
        return change(records, writing: [record], about: record)
    }

    /// `records` with each of `written` in place of the record of its app and kid, or appended when new.
    private static func change(_ records: [KeyRecord], writing written: [KeyRecord], about key: KeyRecord) -> KeyChange {
        var result = records
        for record in written { record.place(in: &result) }
        return KeyChange(records: result, changed: written, key: key)
    }

    private static func makeRecord(
        app: String, suite: TokenSuite, state: KeyState, records: [KeyRecord], masterKey: MasterKey,
        maxTokenLifetime: UInt32, now: Date
    ) throws -> KeyRecord {
        guard maxTokenLifetime > 0, maxTokenLifetime <= Keyring.maxTokenLifetimeCap else {
            throw TokenError(.invalidArgument, "max token lifetime must be 1 s … 400 days")
        }
        let kid = (records.filter { $0.app == app }.map(\.kid).max() ?? 0) &+ 1
        let secret: [UInt8]
        let publicKey: [UInt8]
        switch suite {
        case .hmacSHA256:
            secret = SecureRandom.bytes(32)
            publicKey = []
        case .ed25519:
            let generated = try Ed25519Key.generate()
            secret = generated.seed
            publicKey = generated.key.publicKey
        }
        let sealed = try AESGCM.seal(secret, key: masterKey.bytes, aad: KeyRecord.sealingAAD(app: app, kid: kid))
        return KeyRecord(
            app: app, kid: kid, suite: suite, state: state, createdAt: now, activatedAt: state == .active ? now : nil,
            maxTokenLifetime: maxTokenLifetime, publicKey: publicKey, sealedSecret: sealed)
    }

    /// An app id a key may be made for: 1–64 printable ASCII characters without spaces.
    static func checkApp(_ app: String) throws {
        let bytes = app.utf8
        guard !bytes.isEmpty, bytes.count <= 64,
              bytes.allSatisfy({ $0 >= 0x21 && $0 < 0x7F }) else {
            throw TokenError(.invalidArgument, "app must be 1–64 printable ASCII characters without spaces")
        }
    }
}
