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
    /// The signing keys, sealed in the store under the master key, and their administration.
    let keys: KeyAdministration
    /// The keyring of `keys`.
    var keyring: Keyring { keys.keyring }
    /// The admin key made on this (first) start, to print once; nil when an admin key already existed.
    let initialAdminKey: String?

    /// Loads manifests and keys, generating what is missing.
    static func run(
        configuration: ServerConfiguration, store: StoreFront, environment: [String: String], logger: Logger
    ) async throws -> ServerBootstrap {
        let router = try loadRouter(configuration.manifests, environment: environment)
        let masterKey: MasterKey
        do {
            masterKey = try MasterKey.loadOrCreate(at: configuration.dataDir + "/master.key", environment: environment)
        } catch let error as TokenError {
            throw ConfigurationError(message: error.message)
        }
        let keys = try await KeyAdministration.open(store: store, masterKey: masterKey, logger: logger)
        // Under the store's key lock: instances starting together on an empty shared store make one set of keys
        // and one admin key between them.
        let initialAdminKey = try await store.withKeyLock { () -> String? in
            let made = try await keys.changeHoldingLock { keyring -> [KeyInfo] in
                var made: [KeyInfo] = []
                for app in router.appIDs {
                    for suite in TokenSuite.allCases
                    where !keyring.keys(app: app).contains(where: { $0.suite == suite && $0.state == .active }) {
                        made.append(try keyring.generate(app: app, suite: suite))
                    }
                }
                return made
            }
            for key in made {
                logger.notice("generated a signing key", metadata: ["app": "\(key.app)", "suite": "\(key.suite.name)", "kid": "\(key.kid)"])
            }
            guard try await !store.apiKeys(kind: .admin).contains(where: { $0.revoked == nil }) else { return nil }
            let (record, secret) = APIKeyAuthenticator.makeKey(kind: .admin, app: nil, label: "initial admin key")
            // The key and its audit entry in one transaction.
            try await store.createAPIKey(
                record, audit: AuditEntry(at: Date(), actor: "linkd", action: "apikey.create", detail: "\(record.id) admin (first start)"))
            logger.logAdminAction("apikey.create", actor: "linkd", ["apiKey": "\(record.id)", "kind": "admin"])
            return secret
        }
        return ServerBootstrap(router: router, keys: keys, initialAdminKey: initialAdminKey)
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
