import Benchmark
import Foundation
import TokenSigning

// Compare with OpenSSL's own Ed25519 figure: `openssl speed -seconds 3 ed25519` (see scripts/bench.sh output
// or run it by hand); the "verify/s" column is the reference.

let benchmarks: @Sendable () -> Void = {
    let now: UInt32 = 1_800_000_000
    // swiftlint:disable force_try — benchmark setup, not input handling.
    let master = try! MasterKey(bytes: [UInt8](repeating: 7, count: 32))
    let made = Date(timeIntervalSince1970: TimeInterval(now))
    let hmacKey = try! KeyRotation.generate(records: [], app: "bench", suite: .hmacSHA256, masterKey: master, now: made)
    let edKey = try! KeyRotation.generate(records: hmacKey.records, app: "bench", suite: .ed25519, masterKey: master, now: made)
    let keyring = try! Keyring(records: edKey.records, masterKey: master)
    let link = LinkID.random()
    let hmacToken = try! keyring.issue(app: "bench", suite: .hmacSHA256, linkID: link, expiresAt: now + 3600,
                                       generation: 1, flags: 0, now: now)
    let edToken = try! keyring.issue(app: "bench", suite: .ed25519, linkID: link, expiresAt: now + 3600,
                                     generation: 1, flags: 0, now: now)
    // The exact bytes the token MAC covers: prefix + app + 30 header bytes.
    let macInput = Array("linkd-token-v1".utf8) + [0, 0, 5] + Array("bench".utf8) + Array(Base64URL.decode(hmacToken)!.prefix(30))
    let rawKey = [UInt8](repeating: 0x42, count: 32)
    let prepared = try! RawCrypto.PreparedHMACSHA256(key: rawKey)

    Benchmark.defaultConfiguration = .init(metrics: [.throughput, .wallClock, .mallocCountTotal], maxDuration: .seconds(3),
                                           maxIterations: 10_000_000)

    Benchmark("HMAC token verify (decode + lookup + MAC + compare + expiry)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(keyring.verify(hmacToken, app: "bench", now: now))
        }
    }
    Benchmark("raw OpenSSL HMAC-SHA256 (pooled keyed EVP_MAC ctx, init(NULL key) + update + final, same bytes)") { benchmark in
        var tag = [UInt8](repeating: 0, count: 32)
        for _ in benchmark.scaledIterations {
            blackHole(prepared.authenticate(macInput, into: &tag))
        }
    }
    Benchmark("raw OpenSSL HMAC-SHA256 (one-shot: fetch + keyed init + ctx dup + re-init + update + final)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? RawCrypto.hmacSHA256(key: rawKey, message: macInput))
        }
    }
    Benchmark("Ed25519 token verify") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(keyring.verify(edToken, app: "bench", now: now))
        }
    }
}
