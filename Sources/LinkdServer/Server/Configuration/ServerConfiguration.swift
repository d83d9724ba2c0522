import Foundation
import LinkdHTTP
import LinkRouter

/// Everything `linkd serve` can be configured with, in sections that each own their keys (`ConfigurationSection`:
/// the properties with their defaults and docs, the key table, the validation). Defaults give the embedded setup: no
/// file needed. `docs/configuration.md` lists every key.
///
/// The file's keys are flat (`port`, `headTimeoutSeconds`, …) but for the `tls:` and `acme:` mappings; a section
/// groups them in code only. Precedence: flags, then environment, then the file (`--config` / `LINKD_CONFIG`), then
/// the defaults.
public struct ServerConfiguration: Sendable, Equatable {
    /// The public listener: `host`, `port`, `eventLoopThreads`, `fastPath`, `trustedProxies`, `maxBodyBytes`.
    public var http = HTTPSettings()
    /// Every connection's time limits and caps.
    public var edge = EdgeSettings()
    /// Per-client budgets.
    public var limits = LimitSettings()
    /// The store: `dataDir`, `database`, `syncIntervalSeconds`, `linkCacheCapacity`, `clickFlushSeconds`.
    public var store = StoreSettings()
    /// The manifests and link lifetimes.
    public var links = LinkSettings()
    /// The web fallback's templates and origin previews.
    public var pages = PageSettings()
    /// The ops listener and the log level.
    public var ops = OpsSettings()
    /// The admin console.
    public var console = ConsoleSettings()
    /// Webhook delivery.
    public var webhooks = WebhookSettings()
    /// Deferred deep links' claim codes.
    public var claims = ClaimSettings()
    /// The TLS listener (the file's `tls:` mapping).
    public var tls = TLSSettings()
    /// Automatic certificates (the file's `acme:` mapping).
    public var acme = ACMESettings()

    /// The embedded defaults.
    public init() {}

    /// The file's top-level keys: every flat key of every section, each declared once in its section.
    static var flatKeys: [ConfigurationKey<ServerConfiguration>] {
        HTTPSettings.keys.map { $0.lifted(\.http) } + EdgeSettings.keys.map { $0.lifted(\.edge) }
            + LimitSettings.keys.map { $0.lifted(\.limits) } + StoreSettings.keys.map { $0.lifted(\.store) }
            + LinkSettings.keys.map { $0.lifted(\.links) } + PageSettings.keys.map { $0.lifted(\.pages) }
            + OpsSettings.keys.map { $0.lifted(\.ops) } + ConsoleSettings.keys.map { $0.lifted(\.console) }
            + WebhookSettings.keys.map { $0.lifted(\.webhooks) } + ClaimSettings.keys.map { $0.lifted(\.claims) }
    }

    /// The keys of the nested mappings, whose variables are read like the flat ones' (`LINKD_TLS_PORT`).
    static var nestedKeys: [ConfigurationKey<ServerConfiguration>] {
        TLSSettings.keys.map { $0.lifted(\.tls) } + ACMESettings.keys.map { $0.lifted(\.acme) }
    }

    /// Every key a file may have at its top level, the `tls` and `acme` mappings included.
    static var fileKeyNames: [String] { flatKeys.map(\.name) + ["tls", "acme"] }
}

/// A configuration problem, naming the file or variable at fault.
public struct ConfigurationError: Error, CustomStringConvertible {
    /// What is wrong, naming the file, key or variable.
    public let message: String
    /// The message.
    public var description: String { message }
}

extension ServerConfiguration {
    /// Maximum size of a configuration file.
    static let maxFileBytes = 1 << 20

