import Foundation
import NIOSSL
import PostgresNIO

/// Where the shared PostgreSQL store is, from a `postgres://user:password@host:port/database?sslmode=…` URL.
///
/// `sslmode` is `disable`, `allow` or `prefer` (TLS when the server offers it, else plain) or `require` (TLS with the
/// server's certificate verified; `verify-ca` and `verify-full` are accepted as the same). Without `sslmode` it is
/// `require`, unless the host is loopback (`localhost`, 127.0.0.0/8, `::1`): then `prefer`. A weaker mode to a host
/// that is not loopback is accepted with a warning (`tlsWarning`), which the server logs at start. The password never
/// appears in `description`.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// TLS use, from `sslmode`.
    public enum TLSMode: String, Sendable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, else plain.
        case prefer
        /// TLS, with the server's certificate verified.
        case require
    }

    /// The server's host name or address.
    public var host: String
    /// The server's port (5432 when the URL has none).
    public var port: Int
    /// The role to connect as.
    public var username: String
    /// Its password, if any.
    public var password: String?
    /// The database (the user name when the URL has none, as libpq does).
    public var database: String
    /// Whether and how TLS is used.
    public var tls: TLSMode
    /// `sslmode` as the URL gives it; nil when it gives none (then `tls` is the host's default).
    public var sslmode: String?

    /// The longest URL accepted.
    public static let maxURLBytes = 2048

    /// Parses a URL; the error says what is wrong with it.
    public init(url: String) throws {
        func refuse(_ why: String) -> LinkStoreError {
            LinkStoreError(.configuration, "database URL: \(why) (expected postgres://user:password@host:5432/database)")
        }
        guard url.utf8.count <= Self.maxURLBytes else { throw refuse("longer than \(Self.maxURLBytes) bytes") }
        guard let components = URLComponents(string: url) else { throw refuse("not a URL") }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw refuse("the scheme must be postgres:// or postgresql://")
        }
        guard let host = components.host, !host.isEmpty else { throw refuse("no host") }
        guard let user = components.user, !user.isEmpty else { throw refuse("no user name") }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.contains("/") else { throw refuse("the path must be one database name") }
        var tls = Self.defaultTLS(host: host)
        var sslmode: String?
        for item in components.queryItems ?? [] {
            switch (item.name, item.value ?? "") {
            case ("sslmode", "disable"): tls = .disable
            case ("sslmode", "prefer"), ("sslmode", "allow"): tls = .prefer
            case ("sslmode", "require"), ("sslmode", "verify-ca"), ("sslmode", "verify-full"): tls = .require
            case ("sslmode", let other):
                throw refuse("sslmode \(other) is not one of disable, allow, prefer, require, verify-ca, verify-full")
            case (let name, _): throw refuse("unknown parameter \(name)")
            }
            sslmode = item.value
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = user
        self.password = components.password
        self.database = path.isEmpty ? user : path
        self.tls = tls
        self.sslmode = sslmode
    }

    /// The TLS mode without `sslmode`: `require` (TLS, certificate verified), but `prefer` on a loopback host, where
    /// the connection never leaves the machine and a local server often has no certificate.
    public static func defaultTLS(host: String) -> TLSMode {
        isLoopback(host: host) ? .prefer : .require
    }

    /// Whether `host` is loopback: `localhost` (any case), an IPv4 address in 127.0.0.0/8, or `::1` (any spelling).
    public static func isLoopback(host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, bare, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { $0.elementsEqual([UInt8](repeating: 0, count: 15) + [1]) }
    }

    /// What to warn about at start when TLS may be skipped (`disable`, `allow`, `prefer`) to a host that is not
    /// loopback; nil otherwise.
    public var tlsWarning: String? {
        guard tls != .require, !Self.isLoopback(host: host) else { return nil }
        let mode = sslmode ?? tls.rawValue
        let risk = tls == .disable
            ? "the password and every link, key record and API key hash cross the network in plain text"
            : "a machine in the path can make the connection plain text (TLS is used only when the server offers it), "
                + "so the password and the data may cross the network readable"
        return "database URL: sslmode=\(mode) to \(host), which is not a loopback host: \(risk); use sslmode=require"
    }

    /// The URL without its password.
    public var description: String {
        "postgres://\(username)@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)"
    }

    /// The postgres-nio client configuration.
    var clientConfiguration: PostgresClient.Configuration {
        let tlsSetting: PostgresClient.Configuration.TLS = switch tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tlsSetting)
        configuration.options.connectTimeout = .seconds(3)
        configuration.options.maximumConnections = 16
        configuration.options.keepAliveBehavior = .init(frequency: .seconds(10))
        return configuration
    }
}
