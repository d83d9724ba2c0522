import ACME
import Testing

/// `HTTP01Challenges`, the in-memory responder, and what the client refuses before any request.
@Suite struct ChallengesTests {
    @Test func publishesLooksUpAndWithdraws() async {
        let challenges = HTTP01Challenges()
        await challenges.publish(token: "abc_-123", keyAuthorization: "abc_-123.thumb")
        #expect(challenges.keyAuthorization(for: "abc_-123") == "abc_-123.thumb")
        #expect(challenges.keyAuthorization(forPath: "/.well-known/acme-challenge/abc_-123") == "abc_-123.thumb")
        for path in ["/.well-known/acme-challenge/", "/.well-known/acme-challenge/abc_-123/x", "/abc_-123", "/.well-known/acme-challenge/other"] {
            #expect(challenges.keyAuthorization(forPath: path) == nil, "\(path)")
        }
        #expect(challenges.count == 1)
        await challenges.withdraw(token: "abc_-123")
        #expect(challenges.keyAuthorization(for: "abc_-123") == nil)
        #expect(challenges.count == 0)
    }

    @Test func unusableHostNamesAreRefusedBeforeAnyRequest() async throws {
        // The directory URL leads nowhere: an error other than invalidArgument would mean a request was tried.
        let client = ACMEClient(configuration: ACMEClientConfiguration(directoryURL: "https://127.0.0.1:1/dir"))
        let key = try ACMEAccountKey.generate()
        for hosts in [[], ["*.links.handz.example"], ["192.0.2.1"], ["localhost"], ["a..example"], ["-x.example"], ["x y.example"]] {
            await #expect(throws: ACMEError.self, "\(hosts)") {
                do {
                    _ = try await client.issueCertificate(hosts: hosts, accountKey: key, accountURL: "https://127.0.0.1:1/acct/1",
                                                          challenges: HTTP01Challenges())
                } catch let error as ACMEError {
                    #expect(error.code == .invalidArgument, "\(hosts): \(error)")
                    throw error
                }
            }
        }
    }

    @Test func storedCertificatesThatDoNotParseAreRefused() throws {
        let key = try ACMEAccountKey.generate()
        #expect { try IssuedCertificate.parse(chainPEM: "no certificate", privateKeyPEM: key.privateKeyPEM) } throws: {
            ($0 as? ACMEError)?.code == .certificate
        }
        let broken = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
        #expect { try IssuedCertificate.parse(chainPEM: broken, privateKeyPEM: key.privateKeyPEM) } throws: {
            ($0 as? ACMEError)?.code == .certificate
        }
    }
}
