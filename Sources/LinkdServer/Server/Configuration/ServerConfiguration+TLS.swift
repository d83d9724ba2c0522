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
///
/// Keys (YAML `tls:` mapping / environment — type — default):
/// - `port` / `LINKD_TLS_PORT` — Int 0–65535 — none (no TLS listener): 0 picks a free port.
/// - `host` / `LINKD_TLS_HOST` — String — the plain listener's `host`.
/// - `certificates` / `LINKD_TLS_CERTIFICATES` (`chain.pem:key.pem,…`) — [{certificate, privateKey}] — `[]`: PEM
///   files, re-read on `SIGHUP` and when they change; each serves the DNS names of its leaf (`*.example.com` too).
/// - `redirectHTTP` / `LINKD_TLS_REDIRECT` — Bool — `false`: the plain listener answers `308` to the same URL over
///   HTTPS, except `/.well-known/acme-challenge/`, `/healthz`, `/readyz` and `/metrics`.
/// - `hstsMaxAgeSeconds` / `LINKD_HSTS_MAX_AGE` — Int 0–63072000 — `0` (none): `Strict-Transport-Security` on every
///   HTTPS answer.
/// - `handshakeTimeoutSeconds` — Double 0.1–60 — `10`: a TLS handshake must be done within this time of the
///   connection, else it is closed.
public struct TLSSettings: Sendable, Equatable {
    public var port: Int?
    public var host: String?
    public var certificates: [CertificateFiles] = []
    public var redirectHTTP = false
    public var hstsMaxAgeSeconds = 0
    public var handshakeTimeoutSeconds = 10.0

    /// No TLS listener.
    public init() {}

    /// Whether a TLS listener runs.
    public var isEnabled: Bool { port != nil }

    /// Reads the `tls:` mapping of a configuration file; `path` names the file in messages.
    static func read(_ value: YAMLValue, path: String) throws -> TLSSettings {
        guard let entries = value.entries() else { throw ConfigurationError(message: "\(path):\(value.line): 'tls' must be a mapping") }
        var settings = TLSSettings()
        for (name, line, item) in entries {
            do {
                switch name {
                case "port": settings.port = try item.int()
                case "host": settings.host = try item.string()
                case "redirectHTTP": settings.redirectHTTP = try item.bool()
                case "hstsMaxAgeSeconds": settings.hstsMaxAgeSeconds = try item.int()
                case "handshakeTimeoutSeconds": settings.handshakeTimeoutSeconds = try item.double()
                case "certificates": settings.certificates = try certificates(item, path: path)
                default:
                    throw ConfigurationError(message: "\(path):\(line): unknown key 'tls.\(name)' (known: certificates, "
                        + "handshakeTimeoutSeconds, host, hstsMaxAgeSeconds, port, redirectHTTP)")
                }
            } catch let mismatch as YAMLValue.TypeMismatch {
                throw ConfigurationError(message: "\(path):\(line): 'tls.\(name)' must be \(mismatch.expected)")
            }
        }
        return settings
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

    /// `LINKD_TLS_*` and `LINKD_HSTS_MAX_AGE` over the file's settings.
    mutating func read(environment: [String: String]) throws {
        if let value = environment["LINKD_TLS_PORT"], !value.isEmpty {
            guard let number = Int(value) else { throw ConfigurationError(message: "LINKD_TLS_PORT: '\(value)' is not a port number") }
            port = number
        }
        if let value = environment["LINKD_TLS_HOST"], !value.isEmpty { host = value }
        if let value = environment["LINKD_TLS_CERTIFICATES"], !value.isEmpty {
            certificates = try ManifestPaths.split(value).map { pair in
                let parts = pair.split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw ConfigurationError(message: "LINKD_TLS_CERTIFICATES: '\(pair)' is not chain.pem:key.pem")
                }
                return CertificateFiles(certificate: parts[0], privateKey: parts[1])
            }
        }
        if let value = environment["LINKD_TLS_REDIRECT"], !value.isEmpty {
            guard let flag = Bool(value) else { throw ConfigurationError(message: "LINKD_TLS_REDIRECT: '\(value)' is not true or false") }
            redirectHTTP = flag
        }
        if let value = environment["LINKD_HSTS_MAX_AGE"], !value.isEmpty {
            guard let seconds = Int(value) else { throw ConfigurationError(message: "LINKD_HSTS_MAX_AGE: '\(value)' is not a number") }
            hstsMaxAgeSeconds = seconds
        }
    }

