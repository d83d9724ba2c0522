import Foundation
import Testing
@testable import TokenSigning

/// A fresh keyring in a temporary directory: its key changes go through `KeyRotation`, are written to the file,
/// and the keyring made of the new records takes the old one's place.
final class Fixture {
    let directory: String
    let file: KeyRecordFile
    let master: MasterKey
    private(set) var keyring: Keyring

    init() throws {
        directory = NSTemporaryDirectory() + "linkd-tokens-\(UUID().uuidString)"
        file = try KeyRecordFile(path: directory + "/keys.json")
        master = try MasterKey(bytes: SecureRandom.bytes(32))
        keyring = try Keyring(records: file.load(), masterKey: master)
    }

    /// `KeyRotation.generate` on the keyring's records, saved and put in place.
    @discardableResult
    func generate(app: String, suite: TokenSuite, maxTokenLifetime: UInt32 = Keyring.maxTokenLifetimeCap,
                  now: Date = Date()) throws -> KeyInfo {
        try apply(KeyRotation.generate(records: keyring.records, app: app, suite: suite, masterKey: master,
                                       maxTokenLifetime: maxTokenLifetime, now: now))
    }

    /// `KeyRotation.rotate` on the keyring's records, saved and put in place.
    @discardableResult
    func rotate(app: String, suite: TokenSuite, now: Date = Date()) throws -> KeyInfo {
        try apply(KeyRotation.rotate(records: keyring.records, app: app, suite: suite, masterKey: master, now: now))
    }

    /// `KeyRotation.retire` on the keyring's records, saved and put in place.
    @discardableResult
    func retire(app: String, keyID: UInt32, now: Date = Date()) throws -> KeyInfo {
        try apply(KeyRotation.retire(records: keyring.records, app: app, keyID: keyID, now: now))
    }

    private func apply(_ change: KeyChange) throws -> KeyInfo {
        let next = try keyring.replacing(records: change.records)
        try file.save(change.records)
        keyring = next
        return change.key.info
    }
}

let now: UInt32 = 1_800_000_000
let nowDate = Date(timeIntervalSince1970: TimeInterval(now))

@Suite("Keyring and tokens")
struct KeyringTests {
    @Test(arguments: TokenSuite.allCases)
    func roundTrip(_ suite: TokenSuite) throws {
        let f = try Fixture()
        let key = try f.generate(app: "handz", suite: suite, now: nowDate)
        #expect(key.state == .active)
        let link = LinkID.random()
        let token = try f.keyring.issue(app: "handz", suite: suite, linkID: link, expiresAt: now + 3600,
                                        generation: 7, flags: 3, now: now)
        #expect(token.utf8.count == (suite == .hmacSHA256 ? 83 : 126))
        let claims = try f.keyring.verify(token, app: "handz", now: now).get()
        #expect(claims == TokenClaims(suite: suite, keyID: key.kid, linkID: link, expiresAt: now + 3600, generation: 7, flags: 3))
        // A second keyring of the same file verifies it too.
        let other = try Keyring(records: f.file.load(), masterKey: f.master)
        #expect((try? other.verify(token, app: "handz", now: now).get()) == claims)
    }

    static func code(_ r: Result<TokenClaims, TokenError>) -> TokenError.Code? {
        if case .failure(let e) = r { return e.code }
        return nil
    }

