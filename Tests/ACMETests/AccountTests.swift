@testable import ACME
import Testing

/// Accounts on a real pebble: created once per key, found again by the same key; a stale nonce is retried.
@Suite struct AccountTests {
    @Test func sameKeyGivesTheSameAccountURL() async throws {
        let pebble = try TestPebble.require()
        let client = pebble.client()
        let key = try ACMEAccountKey.generate()
        let first = try await client.account(key: key)
        #expect(first.hasPrefix("https://127.0.0.1:14000/"))
        #expect(try await client.account(key: key) == first)
        // The key reloaded from its PEM is the same account.
        #expect(try await client.account(key: ACMEAccountKey(privateKeyPEM: key.privateKeyPEM)) == first)
        // Another key, another account.
        #expect(try await client.account(key: ACMEAccountKey.generate()) != first)
    }

    @Test func aRejectedNonceIsRetriedOnceWithTheFreshOne() async throws {
        let pebble = try TestPebble.require()
        let client = pebble.client()
        let session = try await ACMESession.open(client.configuration)
        session.nonce = "bm90LWEtcGViYmxlLW5vbmNl"  // pebble answers badNonce, with a fresh Replay-Nonce
        let key = try ACMEAccountKey.generate()
        let url = try await client.account(key: key, session: session)
        #expect(try await client.account(key: key) == url)
    }

    @Test func withoutThePrivateCAFileTheHandshakeFailsAsNetwork() async throws {
        let pebble = try TestPebble.require()
        let client = ACMEClient(configuration: ACMEClientConfiguration(directoryURL: pebble.directoryURL))
        await #expect { _ = try await client.account(key: ACMEAccountKey.generate()) } throws: { error in
            guard let error = error as? ACMEError else { return false }
            return error.code == .network && error.message.contains("caCertificatesFile")
        }
    }
}
