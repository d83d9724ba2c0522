import Foundation

/// Deterministic test vectors for the token format (docs/token-vectors.json). The keys are TEST-ONLY.
public enum TokenVectors {
    /// The fixed "now" of every vector, unix seconds.
    public static let now: UInt32 = 1_800_000_000

    struct TestKey {
        let app: String
        let kid: UInt32
        let suite: TokenSuite
        let secret: [UInt8]
        let state: KeyState
        let verifyUntil: UInt32?
    }

    static let keys: [TestKey] = [
        TestKey(app: "example", kid: 1, suite: .hmacSHA256, secret: Array(0..<32), state: .active, verifyUntil: nil),
        TestKey(app: "example", kid: 2, suite: .ed25519, secret: Array(32..<64), state: .active, verifyUntil: nil),
        TestKey(app: "example", kid: 3, suite: .hmacSHA256, secret: Array(64..<96), state: .verifyOnly, verifyUntil: now - 1),
        TestKey(app: "other", kid: 1, suite: .hmacSHA256, secret: Array(0..<32), state: .active, verifyUntil: nil),
    ]

    /// A keyring holding the test keys (sealed under a fixed test master key).
    public static func keyring() throws -> Keyring {
        let master = try MasterKey(bytes: [UInt8](repeating: 0x4d, count: 32))
        let records = try keys.map { key in
            let sealed = try AESGCM.seal(key.secret, key: master.bytes, aad: KeyRecord.sealingAAD(app: key.app, kid: key.kid))
            let publicKey = key.suite == .ed25519 ? try Ed25519Key(seed: key.secret).publicKey : []
            return KeyRecord(
                app: key.app, kid: key.kid, suite: key.suite, state: key.state, createdAt: Date(timeIntervalSince1970: 0),
                verifyUntil: key.verifyUntil.map { Date(timeIntervalSince1970: TimeInterval($0)) },
                maxTokenLifetime: Keyring.maxTokenLifetimeCap, publicKey: publicKey, sealedSecret: sealed)
        }
        return try Keyring(records: records, masterKey: master)
    }

    static func sign(_ claims: TokenClaims, app: String, secret: [UInt8]) throws -> String {
        let prefix = TokenLayout.contextPrefix(app: app)
        let algorithm: TokenSigner.Algorithm = claims.suite == .hmacSHA256
            ? .hmac(try HMACSHA256(key: secret, prefix: prefix)) : .ed25519(try Ed25519Key(seed: secret))
        return try TokenSigner(prefix: prefix, algorithm: algorithm).sign(claims)
    }

    struct Vector {
        let name: String
        let app: String
        let token: String
        let error: TokenError.Code?
        let claims: TokenClaims?
    }

