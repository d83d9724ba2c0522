import Foundation
import LinkStore
import Logging
import TokenSigning
import Yams

/// Everything `linkd serve` can be configured with. Defaults give the embedded setup: no file needed.
///
/// Keys (YAML file key / environment variable — type — default):
/// - `host` / `LINKD_HOST` — String — `127.0.0.1`: the address to listen on.
/// - `port` / `LINKD_PORT` — Int — `8080`: the port (0 picks a free one).
/// - `dataDir` / `LINKD_DATA_DIR` — String — `./data`: SQLite database, master key, keys (dir mode 0700).
/// - `manifests` / `LINKD_MANIFESTS` (comma-separated) — [String] — `[]`: app manifest files; empty means
///   the demo manifests `examples/*.yaml` relative to the working directory.
/// - `linkCacheCapacity` — Int — `20000`: link records kept in memory (about 0.85 KB each), cached on first read.
/// - `maxTTLSeconds` — Int — `31536000` (365 days): the longest lifetime of a share link.
/// - `defaultTTLSeconds` — Int — `2592000` (30 days): the lifetime when a request gives none.
/// - `maxBodyBytes` — Int — `65536`: request body cap for JSON endpoints.
/// - `clickFlushSeconds` — Double — `1`: how often counted clicks are written to the store.
/// - `logLevel` / `LINKD_LOG_LEVEL` — String — `info`: trace, debug, info, notice, warning, error, critical.
/// - `rateLimitPerSecond` — Double — `100`: per client address, on `/v1/resolve*` and `/s/*`; 0 turns it off.
/// - `rateLimitBurst` — Double — `200`: requests a client may make at once before the rate applies.
/// - `authFailuresPerMinute` — Double — `10`: the refill rate of the per-address bucket of failed authentications
///   (it holds `APIKeyAuthenticator.failureBurst`, 10); while it is empty, authenticated endpoints answer 429.
/// - `templatesDir` — String — `templates`: the web fallback's Mustache templates and stylesheet.
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
///
/// Precedence: flags, then environment, then the file (`--config` / `LINKD_CONFIG`), then these defaults.
struct ServerConfiguration: Sendable, Equatable, Decodable {
    var host: String
    var port: Int
    var dataDir: String
    var manifests: [String]
    var linkCacheCapacity: Int
    var maxTTLSeconds: Int
    var defaultTTLSeconds: Int
    var maxBodyBytes: Int
    var clickFlushSeconds: Double
    var logLevel: String
    var rateLimitPerSecond: Double
    var rateLimitBurst: Double
    var authFailuresPerMinute: Double
    var templatesDir: String
    var appTemplates: [String: String]
    var previewWaitMilliseconds: Int
    var maxOriginFetches: Int
    var database: String?
    var syncIntervalSeconds: Double
    var eventLoopThreads: Int
    var fastPath: Bool

    /// Creates a configuration; every parameter has the embedded default.
    init(
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
        templatesDir: String = "templates",
        appTemplates: [String: String] = [:],
        previewWaitMilliseconds: Int = 300,
        maxOriginFetches: Int = 32,
        database: String? = nil,
        syncIntervalSeconds: Double = 2,
        eventLoopThreads: Int = 0,
        fastPath: Bool = true
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
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case host, port, dataDir, manifests, linkCacheCapacity, maxTTLSeconds, defaultTTLSeconds, maxBodyBytes,
            clickFlushSeconds, logLevel, rateLimitPerSecond, rateLimitBurst, authFailuresPerMinute, templatesDir, appTemplates,
            previewWaitMilliseconds, maxOriginFetches, database, syncIntervalSeconds, eventLoopThreads, fastPath
    }

