import Foundation
import LinkRouter
import LinkStore
import Logging

/// One app as the admin API lists it.
struct AppVersionView: Encodable, Sendable {
    let app: String
    let displayName: String?
    let version: Int
    let hash: String
    let publishedAt: Date
    let publishedBy: String
    let retired: Bool
    let hosts: [String]
    let schemes: [String]
    let routes: Int
}

// The apps' manifests: listing, reading, publishing, rolling back, retiring — the admin API's and the CLI's door.
extension AdminService {
    /// Every published app (retired ones included), by app id, with the version in force.
    func listApps() async throws -> [AppVersionView] {
        let snapshot = publisher.apps.snapshot
        let current = try await LinkService.storing { try await store.currentManifests() }
        return current.map { record in
            let manifest = record.retired ? nil : snapshot.router.manifest(app: record.app)
            return AppVersionView(
                app: record.app, displayName: manifest?.displayName, version: record.version, hash: record.hash,
                publishedAt: record.publishedAt, publishedBy: record.publishedBy, retired: record.retired,
                hosts: manifest?.hosts ?? [], schemes: manifest?.schemes ?? [], routes: manifest?.routes.count ?? 0)
        }
    }

    /// Every version of `app`, newest first (404 when it was never published).
    func manifestVersions(app: String) async throws -> [ManifestVersion] {
        let versions = try await LinkService.storing { try await store.manifestVersions(app: app) }
        guard !versions.isEmpty else { throw ManifestPublishError(code: .notFound, message: "no app \(app.prefix(64)) is published") }
        return versions
    }

    /// Version `version` of `app` (nil: the one in force); 404 when there is none, or it is a retirement.
    func manifest(app: String, version: Int?) async throws -> ManifestVersion {
        let versions = try await manifestVersions(app: app)
        guard let found = version.map({ wanted in versions.first { $0.version == wanted } }) ?? versions.first, !found.retired else {
            throw ManifestPublishError(
                code: .notFound, message: version.map { "\(app.prefix(64)) has no manifest version \($0)" } ?? "\(app.prefix(64)) is retired")
        }
        return found
    }

    /// Publishes a manifest for `app` (`ManifestPublisher.publish`), as the caller.
    func publishManifest(_ request: ManifestPublisher.Request) async throws -> ManifestPublisher.Outcome {
        try await publisher.publish(request)
    }

    /// Publishes version `version` of `app` again.
    func rollbackManifest(
        app: String, to version: Int, moves: [LinkMove], force: Bool, dryRun: Bool, expectedVersion: Int?, by caller: Caller
    ) async throws -> ManifestPublisher.Outcome {
        try await publisher.rollback(
            app: app, to: version, moves: moves, force: force, dryRun: dryRun, expectedVersion: expectedVersion, actor: caller.keyID)
    }

    /// Retires `app` (refused while it has live links).
    func retireApp(_ app: String, expectedVersion: Int?, by caller: Caller) async throws -> ManifestVersion {
        try await publisher.retire(app: app, expectedVersion: expectedVersion, actor: caller.keyID)
    }
}
