import Foundation
import OutboundHTTP

/// An ACME (RFC 8555) client for one CA: accounts, and certificates proved by HTTP-01. Each call is one
/// conversation of its own (directory, nonces), over `OutboundHTTP`, every request under the configured limits,
/// never through the environment's proxy. Every failure is an `ACMEError` (task cancellation aside).
public struct ACMEClient: Sendable {
    /// The CA and the limits.
    public let configuration: ACMEClientConfiguration

    /// A client for the CA `configuration` names; nothing is sent until a call.
    public init(configuration: ACMEClientConfiguration) {
        self.configuration = configuration
    }

    /// The URL of the account of `key` (RFC 8555 §7.3), creating it with the terms of service agreed and the
    /// configured contact; the same key gives the same URL again.
    public func account(key: ACMEAccountKey) async throws -> String {
        let session = try await ACMESession.open(configuration)
        return try await account(key: key, session: session)
    }

    func account(key: ACMEAccountKey, session: ACMESession) async throws -> String {
        let contact = configuration.contactEmail.map { ["mailto:" + $0] }
        let payload = try JWS.encoder.encode(Resources.NewAccount(termsOfServiceAgreed: true, contact: contact))
        let response = try await session.post(
            session.directory.newAccount, payload: Array(payload), signer: .jwk, key: key, what: "creating the ACME account")
        guard let location = response.header("Location"), !location.isEmpty else {
            throw ACMEError(.badResponse, "the CA created the account but sent no Location (account URL)", status: response.status)
        }
        try session.checkOrigin(location)
        return location
    }

    /// A certificate for `hosts` (the first is also the subject's CN): a new order, each authorization proved by
    /// HTTP-01 through `challenges` (published while the CA validates, withdrawn afterwards), a CSR for a fresh P-256
    /// key, the order polled until issued, and the chain downloaded.
    /// - Parameters:
    ///   - hosts: DNS names that reach this daemon on port 80; lowercased, duplicates dropped.
    ///   - accountKey: the account's key.
    ///   - accountURL: the URL `account(key:)` returned for that key.
    ///   - challenges: where the key authorizations are served from.
    /// - Throws: `ACMEError`: `challengeFailed` when the CA could not fetch a key authorization, `orderFailed`,
    ///   `problem`, `timeout`, `network`, `badResponse`, `directory`, `invalidArgument`, `crypto`, `certificate`.
    public func issueCertificate(
        hosts: [String], accountKey: ACMEAccountKey, accountURL: String, challenges: some HTTP01Responder
    ) async throws -> IssuedCertificate {
        let hosts = try HostNames.normalized(hosts)
        let session = try await ACMESession.open(configuration)
        try session.checkOrigin(accountURL)
        var published: [String] = []
        do {
            let certificate = try await issue(
                hosts: hosts, session: session, key: accountKey, accountURL: accountURL, challenges: challenges, published: &published)
            for token in published { await challenges.withdraw(token: token) }
            return certificate
        } catch {
            for token in published { await challenges.withdraw(token: token) }
            throw error
        }
    }
}
