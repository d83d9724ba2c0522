public import Foundation

/// One published version of an app's manifest: what the store keeps so that every instance serves the same one.
public struct ManifestVersion: Sendable, Equatable {
    /// The app id.
    public var app: String
    /// The version: 1 for the first, one more for each publish, rollback or retirement of the app.
    public var version: Int
    /// The content hash of `source`: `sha256:` and 64 lowercase hex digits (empty for a retirement).
    public var hash: String
    /// The manifest YAML as published (empty for a retirement).
    public var source: String
    /// When it was published.
    public var publishedAt: Date
    /// Who published it: an API key id, or `file <path>` for a manifest file read at start or on `SIGHUP`.
    public var publishedBy: String
    /// Whether this version retires the app (no manifest in force for it from this version on).
    public var retired: Bool

    /// Creates a version record.
    public init(
        app: String, version: Int, hash: String, source: String, publishedAt: Date, publishedBy: String, retired: Bool = false
    ) {
        self.app = app
        self.version = version
        self.hash = hash
        self.source = source
        self.publishedAt = publishedAt
        self.publishedBy = publishedBy
        self.retired = retired
    }

    /// The `publishedBy` of a version published from a manifest file.
    public static func fileActor(_ path: String) -> String { "file " + path }

    /// Whether this version was published from a manifest file (at start or on `SIGHUP`).
    public var isFromFile: Bool { publishedBy.hasPrefix("file ") }
}

/// Live links of one route moved to another route by a publish, their params renamed (`params`: old name → new
/// name; a param not named keeps its name).
public struct LinkMove: Sendable, Equatable {
    /// The route the links have now.
    public var from: String
    /// The route they get.
    public var to: String
    /// Param renames, old name → new name.
    public var params: [String: String]

    /// Creates a move.
    public init(from: String, to: String, params: [String: String] = [:]) {
        self.from = from
        self.to = to
        self.params = params
    }
}

/// The live links (active, not expired) of one route of an app: how many, and a few of their ids.
public struct RouteLiveLinks: Sendable, Equatable {
    /// The route.
    public var route: String
    /// How many live links open it.
    public var count: Int
    /// Up to `sampleSize` of their ids, in id order.
    public var sample: [String]

    /// Creates a count.
    public init(route: String, count: Int, sample: [String]) {
        self.route = route
        self.count = count
        self.sample = sample
    }
}

/// The published manifests: every version of every app, the live links per route (what a publish is checked
/// against), and the publish itself (optimistic: a version is written only after the one it was made from).
public protocol ManifestTable: Sendable {
    /// The newest version of every app (retirements included), by app id.
    func fetchCurrentManifests() async throws -> [ManifestVersion]
    /// Every version of `app`, newest first (sources included).
    func fetchManifestVersions(app: String) async throws -> [ManifestVersion]
    /// Writes `record` as the app's newest version if the app's newest version is now `record.version - 1` (none
    /// for version 1), moves the live links `moves` name, and writes `audit`, all or none (a shared store announces
    /// the change). Throws `conflict` when another version was written meanwhile. The ids of the links moved.
    func publishManifest(_ record: ManifestVersion, moves: [LinkMove], audit: AuditEntry?) async throws -> [String]
    /// The live links of `app` (active, expiring after `now`) per route, with a sample of ids per route.
    func liveLinksByRoute(app: String, now: Date) async throws -> [RouteLiveLinks]
}

extension RouteLiveLinks {
    /// How many link ids a `RouteLiveLinks` carries.
    public static let sampleSize = 5
}
