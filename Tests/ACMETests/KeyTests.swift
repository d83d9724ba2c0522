import ACME
import Foundation
import LinkdTestSupport
import Testing

/// The account key without a CA: RFC 7638's own thumbprint vector, the JWK against OpenSSL's command line, PEM
/// round trips, ES256 signatures.
@Suite struct KeyTests {
    @Test func thumbprintMatchesRFC7638Example() {
        // RFC 7638 §3.1: the RSA key of RFC 7517 appendix A.1 and its SHA-256 thumbprint.
        let n = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        #expect(JWKThumbprint.compute(members: ["kty": "RSA", "n": n, "e": "AQAB"]) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test func jwkAndThumbprintAgreeWithOpenSSLCommandLine() throws {
        let openssl = try ExternalTool.path("openssl", install: "apt-get install openssl")
        let key = try ACMEAccountKey.generate()
        #expect(key.jwk.crv == "P-256" && key.jwk.kty == "EC")
        // The public key as DER SubjectPublicKeyInfo: its last 65 bytes are 04 || x || y.
        let der = try ExternalTool.run(openssl, ["pkey", "-pubout", "-outform", "DER"], input: Array(key.privateKeyPEM.utf8))
        let point = Array(der.suffix(65))
        #expect(point.first == 0x04)
        #expect(base64url(Array(point[1...32])) == key.jwk.x)
        #expect(base64url(Array(point[33...64])) == key.jwk.y)
        // RFC 7638 for EC: {"crv":…,"kty":…,"x":…,"y":…} hashed by openssl.
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(key.jwk.x)","y":"\#(key.jwk.y)"}"#
        let digest = try ExternalTool.run(openssl, ["dgst", "-sha256", "-binary"], input: Array(canonical.utf8))
        #expect(base64url(digest) == key.thumbprint)
        #expect(key.keyAuthorization(token: "tok") == "tok." + key.thumbprint)
    }

    @Test func privateKeyPEMRoundTripsAndOtherKeysAreRefused() throws {
        let key = try ACMEAccountKey.generate()
        #expect(key.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let again = try ACMEAccountKey(privateKeyPEM: key.privateKeyPEM)
        #expect(again.jwk == key.jwk)
        #expect(again.thumbprint == key.thumbprint)

        let openssl = try ExternalTool.path("openssl", install: "apt-get install openssl")
        let sec1 = try ExternalTool.run(openssl, ["ec", "-outform", "PEM"], input: Array(key.privateKeyPEM.utf8))
        #expect(try ACMEAccountKey(privateKeyPEM: String(decoding: sec1, as: UTF8.self)).jwk == key.jwk)

        let p384 = try ExternalTool.run(openssl, ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        for wrong in [String(decoding: p384, as: UTF8.self), "not a key", ""] {
            #expect { try ACMEAccountKey(privateKeyPEM: wrong) } throws: { ($0 as? ACMEError)?.code == .invalidArgument }
        }
    }

    @Test func es256SignaturesAreRawAndVerify() throws {
        let key = try ACMEAccountKey.generate()
        let message = Array("protected.payload".utf8)
        for _ in 0..<20 {  // r or s with a leading zero byte must still be 32 bytes each
            let signature = try key.signES256(message)
            #expect(signature.count == 64)
            #expect(key.verifyES256(message, signature: signature))
            #expect(!key.verifyES256(Array("other".utf8), signature: signature))
        }
        #expect(!key.verifyES256(message, signature: [UInt8](repeating: 1, count: 64)))
    }

    private func base64url(_ bytes: some Collection<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
