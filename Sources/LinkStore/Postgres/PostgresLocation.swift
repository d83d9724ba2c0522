import Foundation
import NIOSSL
import PostgresNIO

/// Where the shared PostgreSQL store is, from a `postgres://user:password@host:port/database?sslmode=…` URL.
///
/// `sslmode` is `disable`, `prefer` (the default: TLS when the server offers it) or `require` (TLS with the
/// server's certificate verified; `verify-full` is accepted as the same). The password never appears in
/// `description`.
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
        var tls = TLSMode.prefer
        for item in components.queryItems ?? [] {
            switch (item.name, item.value ?? "") {
            case ("sslmode", "disable"): tls = .disable
            case ("sslmode", "prefer"), ("sslmode", "allow"): tls = .prefer
            case ("sslmode", "require"), ("sslmode", "verify-ca"), ("sslmode", "verify-full"): tls = .require
            case ("sslmode", let other): throw refuse("sslmode \(other) is not one of disable, prefer, require")
            case (let name, _): throw refuse("unknown parameter \(name)")
            }
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = user
        self.password = components.password
        self.database = path.isEmpty ? user : path
        self.tls = tls
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
