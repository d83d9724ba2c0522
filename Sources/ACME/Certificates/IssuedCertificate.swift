public import Foundation

/// A certificate the CA issued and its private key, as the daemon stores and reloads them (both PEM).
public struct IssuedCertificate: Sendable, Equatable {
    /// The leaf first, then the intermediates, PEM (as the CA sent them).
    public let certificateChainPEM: String
    /// The certificate's private key (P-256), unencrypted PKCS #8 PEM. Secret.
    public let privateKeyPEM: String
    /// The leaf's subjectAltName DNS names.
    public let hosts: [String]
    /// The start of the leaf's validity period.
    public let notBefore: Date
    /// The end of the leaf's validity period: renew well before.
    public let notAfter: Date

    /// Reads a stored chain and key back: the leaf's names and validity; `certificate` when either does not parse
    /// or the key is not the leaf's, `invalidArgument` when the key is not P-256.
    public static func parse(chainPEM: String, privateKeyPEM: String) throws -> IssuedCertificate {
        let key = try P256Key(pem: privateKeyPEM)
        return try parse(chainPEM: chainPEM, key: key, privateKeyPEM: privateKeyPEM)
    }

    /// Reads a certificate an operator gave (`tls.certificates`): the chain and a private key of any type OpenSSL
    /// reads (RSA, EC, Ed25519); `certificate` when either does not parse or the key is not the leaf's.
    public static func inspect(chainPEM: String, privateKeyPEM: String) throws -> IssuedCertificate {
        let chain = try X509Certificate.chain(pem: chainPEM)
        guard let leaf = chain.first else { throw ACMEError(.certificate, "the chain holds no certificate") }
        guard leaf.matches(privateKeyPEM: privateKeyPEM) else {
            throw ACMEError(.certificate, "the private key does not belong to the chain's first (leaf) certificate")
        }
        return IssuedCertificate(
            certificateChainPEM: chainPEM, privateKeyPEM: privateKeyPEM, hosts: leaf.dnsNames(),
            notBefore: try leaf.notBefore(), notAfter: try leaf.notAfter())
    }

    static func parse(chainPEM: String, key: P256Key, privateKeyPEM: String) throws -> IssuedCertificate {
        let chain = try X509Certificate.chain(pem: chainPEM)
        guard let leaf = chain.first else { throw ACMEError(.certificate, "the chain holds no certificate") }
        guard leaf.matches(key) else {
            throw ACMEError(.certificate, "the private key does not belong to the chain's first (leaf) certificate")
        }
        return IssuedCertificate(
            certificateChainPEM: chainPEM, privateKeyPEM: privateKeyPEM, hosts: leaf.dnsNames(),
            notBefore: try leaf.notBefore(), notAfter: try leaf.notAfter())
    }
}
