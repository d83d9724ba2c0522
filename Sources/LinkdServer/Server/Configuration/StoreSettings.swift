import LinkStore
import LinkRouter
import Logging
import TokenSigning

/// The store: where it is, how instances sharing it keep in step, what is kept in memory, how often counts are written.
public struct StoreSettings: ConfigurationSection {
    /// `dataDir` / `LINKD_DATA_DIR`: the SQLite database, the master key, keys (the directory's mode is 0700).
    public var dataDir = "./data"
    /// `database` / `LINKD_DATABASE_URL`: a `postgres://user:password@host:5432/db?sslmode=…` URL makes PostgreSQL the
    /// store, shared by every instance given the same URL (and the same master key); without it the store is SQLite
    /// in `dataDir`.
    public var database: String?
    /// `syncIntervalSeconds` (0.05–60): how often an instance on a shared store polls the change feed besides
    /// LISTEN/NOTIFY; a revocation or key change made elsewhere is in force here within this plus 1 s.
    public var syncIntervalSeconds = 2.0
    /// `fullResyncSeconds` (10–86400): how often an instance on a shared store reloads everything regardless of the
    /// feed — the revocation set, and every cached link record read again while the cache keeps answering (the
    /// records of links gone from the store dropped at the end) — the net under a change the feed lost.
    public var fullResyncSeconds = 300.0
    /// `linkCacheCapacity`: the most link records kept in memory (packed, about 105 bytes each with their indexes'
    /// share); `linkCacheMegabytes` usually binds first.
    public var linkCacheCapacity = 2_000_000
    /// `linkCacheMegabytes` (1–65536): the most memory the link cache takes, records and indexes together (128 MiB
    /// holds about a million typical links). Past it, the records least recently read go first.
    public var linkCacheMegabytes = LinkCache.defaultMaxBytes >> 20
    /// `linkCacheWarmup`: whether the store's active links are put into the link cache at start, in the background,
    /// newest first, until it is nine tenths full (and, on a shared store, read again at each full reload), so that
    /// links nobody opened since the start are answered from memory too.
    public var linkCacheWarmup = true
    /// `clickFlushSeconds`: how often what the share path counted (clicks, last openings, the daily stats rows) is
    /// written to the store, in one transaction, and expired claim codes are swept. Half a second: a busy second's
    /// flush of tens of thousands of links, cut in two, holds half the memory and blocks the other core half as long.
    public var clickFlushSeconds = 0.5
    /// `shareEventBufferCapacity` (1–10000000): the most links with counted events not yet written (about 0.5 KB
    /// each); an event of another link is then not counted (`linkd_share_events_dropped_total`).
    public var shareEventBufferCapacity = ShareEventBuffer.defaultCapacity

    /// The embedded defaults.
    public init() {}

    static var keys: [ConfigurationKey<Self>] {
        [
            .string("dataDir", \.dataDir, variable: "LINKD_DATA_DIR"),
            .optionalString("database", \.database, variable: "LINKD_DATABASE_URL"),
            .double("syncIntervalSeconds", \.syncIntervalSeconds), .double("fullResyncSeconds", \.fullResyncSeconds),
            .int("linkCacheCapacity", \.linkCacheCapacity),
            .int("linkCacheMegabytes", \.linkCacheMegabytes), .bool("linkCacheWarmup", \.linkCacheWarmup),
            .double("clickFlushSeconds", \.clickFlushSeconds), .int("shareEventBufferCapacity", \.shareEventBufferCapacity),
        ]
    }

    func validate() throws {
        guard !dataDir.isEmpty else { throw ConfigurationError(message: "dataDir is empty") }
        if let database {
            do { _ = try PostgresLocation(url: database) } catch let error as LinkStoreError {
                throw ConfigurationError(message: error.message)
            }
        }
        guard (0.05...60).contains(syncIntervalSeconds) else {
            throw ConfigurationError(message: "syncIntervalSeconds must be 0.05–60")
        }
        guard (10...86_400).contains(fullResyncSeconds) else {
            throw ConfigurationError(message: "fullResyncSeconds must be 10–86400")
        }
        guard linkCacheCapacity > 0 else { throw ConfigurationError(message: "linkCacheCapacity must be positive") }
        guard (1...65536).contains(linkCacheMegabytes) else {
            throw ConfigurationError(message: "linkCacheMegabytes must be 1–65536")
        }
        guard clickFlushSeconds > 0 else { throw ConfigurationError(message: "clickFlushSeconds must be positive") }
        guard (1...10_000_000).contains(shareEventBufferCapacity) else {
            throw ConfigurationError(message: "shareEventBufferCapacity must be 1–10000000")
        }
    }
}

/// Share links: the manifests of the apps they open, and their lifetimes.
public struct LinkSettings: ConfigurationSection {
    /// `manifests` / `LINKD_MANIFESTS` (comma-separated): app manifest files; empty means the demo manifests,
    /// `examples/*.yaml` of the install or checkout (`ManifestPaths`).
    public var manifests: [String] = []
    /// `maxTTLSeconds` (at most 400 days, the token lifetime cap): the longest lifetime of a share link.
    public var maxTTLSeconds = 365 * 86_400
    /// `defaultTTLSeconds`: the lifetime when a request gives none.
    public var defaultTTLSeconds = 30 * 86_400
    /// `importMaxBytes` (1 KiB–1 GiB): the largest file `POST /v1/admin/imports` reads (64 MiB by default); a
    /// larger one is answered 413 `import_too_large` and nothing is written.
    public var importMaxBytes = 64 << 20

