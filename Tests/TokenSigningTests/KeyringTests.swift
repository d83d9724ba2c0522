import Foundation
import Testing
@testable import TokenSigning

/// A fresh keyring in a temporary directory.
struct Fixture {
    let directory: String
    let store: FileKeyringStore
    let master: MasterKey
    let keyring: Keyring

    init() throws {
        directory = NSTemporaryDirectory() + "linkd-tokens-\(UUID().uuidString)"
        store = try FileKeyringStore(path: directory + "/keys.json")
        master = try MasterKey(bytes: SecureRandom.bytes(32))
        keyring = try Keyring(store: store, masterKey: master)
    }
}

let now: UInt32 = 1_800_000_000
let nowDate = Date(timeIntervalSince1970: TimeInterval(now))

@Suite("Keyring and tokens")
struct KeyringTests {
    @Test(arguments: TokenSuite.allCases)
    func roundTrip(_ suite: TokenSuite) throws {
        let f = try Fixture()
        let key = try f.keyring.generate(app: "handz", suite: suite, now: nowDate)
        #expect(key.state == .active)
        let link = LinkID.random()
        let token = try f.keyring.issue(app: "handz", suite: suite, linkID: link, expiresAt: now + 3600,
                                        generation: 7, flags: 3, now: now)
        #expect(token.utf8.count == (suite == .hmacSHA256 ? 83 : 126))
        let claims = try f.keyring.verify(token, app: "handz", now: now).get()
        #expect(claims == TokenClaims(suite: suite, keyID: key.kid, linkID: link, expiresAt: now + 3600, generation: 7, flags: 3))
        // A second keyring over the same store verifies it too.
        let other = try Keyring(store: f.store, masterKey: f.master)
        #expect((try? other.verify(token, app: "handz", now: now).get()) == claims)
    }

    static func code(_ r: Result<TokenClaims, TokenError>) -> TokenError.Code? {
        if case .failure(let e) = r { return e.code }
        return nil
    }

    @Test(arguments: TokenSuite.allCases)
    func mustFailTable(_ suite: TokenSuite) throws {
        let f = try Fixture()
        try f.keyring.generate(app: "handz", suite: suite, now: nowDate)
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
        try f.keyring.generate(app: "coin", suite: suite, now: nowDate)
        #expect(Self.code(f.keyring.verify(token, app: "coin", now: now)) != nil)
        #expect(Self.code(f.keyring.verify(token, app: "other", now: now)) == .unknownKey)
    }

    @Test func suiteKidMismatch() throws {
        let f = try Fixture()
        try f.keyring.generate(app: "a", suite: .hmacSHA256, now: nowDate)
        let ed = try f.keyring.generate(app: "a", suite: .ed25519, now: nowDate)
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
        let first = try f.keyring.generate(app: "a", suite: .hmacSHA256, maxTokenLifetime: 86_400, now: nowDate)
        let old = try f.keyring.issue(app: "a", suite: .hmacSHA256, linkID: .random(), expiresAt: now + 86_400,
                                      generation: 0, flags: 0, now: now)
        let second = try f.keyring.rotate(app: "a", suite: .hmacSHA256, now: nowDate)
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
        try f.keyring.retire(app: "a", keyID: first.kid, now: nowDate)
        #expect(Self.code(f.keyring.verify(old, app: "a", now: now + 100)) == .unknownKey)
        #expect(throws: TokenError.self) { try f.keyring.retire(app: "a", keyID: 999, now: nowDate) }
    }

    @Test func sealingAtRest() throws {
        let f = try Fixture()
        try f.keyring.generate(app: "a", suite: .hmacSHA256, now: nowDate)
        try f.keyring.generate(app: "a", suite: .ed25519, now: nowDate)
        let text = try String(contentsOfFile: f.store.path, encoding: .utf8)
        // Extract the secrets via the internal path and check none appears in the file, raw, hex or base64.
        for record in try f.store.loadKeyRecords() {
            let secret = try AESGCM.open(record.sealedSecret, key: f.master.bytes,
                                         aad: KeyRecord.sealingAAD(app: record.app, kid: record.kid))
            let raw = try #require(String(data: try Data(contentsOf: URL(fileURLWithPath: f.store.path)), encoding: .isoLatin1))
            #expect(!raw.contains(String(decoding: secret, as: Unicode.ASCII.self)))
            #expect(!text.contains(Hex.encode(secret)))
            #expect(!text.contains(Data(secret).base64EncodedString()))
            #expect(!text.contains(Base64URL.encode(secret)))
            #expect(!String(describing: record).contains(Hex.encode(secret)))
            #expect(!String(describing: record.sealedSecret.count > 0 ? record : record).contains("sealedSecret"))
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: f.store.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // A wrong master key fails clearly.
        let wrong = try MasterKey(bytes: SecureRandom.bytes(32))
        let error = #expect(throws: TokenError.self) { try Keyring(store: f.store, masterKey: wrong) }
        #expect(error?.code == .sealing)
        // Moving sealed material to another kid fails (AAD binds app and kid).
        var records = try f.store.loadKeyRecords()
        records[0].sealedSecret = records[1].sealedSecret
        try f.store.saveKeyRecord(records[0])
        #expect(throws: TokenError.self) { try Keyring(store: f.store, masterKey: f.master) }
    }

    @Test func failClosedWithoutKeys() throws {
        let f = try Fixture()
        #expect(throws: TokenError.self) {
            try f.keyring.issue(app: "a", suite: .ed25519, linkID: .random(), expiresAt: now + 1, generation: 0, flags: 0, now: now)
        }
        #expect(throws: TokenError.self) { try f.keyring.generate(app: "has space", suite: .ed25519) }
    }

    @Test func jwksHasPublicKeysOnly() throws {
        let f = try Fixture()
        let key = try f.keyring.generate(app: "a", suite: .ed25519, now: nowDate)
        try f.keyring.generate(app: "a", suite: .hmacSHA256, now: nowDate)
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
