import Foundation
import LinkRouter
import LinkStore
import Logging
import TokenSigning

/// What `linkd serve` sets up before it answers: the manifests, the master key, signing keys with an active key of
/// every suite for every app, and on first start an admin key, written to a private file in the data directory.
struct ServerBootstrap: Sendable {
    /// The manifests in force, behind the one handle every component reads.
    let apps: AppsInForce
    /// The signing keys, sealed in the store under the master key, and their administration (which holds the
    /// keyring in force, `keys.inForce`).
    let keys: KeyAdministration
    /// The master key: seals the signing keys and the webhook secrets.
    let masterKey: MasterKey
    /// The file the admin key made on this (first) start was written to (`<dataDir>/initial-admin-key`, mode 0600);
    /// nil when an admin key already existed.
    let initialAdminKeyFile: String?

    /// The name of the file the first admin key is written to, in the data directory.
    static let initialAdminKeyFileName = "initial-admin-key"

    /// Loads keys, generating what is missing: the manifest `files` (read by `loadManifestFiles`) are published to the store
    /// (`ManifestPublisher.publishFiles`) and the versions in force there make the first snapshot.
    static func run(
        configuration: ServerConfiguration, files: [ManifestFile], store: StoreFront, factory: AppSnapshotFactory,
        environment: [String: String], logger: Logger
    ) async throws -> ServerBootstrap {
        let masterKey: MasterKey
        do {
            masterKey = try MasterKey.loadOrCreate(at: configuration.store.dataDir + "/master.key", environment: environment)
        } catch let error as TokenError {
            throw ConfigurationError(message: error.message)
        }
        let keys = try await KeyAdministration.open(store: store, masterKey: masterKey, logger: logger)
        // Under the store's key lock: instances starting together on an empty shared store publish the files once,
        // and make one set of keys and one admin key between them.
        let (snapshot, initialAdminKeyFile) = try await store.withKeyLock { () -> (AppSnapshot, String?) in
            try await ManifestFiles.publish(files, store: store, logger: logger)
            let current = try await store.currentManifests().filter { !$0.retired }
            let snapshot: AppSnapshot
            do {
                snapshot = try ManifestPublisher.snapshot(of: current, order: files.map(\.manifest.app), factory: factory, previous: nil)
            } catch let error as ManifestErrors {
                throw ConfigurationError(message: "the published manifests are refused:\n" + error.description)
            }
            try await generateMissingSigningKeys(for: snapshot.router.appIDs, keys: keys, logger: logger)
            guard try await !store.apiKeys(kind: .admin).contains(where: { $0.revoked == nil }) else { return (snapshot, nil) }
            return (snapshot, try await makeInitialAdminKey(store: store, dataDir: configuration.store.dataDir, logger: logger))
        }
        return ServerBootstrap(
            apps: AppsInForce(snapshot, factory: factory), keys: keys, masterKey: masterKey, initialAdminKeyFile: initialAdminKeyFile)
    }

    /// Makes an active key of every suite for each of `appIDs` that lacks one; the caller holds the store's key lock.
    static func generateMissingSigningKeys(for appIDs: [String], keys: KeyAdministration, logger: Logger) async throws {
        let made = try await keys.changeHoldingLock { draft -> [KeyInfo] in
            var made: [KeyInfo] = []
            for app in appIDs {
                for suite in TokenSuite.allCases
                where !draft.keys(app: app).contains(where: { $0.suite == suite && $0.state == .active }) {
                    made.append(try draft.generate(app: app, suite: suite))
                }
            }
            return made
        }
        for key in made {
            logger.notice("generated a signing key", metadata: ["app": "\(key.app)", "suite": "\(key.suite.name)", "kid": "\(key.kid)"])
        }
    }

    /// `generateMissingSigningKeys` under the store's key lock, when some app of `appIDs` lacks a key.
    static func withMissingSigningKeys(for appIDs: [String], store: StoreFront, keys: KeyAdministration, logger: Logger) async throws {
        let keyring = keys.keyring
        let lacking = appIDs.filter { app in
            TokenSuite.allCases.contains { suite in !keyring.keys(app: app).contains { $0.suite == suite && $0.state == .active } }
        }
        guard !lacking.isEmpty else { return }
        try await store.withKeyLock { try await generateMissingSigningKeys(for: lacking, keys: keys, logger: logger) }
    }

    /// Makes the first admin key: its secret written to `<dataDir>/initial-admin-key` (mode 0600, created
    /// exclusively, never through a symbolic link) first, then its hash and audit entry stored in one transaction;
    /// if the store fails the file is removed. Returns the file's path. The secret is never printed or logged.
    static func makeInitialAdminKey(store: StoreFront, dataDir: String, logger: Logger) async throws -> String {
        let path = dataDir + "/" + initialAdminKeyFileName
        if FileProbe.entryExists(path) {
            throw ConfigurationError(message: "\(path) exists, and no admin key is active: it holds a key made before (revoked, "
                + "or of another database). Delete it, then start linkd again to make a new admin key")
        }
        let (record, secret) = APIKeyAuthenticator.makeKey(kind: .admin, app: nil, label: "initial admin key")
        do {
            try SecretFile.create(Array((secret + "\n").utf8), at: path)
        } catch {
            throw ConfigurationError(message: "cannot write the first admin key: \(error.message)")
        }
        do {
            try await store.createAPIKey(
                record, audit: AuditEntry(at: Date(), actor: "linkd", action: AuditAction.apiKeyCreate.rawValue, detail: "\(record.id) admin (first start)"))
        } catch {
            unlink(path)
            throw error
        }
        logger.logAdminAction(.apiKeyCreate, actor: "linkd", ["apiKey": "\(record.id)", "kind": "admin", "file": "\(path)"])
        return path
    }

    /// The router of the configured manifest files alone (tools and tests; the daemon serves the published versions).
    static func loadRouter(_ manifests: [String], environment: [String: String]) throws -> Router {
        do {
            return try Router(manifests: loadManifestFiles(manifests, environment: environment).map(\.manifest))
        } catch let error as ManifestErrors {
            throw ConfigurationError(message: "the manifests are refused:\n" + error.description)
        }
    }

    /// The configured manifest files (the demo manifests when none are configured), read and validated together;
    /// every problem is listed in the error.
    static func loadManifestFiles(_ manifests: [String], environment: [String: String]) throws -> [ManifestFile] {
        let paths: [String]
        do {
            paths = try ManifestPaths.resolve(
                explicit: manifests, environment: [:], howToName: "name them in the configuration file (manifests: [a.yaml] with --config FILE)")
        } catch {
            throw ConfigurationError(message: "\(error)")
        }
        do {
            return try ManifestLoader.loadFiles(paths: paths).map { ManifestFile(path: $0.path, manifest: $0.manifest, source: $0.source) }
        } catch {
            throw ConfigurationError(message: "the manifests are refused:\n" + error.description)
        }
    }
}
