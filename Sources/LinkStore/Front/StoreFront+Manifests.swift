public import Foundation

// The published manifests through the front: a publish that moves links drops the record cache, so no instance
// serves a moved link's old route from memory (other instances drop theirs when the feed brings the change).
extension StoreFront {
    /// The newest version of every app (retirements included).
    public func currentManifests() async throws -> [ManifestVersion] {
        try await backend.fetchCurrentManifests()
    }

    /// Every version of `app`, newest first.
    public func manifestVersions(app: String) async throws -> [ManifestVersion] {
        try await backend.fetchManifestVersions(app: app)
    }

    /// Publishes `record` (optimistically: `conflict` when another version was written since `record.version - 1`),
    /// moving the live links `moves` name and writing `audit`, all or none; the ids of the links moved.
    public func publishManifest(_ record: ManifestVersion, moves: [LinkMove] = [], audit: AuditEntry? = nil) async throws -> [String] {
        let moved = try await backend.publishManifest(record, moves: moves, audit: audit)
        for id in moved { cache.remove(id) }
        return moved
    }

    /// The live links of `app` per route (active, not expired at `now`).
    public func liveLinksByRoute(app: String, now: Date = Date()) async throws -> [RouteLiveLinks] {
        try await backend.liveLinksByRoute(app: app, now: now)
    }
}
