import Foundation
import LinkRouter
import LinkStore
import Logging
import TokenSigning

/// What `linkd serve` sets up before it answers: the manifests, the master key, a keyring with an active key of
/// every suite for every app, and on first start an admin key.
struct ServerBootstrap: Sendable {
    /// The compiled manifests.
    let router: Router
    /// The signing keys, sealed in the store under the master key.
    let keyring: Keyring
    /// The admin key made on this (first) start, to print once; nil when an admin key already existed.
    let initialAdminKey: String?

    /// Loads manifests and keys, generating what is missing.
    static func run(
        configuration: ServerConfiguration, store: any LinkStorage, environment: [String: String], logger: Logger
    ) async throws -> ServerBootstrap {
        let router = try loadRouter(configuration.manifests, environment: environment)
        let masterKey: MasterKey
        do {
            masterKey = try MasterKey.loadOrCreate(at: configuration.dataDir + "/master.key", environment: environment)
        } catch let error as TokenError {
            throw ConfigurationError(message: error.message)
        }
        let keyring = try Keyring(store: SQLiteKeyringStore(store: store), masterKey: masterKey)
        for app in router.appIDs {
            for suite in TokenSuite.allCases where !keyring.keys(app: app).contains(where: { $0.suite == suite && $0.state == .active }) {
                let key = try keyring.generate(app: app, suite: suite)
                logger.notice("generated a signing key", metadata: ["app": "\(app)", "suite": "\(suite.name)", "kid": "\(key.kid)"])
            }
        }
        var initialAdminKey: String?
        if try await !store.apiKeys(kind: .admin).contains(where: { $0.revoked == nil }) {
            let (record, secret) = APIKeyAuthenticator.makeKey(kind: .admin, app: nil, label: "initial admin key")
            try await store.createAPIKey(record)
            try await store.appendAudit(AuditEntry(at: Date(), actor: "linkd", action: "apikey.create", detail: "\(record.id) admin (first start)"))
            initialAdminKey = secret
        }
        return ServerBootstrap(router: router, keyring: keyring, initialAdminKey: initialAdminKey)
    }

    /// The router of the configured manifests (the demo manifests when none are configured); every manifest
    /// problem is listed in the error.
    static func loadRouter(_ manifests: [String], environment: [String: String]) throws -> Router {
        let paths: [String]
        do {
            paths = try ManifestPaths.resolve(explicit: manifests, environment: [:])
        } catch {
            throw ConfigurationError(message: "\(error)")
        }
        do {
            return try Router(manifests: ManifestLoader.load(paths: paths))
        } catch {
            throw ConfigurationError(message: "the manifests are refused:\n" + error.description)
        }
    }
}