    static func vectors() throws -> [Vector] {
        let link = LinkID(unchecked: Array(0xa0..<0xb0))
        let hmacClaims = TokenClaims(suite: .hmacSHA256, keyID: 1, linkID: link, expiresAt: now + 604_800, generation: 1, flags: 0)
        let edClaims = TokenClaims(suite: .ed25519, keyID: 2, linkID: link, expiresAt: now + 3600, generation: 0, flags: 1)
        let maxClaims = TokenClaims(suite: .hmacSHA256, keyID: 1, linkID: link, expiresAt: now + 60,
                                    generation: .max, flags: 0xff)
        let leeway = TokenClaims(suite: .hmacSHA256, keyID: 1, linkID: link, expiresAt: now - Keyring.expiryLeeway,
                                 generation: 0, flags: 0)
        let expired = TokenClaims(suite: .hmacSHA256, keyID: 1, linkID: link, expiresAt: now - Keyring.expiryLeeway - 1,
                                  generation: 0, flags: 0)
        let hmacSecret = keys[0].secret, edSecret = keys[1].secret
        let hmac = try sign(hmacClaims, app: "example", secret: hmacSecret)
        let ed = try sign(edClaims, app: "example", secret: edSecret)
        var bytes = Base64URL.decode(hmac) ?? []
        func variant(_ change: (inout [UInt8]) -> Void) -> String {
            var copy = bytes
            change(&copy)
            return Base64URL.encode(copy)
        }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var chars = Array(hmac.utf8)
        let lastIndex = alphabet.firstIndex(of: chars[chars.count - 1]) ?? 0
        chars[chars.count - 1] = alphabet[lastIndex ^ 1]
        let nonCanonical = String(decoding: chars, as: UTF8.self)
        var plus = Array(hmac.utf8)
        plus[10] = UInt8(ascii: "+")
        var retiredClaims = hmacClaims
        retiredClaims.keyID = 3
        let retired = try sign(retiredClaims, app: "example", secret: keys[2].secret)
        var mismatchClaims = hmacClaims
        mismatchClaims.keyID = 2
        let mismatch = try sign(mismatchClaims, app: "example", secret: hmacSecret)
        var unknownClaims = hmacClaims
        unknownClaims.keyID = 77
        let unknown = try sign(unknownClaims, app: "example", secret: hmacSecret)
        let result: [Vector] = [
            Vector(name: "valid HMAC-SHA256 token", app: "example", token: hmac, error: nil, claims: hmacClaims),
            Vector(name: "valid Ed25519 token", app: "example", token: ed, error: nil, claims: edClaims),
            Vector(name: "valid, maximum generation and flags", app: "example",
                   token: try sign(maxClaims, app: "example", secret: hmacSecret), error: nil, claims: maxClaims),
            Vector(name: "valid, expired but within the 60 s leeway", app: "example",
                   token: try sign(leeway, app: "example", secret: hmacSecret), error: nil, claims: leeway),
            Vector(name: "expired past the leeway", app: "example",
                   token: try sign(expired, app: "example", secret: hmacSecret), error: .expired, claims: nil),
            Vector(name: "last tag bit flipped", app: "example", token: variant { $0[$0.count - 1] ^= 1 }, error: .badSignature, claims: nil),
            Vector(name: "link id bit flipped", app: "example", token: variant { $0[5] ^= 0x80 }, error: .badSignature, claims: nil),
            Vector(name: "Ed25519 signature bit flipped", app: "example",
                   token: { var e = Base64URL.decode(ed) ?? []; e[40] ^= 4; return Base64URL.encode(e) }(), error: .badSignature, claims: nil),
            Vector(name: "different app context", app: "other", token: hmac, error: .badSignature, claims: nil),
            Vector(name: "app without keys", app: "nobody", token: hmac, error: .unknownKey, claims: nil),
            Vector(name: "unknown key id", app: "example", token: unknown, error: .unknownKey, claims: nil),
            Vector(name: "suite byte does not match the key's suite", app: "example", token: mismatch, error: .suiteMismatch, claims: nil),
            Vector(name: "verify-only key past its verify-until", app: "example", token: retired, error: .retiredKey, claims: nil),
            Vector(name: "unknown suite byte", app: "example", token: variant { $0[0] = 3 }, error: .malformed, claims: nil),
            Vector(name: "HMAC suite with Ed25519 length", app: "example", token: variant { $0 += [UInt8](repeating: 0, count: 32) }, error: .malformed, claims: nil),
            Vector(name: "one byte truncated", app: "example", token: variant { $0.removeLast() }, error: .malformed, claims: nil),
            Vector(name: "one byte appended", app: "example", token: variant { $0.append(0) }, error: .malformed, claims: nil),
            Vector(name: "padding '='", app: "example", token: hmac + "=", error: .malformed, claims: nil),
            Vector(name: "non-canonical last character (non-zero trailing bits)", app: "example", token: nonCanonical, error: .malformed, claims: nil),
            Vector(name: "'+' from the standard alphabet", app: "example", token: String(decoding: plus, as: UTF8.self), error: .malformed, claims: nil),
            Vector(name: "empty", app: "example", token: "", error: .malformed, claims: nil),
        ]
        bytes = []
        return result
    }

    /// The JSON text of docs/token-vectors.json; identical bytes on every run.
    public static func generate() throws -> String {
        var out = "{\n"
        out += "  \"name\": \"linkd share token v1 test vectors\",\n"
        out += "  \"format\": \"docs/token-format.md\",\n"
        out += "  \"warning\": \"TEST-ONLY KEYS. Never use these keys for anything but checking an implementation.\",\n"
        out += "  \"now\": \(now),\n"
        out += "  \"expiryLeewaySeconds\": \(Keyring.expiryLeeway),\n"
        out += "  \"keys\": [\n"
        out += try keys.map { key in
            var fields = [
                "\"app\": \"\(key.app)\"", "\"kid\": \(key.kid)", "\"suite\": \"\(key.suite.name)\"",
                "\"state\": \"\(key.state.rawValue)\"",
                "\"secretHex\": \"\(Hex.encode(key.secret))\"",
            ]
            if key.suite == .ed25519 { fields.append("\"publicKeyHex\": \"\(Hex.encode(try Ed25519Key(seed: key.secret).publicKey))\"") }
            if let until = key.verifyUntil { fields.append("\"verifyUntil\": \(until)") }
            return "    {" + fields.joined(separator: ", ") + "}"
        }.joined(separator: ",\n")
        out += "\n  ],\n  \"vectors\": [\n"
        out += try vectors().enumerated().map { index, v in
            var fields = [
                "\"id\": \(index + 1)", "\"name\": \"\(v.name)\"", "\"app\": \"\(v.app)\"", "\"token\": \"\(v.token)\"",
                "\"expect\": \"\(v.error == nil ? "valid" : "invalid")\"",
            ]
            if let error = v.error { fields.append("\"error\": \"\(error)\"") }
            if let c = v.claims {
                fields.append("\"claims\": {\"suite\": \"\(c.suite.name)\", \"kid\": \(c.keyID), \"linkId\": \"\(c.linkID.hex)\", \"expiresAt\": \(c.expiresAt), \"generation\": \(c.generation), \"flags\": \(c.flags)}")
            }
            return "    {" + fields.joined(separator: ", ") + "}"
        }.joined(separator: ",\n")
        out += "\n  ]\n}\n"
        return out
    }
}