    /// Loads file, then environment, then flags (each optional), and validates the result.
    public static func load(
        file: String?, environment: [String: String], host: String? = nil, port: Int? = nil, dataDir: String? = nil
    ) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        if let path = file ?? environment["LINKD_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration = try fromFile(path)
            do { try configuration.validate() } catch let error as ConfigurationError {
                throw ConfigurationError(message: "\(path): \(error.message)")
            }
        }
        // Every key with a variable, flat or nested: an empty variable is unset.
        for key in flatKeys + nestedKeys {
            guard let variable = key.variable, let value = environment[variable], !value.isEmpty else { continue }
            try key.readText(&configuration, value)
        }
        if let host { configuration.http.host = host }
        if let port { configuration.http.port = port }
        if let dataDir { configuration.store.dataDir = dataDir }
        do { try configuration.validate() } catch let error as ConfigurationError {
            throw ConfigurationError(message: "\(error.message) (from the environment or the command line)")
        }
        return configuration
    }

    /// Reads a YAML configuration file: a mapping of the keys above, each value read as its key's type by
    /// `YAMLValue` (the typed reading manifests share), so `port: "8080"` and `port: 8080` read alike.
    static func fromFile(_ path: String) throws -> ServerConfiguration {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let data = FileManager.default.contents(atPath: path)
        else { throw ConfigurationError(message: "\(path): cannot read the configuration file") }
        if let size = attributes[.size] as? Int, size > maxFileBytes {
            throw ConfigurationError(message: "\(path): larger than \(maxFileBytes) bytes")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(message: "\(path): not UTF-8")
        }
        return try fromYAML(text, source: path)
    }

    /// The configuration written in `text` (a file's content; `path` names it in messages), not yet validated.
    /// `package` for the fuzz targets.
    package static func fromYAML(_ text: String, source path: String) throws -> ServerConfiguration {
        let root: YAMLValue?
        do { root = try YAMLValue.document(text) } catch {
            throw ConfigurationError(message: "\(path): \(error)")
        }
        guard let root else { return ServerConfiguration() }
        guard let entries = root.entries() else {
            throw ConfigurationError(message: "\(path): the top level must be a mapping of keys")
        }
        var configuration = ServerConfiguration()
        let keys = flatKeys
        for (name, line, value) in entries {
            if name == "tls" { configuration.tls = try TLSSettings.read(mapping: value, name: name, path: path); continue }
            if name == "acme" { configuration.acme = try ACMESettings.read(mapping: value, name: name, path: path); continue }
            guard let key = keys.first(where: { $0.name == name }) else {
                let known = fileKeyNames.sorted().joined(separator: ", ")
                throw ConfigurationError(message: "\(path):\(line): unknown key '\(name)' (known: \(known))")
            }
            do { try key.readValue(&configuration, value, path) } catch let error as YAMLValue.TypeMismatch {
                throw ConfigurationError(message: "\(path):\(line): '\(name)' must be \(error.expected)")
            }
        }
        return configuration
    }

    /// Refuses values that cannot work: each section's own, then what spans sections. `package` for the fuzz targets.
    package func validate() throws {
        try http.validate()
        try edge.validate()
        try limits.validate()
        try store.validate()
        try links.validate()
        try pages.validate()
        try ops.validate()
        try console.validate()
        try webhooks.validate()
        try claims.validate()
        try tls.validate()
        try acme.validate()
        if let opsPort = ops.opsPort, opsPort != 0, opsPort == http.port {
            throw ConfigurationError(message: "opsPort \(opsPort) is the public port: the ops listener needs a port of its own")
        }
        if console.placement == .ops, ops.opsPort == nil {
            throw ConfigurationError(message: "adminConsole is 'ops' but opsPort is not set: set opsPort, or use 'public'")
        }
        if let tlsPort = tls.port {
            guard tlsPort == 0 || tlsPort != http.port else { throw ConfigurationError(message: "tls.port must differ from port (\(tlsPort))") }
            guard !tls.certificates.isEmpty || acme.isEnabled else {
                throw ConfigurationError(message: "tls.port is set but there are no certificates: give tls.certificates (PEM files) or acme: (automatic)")
            }
        }
        if acme.isEnabled, !tls.isEnabled {
            throw ConfigurationError(message: "acme needs tls.port (certificates are for the TLS listener)")
        }
    }

    /// Whether `/metrics` and `/readyz` are served by an ops listener of their own.
    public var hasOpsListener: Bool { ops.opsPort != nil }

    /// The address the ops listener binds: `opsHost`, else `host`.
    public var resolvedOpsHost: String { ops.opsHost ?? http.host }
}
