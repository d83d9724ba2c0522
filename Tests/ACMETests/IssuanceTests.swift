import ACME
import Foundation
import Synchronization
import Testing

/// Certificates from a real pebble over HTTP-01: pebble resolves every name to 127.0.0.1 (pebble-challtestsrv) and
/// fetches the key authorization from `ChallengeServer` on its HTTP-01 port.
@Suite struct IssuanceTests {
    @Test func issuesAChainThatVerifiesAgainstPebblesRoot() async throws {
        let pebble = try TestPebble.require()
        try ChallengeServer.start(port: pebble.httpPort)
        let client = pebble.client()
        let key = try ACMEAccountKey.generate()
        let account = try await client.account(key: key)
        let issued = try await client.issueCertificate(
            hosts: ["acme.handz.example", "Coin.example", "coin.example"], accountKey: key, accountURL: account,
            challenges: ChallengeServer.challenges)
        #expect(Set(issued.hosts) == ["acme.handz.example", "coin.example"])
        #expect(ChallengeServer.challenges.count == 0, "every token is withdrawn")

        let verdict = try ChainCheck.verify(issued, root: try await ChainCheck.issuingRoot(pebble))
        #expect(verdict.contains(": OK"), "\(verdict)")

        // The dates as OpenSSL's command line reads them, and plausible.
        let dates = try ChainCheck.dates(issued)
        #expect(issued.notBefore == dates.notBefore)
        #expect(issued.notAfter == dates.notAfter)
        #expect(issued.notBefore < Date().addingTimeInterval(300))
        #expect(issued.notAfter > Date().addingTimeInterval(86_400))

        // Stored and reloaded: the same certificate.
        let reloaded = try IssuedCertificate.parse(chainPEM: issued.certificateChainPEM, privateKeyPEM: issued.privateKeyPEM)
        #expect(reloaded == issued)
        // A key that is not the leaf's is refused.
        let otherKey = try ACMEAccountKey.generate().privateKeyPEM
        #expect { try IssuedCertificate.parse(chainPEM: issued.certificateChainPEM, privateKeyPEM: otherKey) } throws: {
            ($0 as? ACMEError)?.code == .certificate
        }
    }

    @Test func anUnansweredChallengeFailsAsChallengeFailed() async throws {
        let pebble = try TestPebble.require()
        try ChallengeServer.start(port: pebble.httpPort)  // answers 404: the token is never published there
        let client = pebble.client()
        let key = try ACMEAccountKey.generate()
        let account = try await client.account(key: key)
        let host = "unanswered-\(UInt32.random(in: 0...UInt32.max)).example"
        let responder = RecordingResponder()
        let started = ContinuousClock.now
        do {
            _ = try await client.issueCertificate(hosts: [host], accountKey: key, accountURL: account, challenges: responder)
            Issue.record("a certificate was issued without the challenge being answered")
        } catch let error as ACMEError {
            #expect(error.code == .challengeFailed, "\(error)")
            #expect(error.message.contains(host), "\(error)")
            #expect(error.problemType?.hasPrefix("urn:ietf:params:acme:error:") == true, "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(30))
        let calls = responder.calls.withLock { $0 }
        #expect(calls.count == 2 && calls.first?.hasPrefix("publish ") == true && calls.last?.hasPrefix("withdraw ") == true, "\(calls)")
    }
}

/// A responder that serves nothing and records what it was asked.
final class RecordingResponder: HTTP01Responder {
    let calls = Mutex<[String]>([])

    func publish(token: String, keyAuthorization: String) async { calls.withLock { $0.append("publish \(token)") } }
    func withdraw(token: String) async { calls.withLock { $0.append("withdraw \(token)") } }
}