    /// Refuses settings that cannot work; `acme` says whether certificates may come from ACME instead of files.
    func validate(plainPort: Int, acme: Bool) throws {
        guard let port else {
            if redirectHTTP || !certificates.isEmpty || hstsMaxAgeSeconds != 0 {
                throw ConfigurationError(message: "tls: certificates, redirectHTTP and hstsMaxAgeSeconds need tls.port")
            }
            return
        }
        guard (0...65_535).contains(port) else { throw ConfigurationError(message: "tls.port \(port) is out of range 0–65535") }
        guard port == 0 || port != plainPort else { throw ConfigurationError(message: "tls.port must differ from port (\(port))") }
        guard !certificates.isEmpty || acme else {
            throw ConfigurationError(message: "tls.port is set but there are no certificates: give tls.certificates (PEM files) or acme: (automatic)")
        }
        guard (0...63_072_000).contains(hstsMaxAgeSeconds) else {
            throw ConfigurationError(message: "tls.hstsMaxAgeSeconds must be 0–63072000 (two years)")
        }
        guard (0.1...60).contains(handshakeTimeoutSeconds) else {
            throw ConfigurationError(message: "tls.handshakeTimeoutSeconds must be 0.1–60")
        }
    }
}

/// Automatic certificates from an ACME CA (RFC 8555) for every host of every app in force.
///
/// Keys (YAML `acme:` mapping / environment — type — default):
/// - `directory` / `LINKD_ACME_DIRECTORY` — https URL — none (no ACME): the CA's directory.
/// - `email` / `LINKD_ACME_EMAIL` — String — none: the account's contact.
/// - `caCertificates` / `LINKD_ACME_CA_CERTIFICATES` — PEM file — none (the system's CAs): to trust a private CA
///   such as pebble.
/// - `checkIntervalSeconds` — Double 1–86400 — `60`: how often the certificates and the apps' hosts are looked at
///   (a host a manifest publish adds is ordered within this time).
/// - `retryBaseSeconds` — Double 1–86400 — `30`: the wait after a first failed order, doubling per failure, at most
///   six hours.
public struct ACMESettings: Sendable, Equatable {
    public var directory: String?
    public var email: String?
    public var caCertificates: String?
    public var checkIntervalSeconds = 60.0
    public var retryBaseSeconds = 30.0

    /// No ACME.
    public init() {}

    /// Whether certificates are obtained automatically.
    public var isEnabled: Bool { directory != nil }

    /// Reads the `acme:` mapping of a configuration file.
    static func read(_ value: YAMLValue, path: String) throws -> ACMESettings {
        guard let entries = value.entries() else { throw ConfigurationError(message: "\(path):\(value.line): 'acme' must be a mapping") }
        var settings = ACMESettings()
        for (name, line, item) in entries {
            guard let text = try? item.string() else { throw ConfigurationError(message: "\(path):\(line): 'acme.\(name)' must be a scalar") }
            switch name {
            case "directory": settings.directory = text
            case "email": settings.email = text
            case "caCertificates": settings.caCertificates = text
            case "checkIntervalSeconds", "retryBaseSeconds":
                guard let seconds = Double(text), seconds.isFinite else {
                    throw ConfigurationError(message: "\(path):\(line): 'acme.\(name)' must be a number")
                }
                if name == "checkIntervalSeconds" { settings.checkIntervalSeconds = seconds } else { settings.retryBaseSeconds = seconds }
            default:
                throw ConfigurationError(message: "\(path):\(line): unknown key 'acme.\(name)' (known: caCertificates, "
                    + "checkIntervalSeconds, directory, email, retryBaseSeconds)")
            }
        }
        return settings
    }

    /// `LINKD_ACME_*` over the file's settings.
    mutating func read(environment: [String: String]) {
        if let value = environment["LINKD_ACME_DIRECTORY"], !value.isEmpty { directory = value }
        if let value = environment["LINKD_ACME_EMAIL"], !value.isEmpty { email = value }
        if let value = environment["LINKD_ACME_CA_CERTIFICATES"], !value.isEmpty { caCertificates = value }
    }

    /// Refuses settings that cannot work.
    func validate(tls: TLSSettings) throws {
        guard let directory else { return }
        guard directory.hasPrefix("https://") else { throw ConfigurationError(message: "acme.directory must be an https:// URL") }
        guard tls.isEnabled else { throw ConfigurationError(message: "acme needs tls.port (certificates are for the TLS listener)") }
        guard (1...86_400).contains(checkIntervalSeconds), (1...86_400).contains(retryBaseSeconds) else {
            throw ConfigurationError(message: "acme.checkIntervalSeconds and acme.retryBaseSeconds must be 1–86400")
        }
        if let email, email.contains(where: { $0.isWhitespace }) || !email.contains("@") {
            throw ConfigurationError(message: "acme.email '\(email)' is not an address")
        }
    }
}
