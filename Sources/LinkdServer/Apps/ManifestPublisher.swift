import Foundation
import LinkdHTTP
import LinkRouter
import LinkStore
import Logging
import TokenSigning

/// Publishes manifests while linkd serves: validates a manifest exactly as start-up does, checks it against the
/// live links (`ManifestImpact`), stores it as the app's next version (with the links `moves` carry, and the audit
/// entry, in one transaction), makes signing keys for a new app, and installs the new snapshot in `apps`. Other
/// instances sharing the store install it when the store's feed brings the change (`reloadFromStore`).
///
/// The manifest files given at start are published too (`publishFiles`): a file whose text was never published
/// becomes the app's next version; a file unchanged since its text was last published leaves the store's version
/// in force (a later publish through the API wins over a file nobody edited).
final class ManifestPublisher: Sendable {
    let store: StoreFront
    let apps: AppsInForce
    let keys: KeyAdministration
    let logger: Logger
    /// One publish at a time on this instance; across instances, publishes also hold the store's key lock (a new
    /// app's keys are made under it), so two instances never check their changes against each other's half-seen
    /// state — two apps claiming one host at the same moment, say.
    private let lock = AsyncLock()

    /// - Parameters: see the properties.
    init(store: StoreFront, apps: AppsInForce, keys: KeyAdministration, logger: Logger) {
        self.store = store
        self.apps = apps
        self.keys = keys
        self.logger = logger
    }

    /// What a publish asks for.
    struct Request: Sendable {
        /// The app published.
        var app: String
        /// The manifest YAML.
        var source: String
        /// Live links to carry to other routes.
        var moves: [LinkMove] = []
        /// Publish even if live links are stranded (they become unavailable).
        var force = false
        /// Report only: change nothing.
        var dryRun = false
        /// The version the request was made from (`If-Match`); nil: whatever is in force.
        var expectedVersion: Int?
        /// Who publishes: an API key id, or `file <path>`.
        var actor: String
        /// The name the manifest's problems are reported under.
        var fileName: String
        /// The audit action (`manifest.publish`, `manifest.rollback`).
        var action = AuditAction.manifestPublish
    }

    /// What a publish did (or, in a dry run, would do).
    struct Outcome: Encodable, Sendable {
        let app: String
        /// The version in force after it (in a dry run, the version it would make).
        let version: Int
        let hash: String
        let publishedAt: Date
        let publishedBy: String
        /// True when the manifest was already the version in force: nothing was written.
        let unchanged: Bool
        let dryRun: Bool
        /// In a dry run: whether the publish would be refused (it would strand live links, without `force`).
        var refused = false
        /// How many live links `moves` carried (in a dry run, would carry).
        let moved: Int
        let impact: ManifestImpact
    }