    /// Decodes a file's keys; missing keys keep their defaults, unknown keys are refused.
    init(from decoder: any Decoder) throws {
        let defaults = ServerConfiguration()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        host = try c.decodeIfPresent(String.self, forKey: .host) ?? defaults.host
        port = try c.decodeIfPresent(Int.self, forKey: .port) ?? defaults.port
        dataDir = try c.decodeIfPresent(String.self, forKey: .dataDir) ?? defaults.dataDir
        manifests = try c.decodeIfPresent([String].self, forKey: .manifests) ?? defaults.manifests
        linkCacheCapacity = try c.decodeIfPresent(Int.self, forKey: .linkCacheCapacity) ?? defaults.linkCacheCapacity
        maxTTLSeconds = try c.decodeIfPresent(Int.self, forKey: .maxTTLSeconds) ?? defaults.maxTTLSeconds
        defaultTTLSeconds = try c.decodeIfPresent(Int.self, forKey: .defaultTTLSeconds) ?? defaults.defaultTTLSeconds
        maxBodyBytes = try c.decodeIfPresent(Int.self, forKey: .maxBodyBytes) ?? defaults.maxBodyBytes
        clickFlushSeconds = try c.decodeIfPresent(Double.self, forKey: .clickFlushSeconds) ?? defaults.clickFlushSeconds
        logLevel = try c.decodeIfPresent(String.self, forKey: .logLevel) ?? defaults.logLevel
        rateLimitPerSecond = try c.decodeIfPresent(Double.self, forKey: .rateLimitPerSecond) ?? defaults.rateLimitPerSecond
        rateLimitBurst = try c.decodeIfPresent(Double.self, forKey: .rateLimitBurst) ?? defaults.rateLimitBurst
        authFailuresPerMinute = try c.decodeIfPresent(Double.self, forKey: .authFailuresPerMinute) ?? defaults.authFailuresPerMinute
        templatesDir = try c.decodeIfPresent(String.self, forKey: .templatesDir) ?? defaults.templatesDir
        appTemplates = try c.decodeIfPresent([String: String].self, forKey: .appTemplates) ?? defaults.appTemplates
        previewWaitMilliseconds = try c.decodeIfPresent(Int.self, forKey: .previewWaitMilliseconds) ?? defaults.previewWaitMilliseconds
        maxOriginFetches = try c.decodeIfPresent(Int.self, forKey: .maxOriginFetches) ?? defaults.maxOriginFetches
        database = try c.decodeIfPresent(String.self, forKey: .database) ?? defaults.database
        syncIntervalSeconds = try c.decodeIfPresent(Double.self, forKey: .syncIntervalSeconds) ?? defaults.syncIntervalSeconds
        eventLoopThreads = try c.decodeIfPresent(Int.self, forKey: .eventLoopThreads) ?? defaults.eventLoopThreads
        fastPath = try c.decodeIfPresent(Bool.self, forKey: .fastPath) ?? defaults.fastPath
    }
}

/// A configuration problem, naming the file or variable at fault.
struct ConfigurationError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

extension ServerConfiguration {
    /// Maximum size of a configuration file.
    static let maxFileBytes = 1 << 20

    /// Loads file, then environment, then flags (each optional), and validates the result.
    static func load(
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
        if let value = environment["LINKD_LOG_LEVEL"], !value.isEmpty { configuration.logLevel = value }
        if let value = environment["LINKD_DATABASE_URL"], !value.isEmpty { configuration.database = value }
        if let value = environment["LINKD_EVENT_LOOP_THREADS"], !value.isEmpty {
            guard let threads = Int(value) else {
                throw ConfigurationError(message: "LINKD_EVENT_LOOP_THREADS: '\(value)' is not a number")
            }
            configuration.eventLoopThreads = threads
        }
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let dataDir { configuration.dataDir = dataDir }
        do { try configuration.validate() } catch let error as ConfigurationError {
            throw ConfigurationError(message: "\(error.message) (from the environment or the command line)")
        }
        return configuration
    }

    /// Reads a YAML configuration file.
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
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return ServerConfiguration() }
        do {
            guard let mapping = try Yams.load(yaml: text) as? [String: Any] else {
                throw ConfigurationError(message: "\(path): the top level must be a mapping of keys")
            }
            let known = Set(CodingKeys.allCases.map(\.rawValue))
            if let unknown = mapping.keys.sorted().first(where: { !known.contains($0) }) {
                throw ConfigurationError(message: "\(path): unknown key '\(unknown)' (known: \(known.sorted().joined(separator: ", ")))")
            }
            return try YAMLDecoder().decode(ServerConfiguration.self, from: text)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(message: "\(path): \(error)")
        }
    }

    /// Refuses values that cannot work.
    func validate() throws {
        guard (0...65_535).contains(port) else { throw ConfigurationError(message: "port \(port) is out of range 0–65535") }
        guard !host.isEmpty else { throw ConfigurationError(message: "host is empty") }
        guard !dataDir.isEmpty else { throw ConfigurationError(message: "dataDir is empty") }
        guard linkCacheCapacity > 0 else { throw ConfigurationError(message: "linkCacheCapacity must be positive") }
        guard maxTTLSeconds > 0, defaultTTLSeconds > 0, defaultTTLSeconds <= maxTTLSeconds else {
            throw ConfigurationError(message: "TTLs must be positive and defaultTTLSeconds ≤ maxTTLSeconds")
        }
        guard maxBodyBytes > 0 else { throw ConfigurationError(message: "maxBodyBytes must be positive") }
        guard clickFlushSeconds > 0 else { throw ConfigurationError(message: "clickFlushSeconds must be positive") }
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
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ConfigurationError(message: "logLevel '\(logLevel)' is not one of trace, debug, info, notice, warning, error, critical")
        }
    }
}
