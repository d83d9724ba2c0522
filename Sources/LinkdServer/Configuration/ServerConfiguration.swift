import Foundation
import LinkRouter
import LinkStore
import NIOCore
import Logging
import TokenSigning

/// Everything `linkd serve` can be configured with. Defaults give the embedded setup: no file needed.
///
/// Keys (YAML file key / environment variable — type — default):
/// - `host` / `LINKD_HOST` — String — `127.0.0.1`: the address to listen on.
/// - `port` / `LINKD_PORT` — Int — `8080`: the port (0 picks a free one).
/// - `dataDir` / `LINKD_DATA_DIR` — String — `./data`: SQLite database, master key, keys (dir mode 0700).
/// - `manifests` / `LINKD_MANIFESTS` (comma-separated) — [String] — `[]`: app manifest files; empty means
///   the demo manifests, `examples/*.yaml` of the install or checkout (`ManifestPaths`).
/// - `linkCacheCapacity` — Int — `20000`: link records kept in memory (about 0.85 KB each), cached on first read.
/// - `maxTTLSeconds` — Int — `31536000` (365 days): the longest lifetime of a share link.
/// - `defaultTTLSeconds` — Int — `2592000` (30 days): the lifetime when a request gives none.
/// - `maxBodyBytes` — Int — `65536`: request body cap for JSON endpoints.
/// - `clickFlushSeconds` — Double — `1`: how often what the share path counted (clicks, last openings, the daily
///   stats rows) is written to the store, in one transaction, and expired claim codes are swept.
/// - `shareEventBufferCapacity` — Int 1–10000000 — `100000`: the most links with counted events not yet written
///   (about 0.5 KB each); an event of another link is then not counted (`linkd_share_events_dropped_total`).
/// - `logLevel` / `LINKD_LOG_LEVEL` — String — `info`: trace, debug, info, notice, warning, error, critical.
/// - `rateLimitPerSecond` — Double — `100`: per client address, on `/v1/resolve*` and `/s/*`; 0 turns it off.
/// - `rateLimitBurst` — Double — `200`: requests a client may make at once before the rate applies.
/// - `authFailuresPerMinute` — Double — `10`: the refill rate of the per-address bucket of failed authentications
///   (it holds `APIKeyAuthenticator.failureBurst`, 10); while it is empty, authenticated endpoints answer 429.
/// - `templatesDir` / `LINKD_TEMPLATES_DIR` — String — the install's `share/linkd/templates` (or the checkout's
///   `templates`, `InstallLayout`), else `templates`: the web fallback's Mustache templates and stylesheet.
/// - `appTemplates` — {app: directory} — `{}`: per-app template directories (a missing template falls back).
/// - `previewWaitMilliseconds` — Int — `300`: longest wait for an origin preview before the page goes without.
/// - `maxOriginFetches` — Int — `32`: origin fetches in flight at once; past it pages go without a fresh preview.
/// - `database` / `LINKD_DATABASE_URL` — String — none: a `postgres://user:password@host:5432/db?sslmode=…` URL
///   makes PostgreSQL the store, shared by every instance given the same URL (and the same master key);
///   without it the store is SQLite in `dataDir`.
/// - `syncIntervalSeconds` — Double — `2`: how often an instance on a shared store polls the change feed besides
///   LISTEN/NOTIFY; a revocation or key change made elsewhere is in force here within this plus 1 s.
/// - `eventLoopThreads` / `LINKD_EVENT_LOOP_THREADS` — Int — `0`: SwiftNIO event-loop threads; 0 means one per core.
/// - `fastPath` — Bool — `true`: answer share pages, resolutions and `/healthz` on the event loop when memory has
///   all they need (same answers; false sends every request through Hummingbird's router).
/// - `headTimeoutSeconds` — Double — `10`: a request head must come whole within this time of its first byte
///   (else `408` and the connection is closed).
/// - `bodyTimeoutSeconds` — Double — `30`: a request body must come whole within this time of its head.
/// - `idleTimeoutSeconds` — Double — `75`: a keep-alive connection with no request under way is closed after this.
/// - `writeTimeoutSeconds` — Double — `30`: a connection whose client takes no response bytes this long is closed.
/// - `maxConnections` — Int — `10000`: connections open at once (past it: `503`, `tooManyConnections`).
/// - `maxConnectionsPerClient` — Int — `256`: connections open at once from one IPv4 address or IPv6 /64 (trusted
///   proxies are not capped).
/// - `trustedProxies` / `LINKD_TRUSTED_PROXIES` (comma-separated) — [String] — `[]`: addresses or CIDR networks
///   of the reverse proxies whose `Forwarded` / `X-Forwarded-For` name the client (nobody else's are believed).
/// - `opsHost` / `LINKD_OPS_HOST`, `opsPort` / `LINKD_OPS_PORT` — the ops listener (`ServerConfiguration+Ops.swift`).
/// - `allowLoopbackWebhooks`, `webhookRetryBaseSeconds`, `webhookMaxAttempts`, `webhookPollSeconds` — webhook
///   delivery (`ServerConfiguration+Webhooks.swift`).
/// - `claimTTLSeconds`, `claimCodesPerMinute`, `maxLiveClaimCodes`, `maxLiveClaimCodesPerLink`, `claimAttemptsPerMinute` — deferred deep links'
///   claim codes (`ServerConfiguration+Claims.swift`).
/// - `adminConsole` / `LINKD_ADMIN_CONSOLE`, `adminSessionIdleSeconds`, `adminSessionMaxSeconds` — the admin console
///   at `/admin` (`ServerConfiguration+Console.swift`).
///
/// Precedence: flags, then environment, then the file (`--config` / `LINKD_CONFIG`), then these defaults.
public struct ServerConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var dataDir: String
    public var manifests: [String]
    public var linkCacheCapacity: Int
    public var maxTTLSeconds: Int
    public var defaultTTLSeconds: Int
    public var maxBodyBytes: Int
    public var clickFlushSeconds: Double
    public var logLevel: String
    public var rateLimitPerSecond: Double
    public var rateLimitBurst: Double
    public var authFailuresPerMinute: Double
    public var templatesDir: String
    public var appTemplates: [String: String]
    public var previewWaitMilliseconds: Int
    public var maxOriginFetches: Int
    public var database: String?
    public var syncIntervalSeconds: Double
    public var eventLoopThreads: Int
    public var fastPath: Bool
    public var headTimeoutSeconds: Double
    public var bodyTimeoutSeconds: Double
    public var idleTimeoutSeconds: Double
    public var writeTimeoutSeconds: Double
    public var maxConnections: Int
    public var maxConnectionsPerClient: Int
    public var trustedProxies: [String]
    /// The ops listener's address (`/metrics`, `/readyz`, `/healthz`); nil: `host`. Needs `opsPort`.
    public var opsHost: String?
    /// The ops listener's port; nil (the default): no ops listener, everything on the public one.
    public var opsPort: Int?
    /// Whether webhook endpoints may be plain `http` on loopback (development and tests only).
    public var allowLoopbackWebhooks = false
    /// The first retry delay of a failed webhook delivery; each next one doubles (with jitter, at most 6 h).
    public var webhookRetryBaseSeconds: Double = 5
    /// Attempts of one webhook event before it is given up and its endpoint marked failing.
    public var webhookMaxAttempts = 16
    /// How often the webhook outbox is looked at for due deliveries.
    public var webhookPollSeconds: Double = 1
    /// How long a claim code of a deferred deep link can be claimed, seconds (`ServerConfiguration+Claims.swift`).
    public var claimTTLSeconds: Int = 7_200
    /// Claim codes one address may have made per minute; past it store redirects go without one.
    public var claimCodesPerMinute: Double = 10
    /// The most unexpired claim codes the store holds; past it store redirects go without one.
    public var maxLiveClaimCodes: Int = 1_000_000
    public var maxLiveClaimCodesPerLink: Int = 10_000
    /// The most links with share events counted in memory and not yet written (`ShareEventBuffer`).
    public var shareEventBufferCapacity: Int = ShareEventBuffer.defaultCapacity
    /// The TLS listener (`ServerConfiguration+TLS.swift`).
    public var tls = TLSSettings()
    /// Automatic certificates (`ServerConfiguration+TLS.swift`).
    public var acme = ACMESettings()
    /// Claims (`POST /v1/claims/{code}`) one address may try per minute; past it: 429.
    public var claimAttemptsPerMinute: Double = 20
    /// Where the admin console is served: `public`, `ops` or `off` (`ServerConfiguration+Console.swift`).
    public var adminConsole: String = "public"
    /// A console session unused this long is over.
    public var adminSessionIdleSeconds: Int = 1800
    /// A console session is over this long after sign-in, used or not.
    public var adminSessionMaxSeconds: Int = 43_200

    /// Creates a configuration; every parameter has the embedded default.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        dataDir: String = "./data",
        manifests: [String] = [],
        linkCacheCapacity: Int = 20_000,
        maxTTLSeconds: Int = 365 * 86_400,
        defaultTTLSeconds: Int = 30 * 86_400,
        maxBodyBytes: Int = 65_536,
        clickFlushSeconds: Double = 1,
        logLevel: String = "info",
        rateLimitPerSecond: Double = 100,
        rateLimitBurst: Double = 200,
        authFailuresPerMinute: Double = 10,
        templatesDir: String = ServerConfiguration.installedTemplatesDir,
        appTemplates: [String: String] = [:],
        previewWaitMilliseconds: Int = 300,
        maxOriginFetches: Int = 32,
        database: String? = nil,
        syncIntervalSeconds: Double = 2,
        eventLoopThreads: Int = 0,
        fastPath: Bool = true,
        headTimeoutSeconds: Double = 10,
        bodyTimeoutSeconds: Double = 30,
        idleTimeoutSeconds: Double = 75,
        writeTimeoutSeconds: Double = 30,
        maxConnections: Int = 10_000,
        maxConnectionsPerClient: Int = 256,
        trustedProxies: [String] = []
    ) {
        self.host = host
        self.port = port
        self.dataDir = dataDir
        self.manifests = manifests
        self.linkCacheCapacity = linkCacheCapacity
        self.maxTTLSeconds = maxTTLSeconds
        self.defaultTTLSeconds = defaultTTLSeconds
        self.maxBodyBytes = maxBodyBytes
        self.clickFlushSeconds = clickFlushSeconds
        self.logLevel = logLevel
        self.rateLimitPerSecond = rateLimitPerSecond
        self.rateLimitBurst = rateLimitBurst
        self.authFailuresPerMinute = authFailuresPerMinute
        self.templatesDir = templatesDir
        self.appTemplates = appTemplates
        self.previewWaitMilliseconds = previewWaitMilliseconds
        self.maxOriginFetches = maxOriginFetches
        self.database = database
        self.syncIntervalSeconds = syncIntervalSeconds
        self.eventLoopThreads = eventLoopThreads
        self.fastPath = fastPath
        self.headTimeoutSeconds = headTimeoutSeconds
        self.bodyTimeoutSeconds = bodyTimeoutSeconds
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.writeTimeoutSeconds = writeTimeoutSeconds
        self.maxConnections = maxConnections
        self.maxConnectionsPerClient = maxConnectionsPerClient
        self.trustedProxies = trustedProxies
    }

    /// The templates beside the running executable (`InstallLayout`), else `templates` of the working directory.
    public static let installedTemplatesDir = InstallLayout.directory("templates") ?? "templates"

    /// The keys of a configuration file.
    enum Key: String, CaseIterable {
        case host, port, dataDir, manifests, linkCacheCapacity, maxTTLSeconds, defaultTTLSeconds, maxBodyBytes,
            clickFlushSeconds, logLevel, rateLimitPerSecond, rateLimitBurst, authFailuresPerMinute, templatesDir, appTemplates,
            previewWaitMilliseconds, maxOriginFetches, database, syncIntervalSeconds, eventLoopThreads, fastPath,
            headTimeoutSeconds, bodyTimeoutSeconds, idleTimeoutSeconds, writeTimeoutSeconds, maxConnections,
            maxConnectionsPerClient, trustedProxies
        case opsHost, opsPort
        case allowLoopbackWebhooks, webhookRetryBaseSeconds, webhookMaxAttempts, webhookPollSeconds
        case claimTTLSeconds, claimCodesPerMinute, maxLiveClaimCodes, maxLiveClaimCodesPerLink, claimAttemptsPerMinute
        case adminConsole, adminSessionIdleSeconds, adminSessionMaxSeconds
        case shareEventBufferCapacity
        case tls, acme
    }

    /// Sets the key `key` from a file's YAML value, read as the key's type.
    mutating func set(_ key: Key, from value: YAMLValue) throws {
        switch key {
        case .host: host = try value.string()
        case .port: port = try value.int()
        case .dataDir: dataDir = try value.string()
        case .manifests: manifests = try value.strings()
        case .linkCacheCapacity: linkCacheCapacity = try value.int()
        case .maxTTLSeconds: maxTTLSeconds = try value.int()
        case .defaultTTLSeconds: defaultTTLSeconds = try value.int()
        case .maxBodyBytes: maxBodyBytes = try value.int()
        case .clickFlushSeconds: clickFlushSeconds = try value.double()
        case .shareEventBufferCapacity: shareEventBufferCapacity = try value.int()
        case .logLevel: logLevel = try value.string()
        case .rateLimitPerSecond: rateLimitPerSecond = try value.double()
        case .rateLimitBurst: rateLimitBurst = try value.double()
        case .authFailuresPerMinute: authFailuresPerMinute = try value.double()
        case .templatesDir: templatesDir = try value.string()
        case .appTemplates: appTemplates = try value.stringMapping()
        case .previewWaitMilliseconds: previewWaitMilliseconds = try value.int()
        case .maxOriginFetches: maxOriginFetches = try value.int()
        case .database: database = value.isNull ? nil : try value.string()
        case .syncIntervalSeconds: syncIntervalSeconds = try value.double()
        case .eventLoopThreads: eventLoopThreads = try value.int()
        case .fastPath: fastPath = try value.bool()
        case .headTimeoutSeconds: headTimeoutSeconds = try value.double()
        case .bodyTimeoutSeconds: bodyTimeoutSeconds = try value.double()
        case .idleTimeoutSeconds: idleTimeoutSeconds = try value.double()
        case .writeTimeoutSeconds: writeTimeoutSeconds = try value.double()
        case .maxConnections: maxConnections = try value.int()
        case .maxConnectionsPerClient: maxConnectionsPerClient = try value.int()
        case .trustedProxies: trustedProxies = try value.strings()
        case .opsHost: opsHost = value.isNull ? nil : try value.string()
        case .opsPort: opsPort = value.isNull ? nil : try value.int()
        case .allowLoopbackWebhooks, .webhookRetryBaseSeconds, .webhookMaxAttempts, .webhookPollSeconds:
            try setWebhookKey(key, from: value)
        case .claimTTLSeconds: claimTTLSeconds = try value.int()
        case .claimCodesPerMinute: claimCodesPerMinute = try value.double()
        case .maxLiveClaimCodes: maxLiveClaimCodes = try value.int()
        case .maxLiveClaimCodesPerLink: maxLiveClaimCodesPerLink = try value.int()
        case .claimAttemptsPerMinute: claimAttemptsPerMinute = try value.double()
        case .adminConsole: adminConsole = try value.string()
        case .adminSessionIdleSeconds: adminSessionIdleSeconds = try value.int()
        case .adminSessionMaxSeconds: adminSessionMaxSeconds = try value.int()
        case .tls, .acme: break  // mappings: read with their file's path by `fromYAML`
        }
    }
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
        if let value = environment["LINKD_HOST"], !value.isEmpty { configuration.host = value }
        if let value = environment["LINKD_PORT"], !value.isEmpty {
            guard let port = Int(value) else { throw ConfigurationError(message: "LINKD_PORT: '\(value)' is not a port number") }
            configuration.port = port
        }
        if let value = environment["LINKD_DATA_DIR"], !value.isEmpty { configuration.dataDir = value }
        if let value = environment["LINKD_MANIFESTS"], !value.isEmpty {
            configuration.manifests = ManifestPaths.split(value)
        }
        if let value = environment["LINKD_TEMPLATES_DIR"], !value.isEmpty { configuration.templatesDir = value }
        if let value = environment["LINKD_LOG_LEVEL"], !value.isEmpty { configuration.logLevel = value }
        if let value = environment["LINKD_DATABASE_URL"], !value.isEmpty { configuration.database = value }
        if let value = environment["LINKD_EVENT_LOOP_THREADS"], !value.isEmpty {
            guard let threads = Int(value) else {
                throw ConfigurationError(message: "LINKD_EVENT_LOOP_THREADS: '\(value)' is not a number")
            }
            configuration.eventLoopThreads = threads
        }
        if let value = environment["LINKD_TRUSTED_PROXIES"], !value.isEmpty {
            configuration.trustedProxies = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        try configuration.tls.read(environment: environment)
        configuration.acme.read(environment: environment)
        try configuration.readOpsEnvironment(environment)
        configuration.readConsoleEnvironment(environment)
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let dataDir { configuration.dataDir = dataDir }
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
        for (name, line, value) in entries {
            guard let key = Key(rawValue: name) else {
                let known = Key.allCases.map(\.rawValue).sorted().joined(separator: ", ")
                throw ConfigurationError(message: "\(path):\(line): unknown key '\(name)' (known: \(known))")
            }
            if key == .tls { configuration.tls = try TLSSettings.read(value, path: path); continue }
            if key == .acme { configuration.acme = try ACMESettings.read(value, path: path); continue }
            do { try configuration.set(key, from: value) } catch let error as YAMLValue.TypeMismatch {
                throw ConfigurationError(message: "\(path):\(line): '\(name)' must be \(error.expected)")
            }
        }
        return configuration
    }

    /// Refuses values that cannot work. `package` for the fuzz targets.
    package func validate() throws {
        guard (0...65_535).contains(port) else { throw ConfigurationError(message: "port \(port) is out of range 0–65535") }
        guard !host.isEmpty else { throw ConfigurationError(message: "host is empty") }
        guard !dataDir.isEmpty else { throw ConfigurationError(message: "dataDir is empty") }
        guard linkCacheCapacity > 0 else { throw ConfigurationError(message: "linkCacheCapacity must be positive") }
        guard maxTTLSeconds > 0, defaultTTLSeconds > 0, defaultTTLSeconds <= maxTTLSeconds else {
            throw ConfigurationError(message: "TTLs must be positive and defaultTTLSeconds ≤ maxTTLSeconds")
        }
        guard maxBodyBytes > 0 else { throw ConfigurationError(message: "maxBodyBytes must be positive") }
        guard clickFlushSeconds > 0 else { throw ConfigurationError(message: "clickFlushSeconds must be positive") }
        guard (1...10_000_000).contains(shareEventBufferCapacity) else {
            throw ConfigurationError(message: "shareEventBufferCapacity must be 1–10000000")
        }
        guard maxTTLSeconds <= Int(Keyring.maxTokenLifetimeCap) else {
            throw ConfigurationError(message: "maxTTLSeconds must be at most \(Keyring.maxTokenLifetimeCap) (400 days, the token lifetime cap)")
        }
        guard rateLimitPerSecond >= 0, rateLimitBurst >= 1 || rateLimitPerSecond == 0 else {
            throw ConfigurationError(message: "rateLimitPerSecond must be ≥ 0 and rateLimitBurst ≥ 1")
        }
        guard (1...10_000).contains(previewWaitMilliseconds) else {
            throw ConfigurationError(message: "previewWaitMilliseconds must be 1–10000")
        }
        guard (1...1024).contains(maxOriginFetches) else { throw ConfigurationError(message: "maxOriginFetches must be 1–1024") }
        guard (0.05...60).contains(syncIntervalSeconds) else {
            throw ConfigurationError(message: "syncIntervalSeconds must be 0.05–60")
        }
        if let database {
            do { _ = try PostgresLocation(url: database) } catch let error as LinkStoreError {
                throw ConfigurationError(message: error.message)
            }
        }
        guard (0...256).contains(eventLoopThreads) else { throw ConfigurationError(message: "eventLoopThreads must be 0–256 (0: one per core)") }
        guard authFailuresPerMinute > 0 else { throw ConfigurationError(message: "authFailuresPerMinute must be positive") }
        for (name, seconds, range) in [
            ("headTimeoutSeconds", headTimeoutSeconds, 0.1...60.0), ("bodyTimeoutSeconds", bodyTimeoutSeconds, 0.1...600.0),
            ("idleTimeoutSeconds", idleTimeoutSeconds, 0.1...3600.0), ("writeTimeoutSeconds", writeTimeoutSeconds, 0.1...600.0),
        ] where !range.contains(seconds) {
            throw ConfigurationError(message: "\(name) must be \(range.lowerBound)–\(range.upperBound) seconds")
        }
        guard maxConnections >= 1, (1...maxConnections).contains(maxConnectionsPerClient) else {
            throw ConfigurationError(message: "maxConnections must be ≥ 1 and maxConnectionsPerClient 1–maxConnections")
        }
        if let bad = trustedProxies.first(where: { IPNetwork($0) == nil }) {
            throw ConfigurationError(message: "trustedProxies: '\(bad)' is not an IP address or CIDR network (10.0.0.0/8, 2001:db8::/32)")
        }
        try validateConsole()
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ConfigurationError(message: "logLevel '\(logLevel)' is not one of trace, debug, info, notice, warning, error, critical")
        }
        try validateOps()
        try validateWebhooks()
        try validateClaims()
        try tls.validate(plainPort: port, acme: acme.isEnabled)
        try acme.validate(tls: tls)
    }
}

extension ServerConfiguration {
    /// The connection limits of the HTTP edge.
    var edgeLimits: EdgeLimits {
        EdgeLimits(
            headTimeout: .nanoseconds(Int64(headTimeoutSeconds * 1e9)), bodyTimeout: .nanoseconds(Int64(bodyTimeoutSeconds * 1e9)),
            idleTimeout: .nanoseconds(Int64(idleTimeoutSeconds * 1e9)), writeTimeout: .nanoseconds(Int64(writeTimeoutSeconds * 1e9)),
            maxConnections: maxConnections, maxConnectionsPerClient: maxConnectionsPerClient)
    }

    /// The trusted proxies as networks (validated by `validate()`).
    var trustedProxyNetworks: [IPNetwork] { trustedProxies.compactMap(IPNetwork.init) }
}
