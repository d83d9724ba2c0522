import Foundation
import Testing
@testable import TokenSigning

/// A token whose key id is unknown has its tag checked anyway, against a decoy key of its suite, so how long a
/// rejection takes does not tell which key ids exist; the verdicts are what they were.
@Suite("Unknown key ids: the tag is checked anyway")
struct UnknownKeyTests {
    static func code(_ result: Result<TokenClaims, TokenError>) -> TokenError.Code? {
        if case .failure(let error) = result { return error.code }
        return nil
    }

    @Test("an unknown kid, an unknown app and a suite mismatch are checked with a decoy; known keys never are", arguments: TokenSuite.allCases)
    func decoyCheck(_ suite: TokenSuite) throws {
        let f = try Fixture()
        try f.generate(app: "handz", suite: suite, now: nowDate)
        let token = try f.keyring.issue(app: "handz", suite: suite, linkID: .random(), expiresAt: now + 3600, generation: 1, flags: 0, now: now)
        let bytes = try #require(Base64URL.decode(token))
        var unknownKid = bytes
        unknownKid[4] ^= 0x40
        var badTag = bytes
        badTag[bytes.count - 1] ^= 1

        func decoys(_ token: String, app: String = "handz") -> (TokenError.Code?, Int) {
            let before = f.keyring.decoyVerifications
            let code = Self.code(f.keyring.verify(token, app: app, now: now))
            return (code, f.keyring.decoyVerifications - before)
        }
        #expect(decoys(token) == (nil, 0), "a valid token: its own key only")
        #expect(decoys(Base64URL.encode(badTag)) == (.badSignature, 0), "a forged tag of a known key: its own key only")
        #expect(decoys(Base64URL.encode(unknownKid)) == (.unknownKey, 1), "an unknown kid: the decoy, once, same verdict as before")
        #expect(decoys(token, app: "nope") == (.unknownKey, 1), "an app without keys: the decoy")
        // A malformed token is refused before any key is looked at (its length and encoding are no secret).
        #expect(decoys("short") == (.malformed, 0))

        // A kid of the other suite: the decoy of the token's suite.
        let other: TokenSuite = suite == .hmacSHA256 ? .ed25519 : .hmacSHA256
        let otherKey = try f.generate(app: "handz", suite: other, now: nowDate)
        var mismatched = bytes
        mismatched.replaceSubrange(1..<5, with: withUnsafeBytes(of: otherKey.kid.bigEndian, Array.init))
        #expect(decoys(Base64URL.encode(mismatched)) == (.suiteMismatch, 1))
    }

    @Test("a key past its verify-until checks the tag with its own key and still answers retiredKey")
    func retiredKeyChecksItsOwnTag() throws {
        let f = try Fixture()
        try f.generate(app: "a", suite: .hmacSHA256, maxTokenLifetime: 86_400, now: nowDate)
        let old = try f.keyring.issue(app: "a", suite: .hmacSHA256, linkID: .random(), expiresAt: now + 86_400, generation: 0, flags: 0, now: now)
        try f.rotate(app: "a", suite: .hmacSHA256, now: nowDate)
        let before = f.keyring.decoyVerifications
        #expect(Self.code(f.keyring.verify(old, app: "a", now: now + 86_400 + Keyring.expiryLeeway + 1)) == .retiredKey)
        #expect(f.keyring.decoyVerifications == before)
    }
}