    @Test(arguments: TokenSuite.allCases)
    func mustFailTable(_ suite: TokenSuite) throws {
        let f = try Fixture()
        try f.generate(app: "handz", suite: suite, now: nowDate)
        let token = try f.keyring.issue(app: "handz", suite: suite, linkID: .random(), expiresAt: now + 3600,
                                        generation: 1, flags: 0, now: now)
        let bytes = try #require(Base64URL.decode(token))
        // Every single-bit flip of the decoded token.
        for bit in 0..<(bytes.count * 8) {
            var flipped = bytes
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            let result = f.keyring.verify(Base64URL.encode(flipped), app: "handz", now: now)
            #expect(Self.code(result) != nil, "bit \(bit) flip accepted")
            if case .failure(let e) = result { #expect(e.publicVerdict == .unknown || e.code == .expired) }
        }
        // Every single-bit flip of the text (each character changed to each other alphabet character is too many;
        // flip each character to one neighbour).
        let chars = Array(token.utf8)
        for i in chars.indices {
            var changed = chars
            changed[i] = changed[i] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            #expect(Self.code(f.keyring.verify(String(decoding: changed, as: UTF8.self), app: "handz", now: now)) != nil)
        }
        // Each truncation and an appended byte/character.
        for length in 0..<chars.count {
            #expect(Self.code(f.keyring.verify(String(decoding: chars[..<length], as: UTF8.self), app: "handz", now: now)) != nil)
        }
        #expect(Self.code(f.keyring.verify(Base64URL.encode(bytes + [0]), app: "handz", now: now)) == .malformed)
        #expect(Self.code(f.keyring.verify(token + "A", app: "handz", now: now)) == .malformed)
        // Padding, non-canonical last character, + and /.
        #expect(Self.code(f.keyring.verify(token + "=", app: "handz", now: now)) == .malformed)
        #expect(Self.code(f.keyring.verify(token + "==", app: "handz", now: now)) == .malformed)
        var lastChanged = chars
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let lastIndex = alphabet.firstIndex(of: chars[chars.count - 1]) ?? 0
        lastChanged[chars.count - 1] = alphabet[lastIndex ^ 1]   // same decoded bits, non-zero trailing bit
        #expect(Self.code(f.keyring.verify(String(decoding: lastChanged, as: UTF8.self), app: "handz", now: now)) == .malformed)
        for bad in ["+", "/"] {
            let replaced = String(decoding: chars[..<10], as: UTF8.self) + bad + String(decoding: chars[11...], as: UTF8.self)
            #expect(Self.code(f.keyring.verify(replaced, app: "handz", now: now)) == .malformed)
        }
        // Unknown suite byte.
        var suiteByte = bytes
        suiteByte[0] = 9
        #expect(Self.code(f.keyring.verify(Base64URL.encode(suiteByte), app: "handz", now: now)) == .malformed)
        // Unknown kid.
        var kid = bytes
        kid[4] ^= 0x40
        #expect(Self.code(f.keyring.verify(Base64URL.encode(kid), app: "handz", now: now)) == .unknownKey)
        // Expiry: within the leeway passes, past it fails.
        #expect(Self.code(f.keyring.verify(token, app: "handz", now: now + 3600 + Keyring.expiryLeeway)) == nil)
        let expired = f.keyring.verify(token, app: "handz", now: now + 3600 + Keyring.expiryLeeway + 1)
        #expect(Self.code(expired) == .expired)
        if case .failure(let e) = expired { #expect(e.publicVerdict == .expired) }
        // A different app context.
        try f.generate(app: "coin", suite: suite, now: nowDate)
        #expect(Self.code(f.keyring.verify(token, app: "coin", now: now)) != nil)
        #expect(Self.code(f.keyring.verify(token, app: "other", now: now)) == .unknownKey)
    }

    @Test func suiteKidMismatch() throws {
        let f = try Fixture()
        try f.generate(app: "a", suite: .hmacSHA256, now: nowDate)
        let ed = try f.generate(app: "a", suite: .ed25519, now: nowDate)
        let token = try f.keyring.issue(app: "a", suite: .hmacSHA256, linkID: .random(), expiresAt: now + 60,
                                        generation: 0, flags: 0, now: now)
        var bytes = try #require(Base64URL.decode(token))
        bytes.replaceSubrange(1..<5, with: [0, 0, 0, UInt8(ed.kid)])
        let result = f.keyring.verify(Base64URL.encode(bytes), app: "a", now: now)
        #expect(Self.code(result) == .suiteMismatch)
        if case .failure(let e) = result { #expect(e.publicVerdict == .unknown) }
    }

    @Test func rotationAndRetire() throws {
        let f = try Fixture()
        let first = try f.generate(app: "a", suite: .hmacSHA256, maxTokenLifetime: 86_400, now: nowDate)
        let old = try f.keyring.issue(app: "a", suite: .hmacSHA256, linkID: .random(), expiresAt: now + 86_400,
                                      generation: 0, flags: 0, now: now)
        let second = try f.rotate(app: "a", suite: .hmacSHA256, now: nowDate)
        #expect(second.kid != first.kid)
        let states = f.keyring.keys(app: "a").map(\.state)
        #expect(states == [.verifyOnly, .active])
        let until = try #require(f.keyring.keys(app: "a").first?.verifyUntil)
        #expect(until == nowDate.addingTimeInterval(86_400 + TimeInterval(Keyring.expiryLeeway)))
        // The old token still verifies, until the key's verify-until.
        #expect(Self.code(f.keyring.verify(old, app: "a", now: now + 100)) == nil)
        let new = try f.keyring.issue(app: "a", suite: .hmacSHA256, linkID: .random(), expiresAt: now + 600,
                                      generation: 0, flags: 0, now: now)
        #expect(try f.keyring.verify(new, app: "a", now: now).get().keyID == second.kid)
        let pastUntil = now + 86_400 + Keyring.expiryLeeway + 1
        #expect(Self.code(f.keyring.verify(old, app: "a", now: pastUntil)) == .retiredKey)
        // Retire: fails at once.
        try f.retire(app: "a", keyID: first.kid, now: nowDate)
        #expect(Self.code(f.keyring.verify(old, app: "a", now: now + 100)) == .unknownKey)
        #expect(throws: TokenError.self) { try f.retire(app: "a", keyID: 999, now: nowDate) }
    }

    @Test func rotationIsAFunctionOverRecords() throws {
        let master = try MasterKey(bytes: SecureRandom.bytes(32))
        let first = try KeyRotation.generate(records: [], app: "a", suite: .hmacSHA256, masterKey: master, now: nowDate)
        #expect(first.key.state == .active && first.changed.map(\.kid) == [1])
        let pending = try KeyRotation.generate(records: first.records, app: "a", suite: .hmacSHA256, masterKey: master, now: nowDate)
        #expect(pending.key.state == .pending && pending.changed.map(\.kid) == [2])
        let rotated = try KeyRotation.rotate(records: pending.records, app: "a", suite: .hmacSHA256, masterKey: master, now: nowDate)
        // The pending key is the one activated; the old active key verifies only; both are what the caller persists.
        #expect(rotated.key.kid == 2 && rotated.key.state == .active)
        #expect(rotated.changed.map(\.kid) == [1, 2])
        #expect(rotated.records.map(\.state) == [.verifyOnly, .active])
        // A keyring is not changed by a rotation: the one of the records before still signs with the first key.
        let before = try Keyring(records: pending.records, masterKey: master)
        let after = try before.replacing(records: rotated.records)
        let oldToken = try before.issue(app: "a", suite: .hmacSHA256, linkID: .random(), expiresAt: now + 60, generation: 0, flags: 0, now: now)
        let newToken = try after.issue(app: "a", suite: .hmacSHA256, linkID: .random(), expiresAt: now + 60, generation: 0, flags: 0, now: now)
        #expect(try before.verify(oldToken, app: "a", now: now).get().keyID == 1)
        #expect(try after.verify(newToken, app: "a", now: now).get().keyID == 2)
        #expect(try after.verify(oldToken, app: "a", now: now).get().keyID == 1)
        let retired = try KeyRotation.retire(records: rotated.records, app: "a", keyID: 1, now: nowDate)
        #expect(retired.key.state == .retired && retired.changed.map(\.kid) == [1] && retired.records.count == 2)
        #expect(throws: TokenError.self) { try KeyRotation.retire(records: rotated.records, app: "b", keyID: 1) }
    }

    @Test func sealingAtRest() throws {
        let f = try Fixture()
        try f.generate(app: "a", suite: .hmacSHA256, now: nowDate)
        try f.generate(app: "a", suite: .ed25519, now: nowDate)
        let text = try String(contentsOfFile: f.file.path, encoding: .utf8)
        // Extract the secrets via the internal path and check none appears in the file, raw, hex or base64.
        for record in try f.file.load() {
            let secret = try AESGCM.open(record.sealedSecret, key: f.master.bytes,
                                         aad: KeyRecord.sealingAAD(app: record.app, kid: record.kid))
            let raw = try #require(String(data: try Data(contentsOf: URL(fileURLWithPath: f.file.path)), encoding: .isoLatin1))
            #expect(!raw.contains(String(decoding: secret, as: Unicode.ASCII.self)))
            #expect(!text.contains(Hex.encode(secret)))
            #expect(!text.contains(Data(secret).base64EncodedString()))
            #expect(!text.contains(Base64URL.encode(secret)))
            #expect(!String(describing: record).contains(Hex.encode(secret)))
            #expect(!String(describing: record.sealedSecret.count > 0 ? record : record).contains("sealedSecret"))
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: f.file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // A wrong master key fails clearly.
        let wrong = try MasterKey(bytes: SecureRandom.bytes(32))
        let error = #expect(throws: TokenError.self) { try Keyring(records: f.file.load(), masterKey: wrong) }
        #expect(error?.code == .sealing)
        // Moving sealed material to another kid fails (AAD binds app and kid).
        var records = try f.file.load()
        records[0].sealedSecret = records[1].sealedSecret
        try f.file.save(records)
        #expect(throws: TokenError.self) { try Keyring(records: f.file.load(), masterKey: f.master) }
    }

    @Test func failClosedWithoutKeys() throws {
        let f = try Fixture()
        #expect(throws: TokenError.self) {
            try f.keyring.issue(app: "a", suite: .ed25519, linkID: .random(), expiresAt: now + 1, generation: 0, flags: 0, now: now)
        }
        #expect(throws: TokenError.self) { try f.generate(app: "has space", suite: .ed25519) }
    }

    @Test func jwksHasPublicKeysOnly() throws {
        let f = try Fixture()
        let key = try f.generate(app: "a", suite: .ed25519, now: nowDate)
        try f.generate(app: "a", suite: .hmacSHA256, now: nowDate)
        let json = try #require(JSONSerialization.jsonObject(with: Data(f.keyring.jwks(app: "a").utf8)) as? [String: Any])
        let keys = try #require(json["keys"] as? [[String: String]])
        #expect(keys.count == 1)
        #expect(keys[0]["kty"] == "OKP" && keys[0]["crv"] == "Ed25519" && keys[0]["kid"] == "\(key.kid)")
        #expect(keys[0]["alg"] == "EdDSA" && keys[0]["d"] == nil)
        #expect(Base64URL.decode(keys[0]["x"] ?? "")?.count == 32)
    }

    @Test func masterKeyFile() throws {
        let dir = NSTemporaryDirectory() + "linkd-mk-\(UUID().uuidString)"
        let a = try MasterKey.loadOrCreate(at: dir + "/master.key", environment: [:])
        let b = try MasterKey.loadOrCreate(at: dir + "/master.key", environment: [:])
        #expect(a.bytes == b.bytes)
        #expect(!String(describing: a).contains(Base64URL.encode(a.bytes)))
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/master.key")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(throws: TokenError.self) { try MasterKey.loadOrCreate(at: dir + "/x", environment: ["LINKD_MASTER_KEY": "short"]) }
    }
}
