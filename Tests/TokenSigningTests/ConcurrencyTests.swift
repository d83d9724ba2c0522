import Foundation
import Testing
@testable import TokenSigning

/// The HMAC verifier keeps a shared pool of keyed OpenSSL contexts; these tests hammer one key from many tasks.
@Suite("Concurrent verification on one key")
struct ConcurrencyTests {
    @Test func manyTasksVerifyingTheSameKey() async throws {
        let f = try Fixture()
        let key = try f.generate(app: "handz", suite: .hmacSHA256, now: nowDate)
        // Distinct tokens (different links and generations) so a context mixing up two callers' input shows.
        var tokens: [(token: String, claims: TokenClaims)] = []
        for generation in UInt32(0)..<32 {
            let link = LinkID.random()
            let token = try f.keyring.issue(app: "handz", suite: .hmacSHA256, linkID: link, expiresAt: now + 3600,
                                            generation: generation, flags: UInt8(generation & 0xFF), now: now)
            tokens.append((token, TokenClaims(suite: .hmacSHA256, keyID: key.kid, linkID: link, expiresAt: now + 3600,
                                              generation: generation, flags: UInt8(generation & 0xFF))))
        }
        let cases = tokens
        let keyring = f.keyring
        let failures = await withTaskGroup(of: Int.self) { group in
            for task in 0..<64 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<300 {
                        let (token, claims) = cases[(task + round) % cases.count]
                        if round % 3 == 0 {
                            // Tamper with the last character (part of the tag): must be rejected.
                            var chars = Array(token.utf8)
                            chars[chars.count - 1] = chars[chars.count - 1] == UInt8(ascii: "A") ? UInt8(ascii: "Q") : UInt8(ascii: "A")
                            let result = keyring.verify(String(decoding: chars, as: UTF8.self), app: "handz", now: now)
                            if case .success = result { wrong += 1 }
                        } else {
                            let result = keyring.verify(token, app: "handz", now: now)
                            if (try? result.get()) != claims { wrong += 1 }
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }

    @Test func pooledContextsGiveTheRFCTagUnderContention() async throws {
        // RFC 4231 §4.3 test case 2, split into a prefix and a message.
        let data = Array("what do ya want for nothing?".utf8)
        let mac = try HMACSHA256(key: Array("Jefe".utf8), prefix: Array(data[..<9]))
        let message = Array(data[9...])
        let expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    var bad = 0
                    for _ in 0..<200 where (try? mac.authenticate(message)).map(Hex.encode) != expected { bad += 1 }
                    return bad
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        let pooled = mac.pooledContexts
        #expect(pooled >= 1 && pooled <= HMACSHA256.poolCapacity)
    }
}