    /// The embedded defaults.
    public init() {}

    static var keys: [ConfigurationKey<Self>] {
        [
            .strings("manifests", \.manifests, variable: "LINKD_MANIFESTS"),
            .int("maxTTLSeconds", \.maxTTLSeconds), .int("defaultTTLSeconds", \.defaultTTLSeconds),
            .int("importMaxBytes", \.importMaxBytes),
        ]
    }

    func validate() throws {
        guard maxTTLSeconds > 0, defaultTTLSeconds > 0, defaultTTLSeconds <= maxTTLSeconds else {
            throw ConfigurationError(message: "TTLs must be positive and defaultTTLSeconds ≤ maxTTLSeconds")
        }
        guard maxTTLSeconds <= Int(Keyring.maxTokenLifetimeCap) else {
            throw ConfigurationError(message: "maxTTLSeconds must be at most \(Keyring.maxTokenLifetimeCap) (400 days, the token lifetime cap)")
        }
        guard (1024...(1 << 30)).contains(importMaxBytes) else {
            throw ConfigurationError(message: "importMaxBytes must be 1024–1073741824")
        }
    }
}

/// The web fallback's pages: templates, and the origin previews they may wait for.
public struct PageSettings: ConfigurationSection {
    /// `templatesDir` / `LINKD_TEMPLATES_DIR`: the web fallback's Mustache templates and stylesheet; by default the
    /// install's `share/linkd/templates` (or the checkout's `templates`, `InstallLayout`), else `templates`.
    public var templatesDir = PageSettings.installedTemplatesDir
    /// `appTemplates`: per-app template directories, `{app: directory}` (a missing template falls back).
    public var appTemplates: [String: String] = [:]
    /// `previewWaitMilliseconds` (1–10000): the longest wait for an origin preview before the page goes without.
    public var previewWaitMilliseconds = 300
    /// `maxOriginFetches` (1–1024): origin fetches in flight at once; past it pages go without a fresh preview.
    public var maxOriginFetches = 32

    /// The embedded defaults.
    public init() {}

    /// The templates beside the running executable (`InstallLayout`), else `templates` of the working directory.
    public static let installedTemplatesDir = InstallLayout.directory("templates") ?? "templates"

    static var keys: [ConfigurationKey<Self>] {
        [
            .string("templatesDir", \.templatesDir, variable: "LINKD_TEMPLATES_DIR"),
            .stringMapping("appTemplates", \.appTemplates),
            .int("previewWaitMilliseconds", \.previewWaitMilliseconds), .int("maxOriginFetches", \.maxOriginFetches),
        ]
    }

    func validate() throws {
        guard (1...10_000).contains(previewWaitMilliseconds) else {
            throw ConfigurationError(message: "previewWaitMilliseconds must be 1–10000")
        }
        guard (1...1024).contains(maxOriginFetches) else { throw ConfigurationError(message: "maxOriginFetches must be 1–1024") }
    }
}

/// The ops listener (`/metrics`, `/readyz` and `/healthz` on an address of their own, for a port the load balancer
/// and Prometheus reach and the internet does not), and the log.
public struct OpsSettings: ConfigurationSection {
    /// `opsHost` / `LINKD_OPS_HOST`: the address the ops listener binds; nil: the public `host`. Needs `opsPort`.
    public var opsHost: String?
    /// `opsPort` / `LINKD_OPS_PORT` (0–65535): the ops listener's port (0 picks a free one). Unset, there is no ops
    /// listener and the public one answers everything. Set, `/metrics` and `/readyz` are answered there and the
    /// public listener answers them 404; `/healthz` is answered on both.
    public var opsPort: Int?
    /// `logLevel` / `LINKD_LOG_LEVEL`: trace, debug, info, notice, warning, error, critical.
    public var logLevel = "info"

    /// The embedded defaults.
    public init() {}

    static var keys: [ConfigurationKey<Self>] {
        [
            .optionalString("opsHost", \.opsHost, variable: "LINKD_OPS_HOST"),
            .optionalInt("opsPort", \.opsPort, variable: "LINKD_OPS_PORT"),
            .string("logLevel", \.logLevel, variable: "LINKD_LOG_LEVEL"),
        ]
    }

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ConfigurationError(message: "logLevel '\(logLevel)' is not one of trace, debug, info, notice, warning, error, critical")
        }
        guard let opsPort else {
            guard opsHost == nil else { throw ConfigurationError(message: "opsHost is set but opsPort is not: set both, or neither") }
            return
        }
        guard (0...65_535).contains(opsPort) else { throw ConfigurationError(message: "opsPort \(opsPort) is out of range 0–65535") }
        guard opsHost?.isEmpty != true else { throw ConfigurationError(message: "opsHost is empty") }
    }
}
