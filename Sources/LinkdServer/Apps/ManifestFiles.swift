import Foundation
import LinkRouter
import LinkStore
import Logging

/// A manifest file given at start (`manifests`), read and validated.
struct ManifestFile: Sendable {
    /// The path as configured.
    let path: String
    /// The manifest it holds.
    let manifest: AppManifest
    /// Its text, as published.
    let source: String
}

/// How manifest files meet the published versions at start (and on `SIGHUP`):
/// - an app the store has no version of: the file is published as version 1;
/// - a file whose text is the version in force: nothing to do;
/// - a file whose text was the last one published from a file, while a later version was published through the
///   API: the store's version stays in force (nobody edited the file since), and a notice says so;
/// - otherwise (the file was edited): it is published as the next version, after the same impact check as a
///   publish through the API; a file that would strand live links is not published (an error says so, and the
///   store's version stays in force: publish it through the API with `moves` or `force`).
enum ManifestFiles {
    /// What to do with one file.
    enum Decision: Equatable {
        /// Publish it as `version` (1 for an app the store has no version of).
        case publish(version: Int)
        /// Its text is the version in force: nothing to do.
        case inForce
        /// The store's version (published through the API) stays in force: the file is unchanged since
        /// `sinceVersion`, the last version published from a file.
        case storeWins(sinceVersion: Int)
    }

    /// What to do with `file`, given the app's version in force and the versions published from files.
    static func decide(_ file: ManifestFile, inForce: ManifestVersion?, lastFromFile: ManifestVersion?) -> Decision {
        let hash = ManifestPublisher.hash(file.source)
        guard let inForce else { return .publish(version: 1) }
        if !inForce.retired, inForce.hash == hash { return .inForce }
        if let lastFromFile, lastFromFile.hash == hash { return .storeWins(sinceVersion: lastFromFile.version) }
        return .publish(version: inForce.version + 1)
    }

    /// Logs that the store's version stays in force over `file`.
    static func logStoreWins(_ file: ManifestFile, inForce: Int, since: Int, logger: Logger) {
        logger.notice("the published version of the app is in force, not its manifest file (unchanged since version \(since))", metadata: [
            "app": "\(file.manifest.app)", "version": "\(inForce)", "file": "\(file.path)",
        ])
    }

    /// Publishes what `files` change at start, before any snapshot exists (the caller holds the store's key lock,
    /// so concurrent starts publish once). A file that would strand live links is logged and not published.
    static func publish(_ files: [ManifestFile], store: StoreFront, logger: Logger) async throws {
        let current = try await store.currentManifests()
        for file in files {
            let app = file.manifest.app
            let inForce = current.first { $0.app == app }
            let lastFromFile = inForce == nil ? nil : try await store.manifestVersions(app: app).first(where: \.isFromFile)
            let version: Int
            switch decide(file, inForce: inForce, lastFromFile: lastFromFile) {
            case .inForce: continue
            case .storeWins(let since):
                logStoreWins(file, inForce: inForce?.version ?? 0, since: since, logger: logger)
                continue
            case .publish(let next): version = next
            }
            if let inForce, !inForce.retired {
                let old = try? ManifestLoader.parse(yaml: inForce.source, file: "\(app)@v\(inForce.version).yaml")
                let impact = try ManifestImpact.compute(
                    app: app, fromVersion: inForce.version, old: old, new: file.manifest, oldRouter: nil, newRouter: nil,
                    live: try await store.liveLinksByRoute(app: app), moves: [])
                if impact.strands {
                    logStrands(file, inForce: inForce.version, impact: impact, logger: logger)
                    continue
                }
            }
            let record = ManifestVersion(
                app: app, version: version, hash: ManifestPublisher.hash(file.source), source: file.source, publishedAt: Date(),
                publishedBy: ManifestVersion.fileActor(file.path))
            // Version 1 of a file is set-up, as the first signing keys are: the version records who and when. An edited
            // file replacing a version in force is a change, audited as a publish through the API is.
            _ = try await store.publishManifest(record, audit: version == 1 ? nil : AuditEntry(
                at: record.publishedAt, actor: record.publishedBy, action: AuditAction.manifestPublish.rawValue,
                detail: "\(app) v\(version) \(record.hash)", app: app))
            logger.notice("published a manifest file", metadata: ["app": "\(app)", "version": "\(version)", "file": "\(file.path)"])
        }
    }

    /// Logs that `file` is not published because it would strand live links.
    static func logStrands(_ file: ManifestFile, inForce: Int, impact: ManifestImpact, logger: Logger) {
        logger.error("a manifest file would strand live links; the published version stays in force (publish it through the API with moves or force)", metadata: [
            "app": "\(file.manifest.app)", "file": "\(file.path)", "version": "\(inForce)", "stranded": "\(impact.strandedLinks)",
            "routes": "\(impact.stranded.map(\.route).joined(separator: ", "))",
        ])
    }
}
