import Foundation
import Testing
import TokenSigning

/// Standard Webhooks signatures: the specification's own test vector, and secrets sealed at rest.
@Suite("Webhook secrets and signatures")
struct WebhookSecretTests {
    /// The Standard Webhooks specification's test vector (secret, message id, timestamp, body → signature).
    @Test("signs the specification's test vector")
    func specificationVector() throws {
        let secret = try WebhookSecret(text: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let signature = try secret.signature(
            messageID: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        // Any change of id, time or body changes it.
        #expect(try secret.signature(messageID: "msg_p5jXN8AQM9LWM0D4loKWxJeK", timestamp: 1_614_265_330,
                                     body: Array(#"{"test": 2432232314}"#.utf8)) != signature)
        #expect(try secret.signature(messageID: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_331,
                                     body: Array(#"{"test": 2432232314}"#.utf8)) != signature)
    }

    @Test("a new secret is whsec_ and 32 random bytes; it reads back; malformed ones are refused")
    func textForm() throws {
        let secret = WebhookSecret.generate()
        #expect(secret.text.hasPrefix("whsec_"))
        #expect(Data(base64Encoded: String(secret.text.dropFirst(6)))?.count == 32)
        #expect(try WebhookSecret(text: secret.text).text == secret.text)
        #expect(WebhookSecret.generate().text != secret.text)
        #expect("\(secret)" == "WebhookSecret(redacted)")
        for bad in ["", "whsec_", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_c2hvcnQ=", "whsec_not base64!",
                    "whsec_" + Data(count: 65).base64EncodedString()] {
            #expect(throws: TokenError.self) { try WebhookSecret(text: bad) }
        }
    }

    @Test("sealed at rest: opens with the master key and endpoint it was sealed for, and only with them")
    func sealing() throws {
        let master = try MasterKey(bytes: SecureRandom.bytes(32))
        let secret = WebhookSecret.generate()
        let sealed = try secret.sealed(with: master, endpointID: "wh_a")
        #expect(!Data(sealed).base64EncodedString().contains(secret.text.dropFirst(6)))
        let opened = try WebhookSecret(sealed: sealed, masterKey: master, endpointID: "wh_a")
        #expect(opened.text == secret.text)
        #expect(throws: TokenError.self) { try WebhookSecret(sealed: sealed, masterKey: master, endpointID: "wh_b") }
        let other = try MasterKey(bytes: SecureRandom.bytes(32))
        #expect(throws: TokenError.self) { try WebhookSecret(sealed: sealed, masterKey: other, endpointID: "wh_a") }
    }
}