    /// The content hash of a manifest's text: `sha256:` and 64 hex digits.
    static func hash(_ source: String) -> String {
        "sha256:" + SecretDigest.sha256(Array(source.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    // MARK: Publishing

    /// Publishes `request.source` as the next version of `request.app` (see the type's documentation).
    func publish(_ request: Request) async throws -> Outcome {
        try await Self.storeUnavailableOnFailure {
            try await lock.run { try await self.store.withKeyLock { try await self.publishHoldingLock(request) } }
        }
    }

    private func publishHoldingLock(_ request: Request) async throws -> Outcome {
        let manifest: AppManifest
        do {
            manifest = try ManifestLoader.parse(yaml: request.source, file: request.fileName)
        } catch {
            throw ManifestPublishError(
                code: .invalid, message: "the manifest is refused: \(error.errors.count) problem(s)", problems: error.errors)
        }
        guard manifest.app == request.app else {
            throw ManifestPublishError(
                code: .appMismatch, message: "the manifest is of app '\(manifest.app.prefix(64))', published as '\(request.app.prefix(64))'")
        }
        let current = try await LinkService.storing { try await self.store.currentManifests() }
        let inForce = current.first { $0.app == request.app }
        let currentVersion = inForce?.version ?? 0
        if let expected = request.expectedVersion, expected != currentVersion {
            throw ManifestPublishError(
                code: .versionConflict, message: "\(request.app) is at version \(currentVersion), not \(expected) (If-Match)")
        }
        var snapshot = apps.snapshot
        if snapshot.versions[request.app]?.version != inForce.flatMap({ $0.retired ? nil : $0.version }) {
            try await reloadFromStore(holdingKeyLock: true)  // behind the store: start from what is in force
            snapshot = apps.snapshot
        }
        var manifests = snapshot.manifests
        if let index = manifests.firstIndex(where: { $0.app == request.app }) {
            manifests[index] = manifest
        } else {
            manifests.append(manifest)
        }
        let hash = Self.hash(request.source)
        let now = Date()
        let record = ManifestVersion(
            app: request.app, version: currentVersion + 1, hash: hash, source: request.source, publishedAt: now,
            publishedBy: request.actor)
        var versions = snapshot.versions
        versions[request.app] = record
        let candidate: AppSnapshot
        do {
            candidate = try apps.factory.make(manifests: manifests, versions: versions, previous: snapshot)
        } catch {
            throw ManifestPublishError(
                code: .invalid, message: "the manifest is refused beside the other apps: \(error.errors.count) problem(s)",
                problems: error.errors)
        }
        let live = try await LinkService.storing { try await self.store.liveLinksByRoute(app: request.app) }
        let impact = try ManifestImpact.compute(
            app: request.app, fromVersion: inForce.map(\.version), old: snapshot.router.manifest(app: request.app), new: manifest,
            oldRouter: snapshot.router, newRouter: candidate.router, live: live, moves: request.moves)
        if let inForce, !inForce.retired, inForce.hash == hash, request.moves.isEmpty {
            return Outcome(
                app: request.app, version: inForce.version, hash: hash, publishedAt: inForce.publishedAt,
                publishedBy: inForce.publishedBy, unchanged: true, dryRun: request.dryRun, moved: 0, impact: impact)
        }
        let refused = impact.strands && !request.force
        if request.dryRun {
            return Outcome(
                app: request.app, version: record.version, hash: hash, publishedAt: now, publishedBy: request.actor,
                unchanged: false, dryRun: true, refused: refused, moved: impact.moved.reduce(0) { $0 + $1.count }, impact: impact)
        }
        if refused {
            throw ManifestPublishError(
                code: .strands,
                message: "publishing would strand \(impact.strandedLinks) live link(s) of \(request.app) ("
                    + impact.stranded.prefix(5).map { "\($0.route): \($0.count), \($0.reason)" }.joined(separator: "; ")
                    + (impact.stranded.count > 5 ? "; …" : "") + "): say where they go with moves, "
                    + "or publish with force to make them unavailable (error.details has the report)",
                impact: impact)
        }
        let entry = AuditEntry(
            at: now, actor: request.actor, action: request.action.rawValue,
            detail: "\(request.app) v\(record.version) \(hash)"
                + (impact.moved.isEmpty ? "" : ", moved \(impact.moved.reduce(0) { $0 + $1.count }) link(s)")
                + (impact.strands ? ", stranded \(impact.strandedLinks) link(s) (force)" : ""),
            app: request.app)
        let moved = try await storePublish(record, moves: request.moves, audit: entry)
        // In force at once (the store has it): a new app's keys follow; if the store fails them, its links cannot be
        // made until the next publish or start makes them, and the caller is told.
        apps.install(candidate)
        try await ServerBootstrap.generateMissingSigningKeys(for: [request.app], keys: keys, logger: logger)
        logger.logAdminAction(request.action, actor: request.actor, [
            "app": "\(request.app)", "version": "\(record.version)", "hash": "\(hash)", "moved": "\(moved.count)",
            "stranded": "\(impact.strands ? impact.strandedLinks : 0)",
        ])
        return Outcome(
            app: request.app, version: record.version, hash: hash, publishedAt: now, publishedBy: request.actor, unchanged: false,
            dryRun: false, moved: moved.count, impact: impact)
    }

    /// Publishes version `version` of `app` again, as its next version (the same checks as a publish).
    func rollback(
        app: String, to version: Int, moves: [LinkMove], force: Bool, dryRun: Bool, expectedVersion: Int?, actor: String
    ) async throws -> Outcome {
        let versions = try await LinkService.storing { try await self.store.manifestVersions(app: app) }
        guard let target = versions.first(where: { $0.version == version }), !target.retired else {
            throw ManifestPublishError(code: .notFound, message: "\(app.prefix(64)) has no version \(version) to roll back to")
        }
        return try await publish(Request(
            app: app, source: target.source, moves: moves, force: force, dryRun: dryRun, expectedVersion: expectedVersion,
            actor: actor, fileName: "\(app)@v\(version).yaml", action: .manifestRollback))
    }

    /// Retires `app`: refused while it has live links. Its versions stay in the store (a publish brings it back).
    func retire(app: String, expectedVersion: Int?, actor: String) async throws -> ManifestVersion {
        try await Self.storeUnavailableOnFailure { try await lock.run { try await self.store.withKeyLock {
            let current = try await LinkService.storing { try await self.store.currentManifests() }
            guard let inForce = current.first(where: { $0.app == app }), !inForce.retired else {
                throw ManifestPublishError(code: .notFound, message: "no app \(app.prefix(64)) is published")
            }
            if let expectedVersion, expectedVersion != inForce.version {
                throw ManifestPublishError(code: .versionConflict, message: "\(app) is at version \(inForce.version), not \(expectedVersion) (If-Match)")
            }
            let snapshot = self.apps.snapshot
            let live = try await LinkService.storing { try await self.store.liveLinksByRoute(app: app) }
            let remaining = snapshot.manifests.filter { $0.app != app }
            var versions = snapshot.versions
            versions[app] = nil
            let candidate: AppSnapshot
            do {
                candidate = try self.apps.factory.make(manifests: remaining, versions: versions, previous: snapshot)
            } catch let error as ManifestErrors {
                throw ManifestPublishError(code: .invalid, message: "the other apps do not load without \(app)", problems: error.errors)
            }
            if !live.isEmpty {
                let impact = try ManifestImpact.compute(
                    app: app, fromVersion: inForce.version, old: snapshot.router.manifest(app: app), new: nil,
                    oldRouter: snapshot.router, newRouter: nil, live: live, moves: [])
                throw ManifestPublishError(
                    code: .hasLiveLinks,
                    message: "\(app) has \(impact.liveLinks) live link(s): revoke them or let them expire before retiring it",
                    impact: impact)
            }
            let now = Date()
            let record = ManifestVersion(
                app: app, version: inForce.version + 1, hash: "", source: "", publishedAt: now, publishedBy: actor, retired: true)
            let entry = AuditEntry(at: now, actor: actor, action: AuditAction.appRetire.rawValue, detail: "\(app) v\(record.version)", app: app)
            _ = try await self.storePublish(record, moves: [], audit: entry)
            self.apps.install(candidate)
            self.logger.logAdminAction(.appRetire, actor: actor, ["app": "\(app)", "version": "\(record.version)"])
            return record
        } } }
    }

    /// `body`, with the store's own failures (its key lock not taken: the database away) answered as the link
    /// service's `store_unavailable`, a 503.
    private static func storeUnavailableOnFailure<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch is LinkStoreError {
            throw LinkError(.storeUnavailable, "the store failed; retry later")
        }
    }

    /// Writes a version: another version written meanwhile is a `versionConflict`, any other store failure the
    /// link service's `store_unavailable`.
    private func storePublish(_ record: ManifestVersion, moves: [LinkMove], audit: AuditEntry) async throws -> [String] {
        do {
            return try await store.publishManifest(record, moves: moves, audit: audit)
        } catch let error as LinkStoreError where error.code == .conflict {
            throw ManifestPublishError(code: .versionConflict, message: "\(record.app) changed meanwhile: \(error.message)")
        } catch {
            throw LinkError(.storeUnavailable, "the store failed; retry later")
        }
    }

    /// Reads the manifest files again (`SIGHUP`) and publishes the ones that changed, with a publish's checks
    /// (`ManifestFiles.decide`); a file that does not validate, or would strand live links, is logged and the
    /// version in force stays. Returns the apps published.
    @discardableResult
    func publishFiles(_ paths: [String]) async -> [String] {
        let files: [ManifestFile]
        do {
            files = try ServerBootstrap.loadManifestFiles(paths, environment: [:])
        } catch {
            logger.error("the manifest files are refused; the manifests in force stay", metadata: ["problems": "\(error)"])
            return []
        }
        var published: [String] = []
        for file in files {
            do {
                let app = file.manifest.app
                let current = try await store.currentManifests()
                let inForce = current.first { $0.app == app }
                let lastFromFile = inForce == nil ? nil : try await store.manifestVersions(app: app).first(where: \.isFromFile)
                switch ManifestFiles.decide(file, inForce: inForce, lastFromFile: lastFromFile) {
                case .inForce: continue
                case .storeWins(let since):
                    ManifestFiles.logStoreWins(file, inForce: inForce?.version ?? 0, since: since, logger: logger)
                    continue
                case .publish:
                    let outcome = try await publish(Request(
                        app: app, source: file.source, expectedVersion: inForce?.version ?? 0,
                        actor: ManifestVersion.fileActor(file.path), fileName: file.path))
                    if !outcome.unchanged { published.append(app) }
                }
            } catch let error as ManifestPublishError where error.code == .strands {
                if let impact = error.impact {
                    ManifestFiles.logStrands(file, inForce: impact.fromVersion ?? 0, impact: impact, logger: logger)
                }
            } catch {
                logger.error("a manifest file was not published", metadata: ["file": "\(file.path)", "error": "\(error)"])
            }
        }
        return published
    }

    // MARK: Loading

    /// Installs the versions in force in the store (another instance published, rolled back or retired an app).
    /// A stored version that no longer loads leaves the snapshot in force as it is, and is logged.
    /// - Parameter holdingKeyLock: whether the caller holds the store's key lock (a publish does).
    func reloadFromStore(holdingKeyLock: Bool = false) async throws {
        let current = try await store.currentManifests()
        let snapshot = apps.snapshot
        let inForce = current.filter { !$0.retired }
        guard Dictionary(uniqueKeysWithValues: inForce.map { ($0.app, $0.version) })
            != snapshot.versions.mapValues(\.version) else { return }
        do {
            let next = try Self.snapshot(of: inForce, order: snapshot.manifests.map(\.app), factory: apps.factory, previous: snapshot)
            if holdingKeyLock {
                try await ServerBootstrap.generateMissingSigningKeys(for: next.router.appIDs, keys: keys, logger: logger)
            } else {
                try await ServerBootstrap.withMissingSigningKeys(for: next.router.appIDs, store: store, keys: keys, logger: logger)
            }
            apps.install(next)
            logger.notice("manifests in force changed", metadata: [
                "versions": "\(inForce.map { "\($0.app) v\($0.version)" }.joined(separator: ", "))",
            ])
        } catch let error as ManifestErrors {
            logger.error("a published manifest does not load; keeping the manifests in force", metadata: ["problems": "\(error)"])
        }
    }

    /// The snapshot of the stored versions `records`, in `order` first (then by app id).
    static func snapshot(
        of records: [ManifestVersion], order: [String], factory: AppSnapshotFactory, previous: AppSnapshot?
    ) throws(ManifestErrors) -> AppSnapshot {
        let sorted = records.sorted { lhs, rhs in
            let (left, right) = (order.firstIndex(of: lhs.app) ?? Int.max, order.firstIndex(of: rhs.app) ?? Int.max)
            return left != right ? left < right : lhs.app < rhs.app
        }
        var manifests: [AppManifest] = []
        var errors: [ManifestError] = []
        for record in sorted {
            let file = record.isFromFile ? String(record.publishedBy.dropFirst("file ".count)) : "\(record.app)@v\(record.version).yaml"
            do {
                manifests.append(try ManifestLoader.parse(yaml: record.source, file: file))
            } catch {
                errors += error.errors
            }
        }
        guard errors.isEmpty else { throw ManifestErrors(errors) }
        return try factory.make(
            manifests: manifests, versions: Dictionary(uniqueKeysWithValues: sorted.map { ($0.app, $0) }), previous: previous)
    }
}
