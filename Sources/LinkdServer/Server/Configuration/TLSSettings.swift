import LinkRouter

/// One certificate an operator gives: a PEM chain (leaf first) and its PEM private key.
public struct CertificateFiles: Sendable, Equatable {
    /// The chain's file.
    public var certificate: String
    /// The private key's file (RSA, EC or Ed25519).
    public var privateKey: String

    /// A chain and its key.
    public init(certificate: String, privateKey: String) {
        self.certificate = certificate
        self.privateKey = privateKey
    }
}

/// HTTPS: a TLS listener beside the plain one, certificates chosen by SNI.
public struct TLSSettings: ConfigurationSection {
    /// `tls.port` / `LINKD_TLS_PORT` (0–65535): the TLS listener's port; none (the default): no TLS listener; 0 picks
    /// a free port.
    public var port: Int?
    /// `tls.host` / `LINKD_TLS_HOST`: its address; none: the plain listener's `host`.
    public var host: String?
    /// `tls.certificates` (a list of `{certificate, privateKey}`) / `LINKD_TLS_CERTIFICATES` (`chain.pem:key.pem,…`):
    /// PEM files, re-read on `SIGHUP` and when they change; each serves the DNS names of its leaf (`*.example.com` too).
    public var certificates: [CertificateFiles] = []
    /// `tls.redirectHTTP` / `LINKD_TLS_REDIRECT`: the plain listener answers `308` to the same URL over HTTPS, except
    /// `/.well-known/acme-challenge/`, `/healthz`, `/readyz` and `/metrics`.
    public var redirectHTTP = false
    /// `tls.hstsMaxAgeSeconds` / `LINKD_HSTS_MAX_AGE` (0–63072000; 0: none): `Strict-Transport-Security` on every
    /// HTTPS answer.
    public var hstsMaxAgeSeconds = 0
    /// `tls.handshakeTimeoutSeconds` (0.1–60): a TLS handshake must be done within this time of the connection, else
    /// it is closed.
    public var handshakeTimeoutSeconds = 10.0

    /// No TLS listener.
    public init() {}

    /// Whether a TLS listener runs.
    public var isEnabled: Bool { port != nil }

    static var keys: [ConfigurationKey<Self>] {
        [
            .optionalInt("port", \.port, variable: "LINKD_TLS_PORT"), .optionalString("host", \.host, variable: "LINKD_TLS_HOST"),
            ConfigurationKey(
                name: "certificates", variable: "LINKD_TLS_CERTIFICATES",
                readValue: { settings, value, path in settings.certificates = try certificates(value, path: path) },
                readText: { settings, text in settings.certificates = try certificates(variable: text) }),
            .bool("redirectHTTP", \.redirectHTTP, variable: "LINKD_TLS_REDIRECT"),
            .int("hstsMaxAgeSeconds", \.hstsMaxAgeSeconds, variable: "LINKD_HSTS_MAX_AGE"),
            .double("handshakeTimeoutSeconds", \.handshakeTimeoutSeconds),
        ]
    }

    private static func certificates(_ value: YAMLValue, path: String) throws -> [CertificateFiles] {
        guard let items = value.items() else {
            throw ConfigurationError(message: "\(path):\(value.line): 'tls.certificates' must be a list of {certificate, privateKey}")
        }
        return try items.map { item in
            guard let fields = try? item.stringMapping(), let certificate = fields["certificate"], let key = fields["privateKey"],
                  fields.count == 2
            else {
                throw ConfigurationError(message: "\(path):\(item.line): each of 'tls.certificates' is {certificate: PEM file, privateKey: PEM file}")
            }
            return CertificateFiles(certificate: certificate, privateKey: key)
        }
    }

    /// `LINKD_TLS_CERTIFICATES`: `chain.pem:key.pem,…`.
    private static func certificates(variable value: String) throws -> [CertificateFiles] {
        try ManifestPaths.split(value).map { pair in
            let parts = pair.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ConfigurationError(message: "LINKD_TLS_CERTIFICATES: '\(pair)' is not chain.pem:key.pem")
            }
            return CertificateFiles(certificate: parts[0], privateKey: parts[1])
        }
    }

    /// Refuses settings that cannot work (that `port` differs from the plain one, and that certificates come from
    /// files or ACME, is the configuration's check).
    func validate() throws {
        guard let port else {
            if redirectHTTP || !certificates.isEmpty || hstsMaxAgeSeconds != 0 {
                throw ConfigurationError(message: "tls: certificates, redirectHTTP and hstsMaxAgeSeconds need tls.port")
            }
            return
        }
        guard (0...65_535).contains(port) else { throw ConfigurationError(message: "tls.port \(port) is out of range 0–65535") }
        guard (0...63_072_000).contains(hstsMaxAgeSeconds) else {
            throw ConfigurationError(message: "tls.hstsMaxAgeSeconds must be 0–63072000 (two years)")
        }
        guard (0.1...60).contains(handshakeTimeoutSeconds) else {
            throw ConfigurationError(message: "tls.handshakeTimeoutSeconds must be 0.1–60")
        }
    }
}

/// Automatic certificates from an ACME CA (RFC 8555) for every host of every app in force.
public struct ACMESettings: ConfigurationSection {
    /// `acme.directory` / `LINKD_ACME_DIRECTORY` (an https URL): the CA's directory; none (the default): no ACME.
    public var directory: String?
    /// `acme.email` / `LINKD_ACME_EMAIL`: the account's contact.
    public var email: String?
    /// `acme.caCertificates` / `LINKD_ACME_CA_CERTIFICATES` (a PEM file): a private CA to trust (such as pebble);
    /// none: the system's CAs.
    public var caCertificates: String?
    /// `acme.checkIntervalSeconds` (1–86400): how often the certificates and the apps' hosts are looked at (a host a
    /// manifest publish adds is ordered within this time).
    public var checkIntervalSeconds = 60.0
    /// `acme.retryBaseSeconds` (1–86400): the wait after a first failed order, doubling per failure, at most six hours.
    public var retryBaseSeconds = 30.0

    /// No ACME.
    public init() {}

    /// Whether certificates are obtained automatically.
    public var isEnabled: Bool { directory != nil }

    static var keys: [ConfigurationKey<Self>] {
        [
            .optionalString("directory", \.directory, variable: "LINKD_ACME_DIRECTORY"),
            .optionalString("email", \.email, variable: "LINKD_ACME_EMAIL"),
            .optionalString("caCertificates", \.caCertificates, variable: "LINKD_ACME_CA_CERTIFICATES"),
            .double("checkIntervalSeconds", \.checkIntervalSeconds), .double("retryBaseSeconds", \.retryBaseSeconds),
        ]
    }

    /// Refuses settings that cannot work (that ACME needs `tls.port` is the configuration's check).
    func validate() throws {
        guard let directory else { return }
        guard directory.hasPrefix("https://") else { throw ConfigurationError(message: "acme.directory must be an https:// URL") }
        guard (1...86_400).contains(checkIntervalSeconds), (1...86_400).contains(retryBaseSeconds) else {
            throw ConfigurationError(message: "acme.checkIntervalSeconds and acme.retryBaseSeconds must be 1–86400")
        }
        if let email, email.contains(where: { $0.isWhitespace }) || !email.contains("@") {
            throw ConfigurationError(message: "acme.email '\(email)' is not an address")
        }
    }
}
