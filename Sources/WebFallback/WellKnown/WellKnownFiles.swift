import Foundation
public import LinkRouter

/// Why the well-known files could not be built.
public struct WellKnownError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, naming the host and the manifests.
    public let message: String
    /// The message.
    public var description: String { message }
}

/// The `/.well-known/` files of every host the manifests name, built once at start:
/// - `apple-app-site-association`: `applinks.details[].components` from the route patterns served on the host (and the
///   share path on share hosts), so that iOS opens in the app exactly the paths linkd resolves there, within what
///   Apple's patterns can say (`AppManifest.appleLinkComponents(host:)`: excludes before includes, first match wins);
///   `webcredentials` and `appclips` when a manifest asks for them.
/// - `assetlinks.json`: Android App Links (`delegate_permission/common.handle_all_urls`) for apps with a package and
///   certificate fingerprints; an empty list for a host without. Unless the manifest says `android.dynamicAppLinks:
///   false`, each statement carries `relation_extensions` with the host's `dynamic_app_link_components` (Android 15+):
///   the same paths as the apple-app-site-association in Android's syntax (`AppManifest.androidLinkComponents(host:)`:
///   the path matched decoded, excludes before includes, first match wins, no match stays in the browser).
/// Each file is JSON with sorted keys, at most `maxBytes`.
public struct WellKnownFiles: Sendable {
    /// Apple's limit for apple-app-site-association, applied to both files.
    public static let maxBytes = 128 * 1024

    private let associations: [String: [UInt8]]
    private let assetLinks: [String: [UInt8]]

    /// Builds the files of every host of `manifests`.
    /// - Throws: `WellKnownError` when a host's file would be larger than `maxBytes`.
    public init(manifests: [AppManifest]) throws(WellKnownError) {
        var byHost: [String: [AppManifest]] = [:]
        for manifest in manifests {
            for host in Set(manifest.hosts + manifest.shareHosts) { byHost[host, default: []].append(manifest) }
        }
        var associations: [String: [UInt8]] = [:]
        var assetLinks: [String: [UInt8]] = [:]
        for (host, apps) in byHost {
            let association = Self.encode(Self.appleAppSiteAssociation(host: host, manifests: apps))
            let links = Self.encode(Self.assetLinks(host: host, manifests: apps))
            for (name, bytes) in [("apple-app-site-association", association), ("assetlinks.json", links)] where bytes.count > Self.maxBytes {
                throw WellKnownError(message: "\(name) for \(host) would be \(bytes.count) bytes, over the \(Self.maxBytes)-byte limit "
                    + "(manifests: \(apps.map(\.sourceFile).joined(separator: ", "))); use fewer or more general patterns")
            }
            associations[host] = association
            assetLinks[host] = links
        }
        self.associations = associations
        self.assetLinks = assetLinks
    }

    /// The apple-app-site-association file for `host` (lowercase, no port); nil for a host no manifest names.
    public func appleAppSiteAssociation(host: String) -> [UInt8]? { associations[host] }

    /// The assetlinks.json file for `host`; nil for a host no manifest names.
    public func assetLinks(host: String) -> [UInt8]? { assetLinks[host] }

    /// Every host with files.
    public var hosts: [String] { associations.keys.sorted() }

    // MARK: apple-app-site-association

    /// The `applinks` / `webcredentials` / `appclips` document of one host.
    struct AppleAppSiteAssociation: Encodable {
        struct AppLinks: Encodable { var details: [Detail] }
        struct Detail: Encodable {
            var appIDs: [String]
            var components: [Component]
        }
        struct Component: Encodable {
            var path: String
            var query: [String: String]?
            var exclude: Bool?
            var caseSensitive: Bool?
            enum CodingKeys: String, CodingKey { case path = "/", query = "?", exclude, caseSensitive }
        }
        struct Apps: Encodable { var apps: [String] }
        var applinks: AppLinks
        var webcredentials: Apps?
        var appclips: Apps?
    }

    /// The two files of `host` as `manifests` and the live `customPaths` of their apps (app id → paths) make them:
    /// what a share host serves while links hold custom paths. Nil when either would be over `maxBytes`.
    public static func files(
        host: String, manifests: [AppManifest], customPaths: [String: [String]]
    ) -> (appleAppSiteAssociation: [UInt8], assetLinks: [UInt8])? {
        let association = encode(appleAppSiteAssociation(host: host, manifests: manifests, customPaths: customPaths))
        let links = encode(assetLinks(host: host, manifests: manifests, customPaths: customPaths))
        guard association.count <= maxBytes, links.count <= maxBytes else { return nil }
        return (association, links)
    }

    static func appleAppSiteAssociation(
        host: String, manifests: [AppManifest], customPaths: [String: [String]] = [:]
    ) -> AppleAppSiteAssociation {
        var details: [AppleAppSiteAssociation.Detail] = []
        var credentials: [String] = []
        var clips: [String] = []
        for manifest in manifests where !manifest.iosAppIDs.isEmpty {
            let caseSensitive: Bool? = manifest.caseInsensitivePaths ? false : nil
            let components = manifest.appleLinkComponents(host: host, customPaths: customPaths[manifest.app] ?? []).map { component in
                AppleAppSiteAssociation.Component(
                    path: component.path, query: component.query.isEmpty ? nil : component.query,
                    exclude: component.exclude ? true : nil, caseSensitive: caseSensitive)
            }
            details.append(.init(appIDs: manifest.iosAppIDs, components: components))
            if manifest.iosWebCredentials { credentials += manifest.iosAppIDs }
            clips += manifest.iosAppClipIDs
        }
        return AppleAppSiteAssociation(
            applinks: .init(details: details),
            webcredentials: credentials.isEmpty ? nil : .init(apps: credentials),
            appclips: clips.isEmpty ? nil : .init(apps: clips))
    }

    // MARK: assetlinks.json

    /// One statement of assetlinks.json.
    struct AssetLinkStatement: Encodable {
        /// The relation every statement grants, and the key of its extension.
        static let handleAllURLs = "delegate_permission/common.handle_all_urls"
        struct Target: Encodable {
            var namespace = "android_app"
            var packageName: String
            var fingerprints: [String]
            enum CodingKeys: String, CodingKey { case namespace, packageName = "package_name", fingerprints = "sha256_cert_fingerprints" }
        }
        /// The relation's extension: Dynamic App Links' rules.
        struct Extension: Encodable {
            var components: [Component]
            enum CodingKeys: String, CodingKey { case components = "dynamic_app_link_components" }
        }
        struct Component: Encodable {
            var path: String
            var query: [String: String]?
            var exclude: Bool?
            enum CodingKeys: String, CodingKey { case path = "/", query = "?", exclude }
        }
        var relation = [Self.handleAllURLs]
        var target: Target
        var extensions: [String: Extension]?
        enum CodingKeys: String, CodingKey { case relation, target, extensions = "relation_extensions" }
    }

    static func assetLinks(host: String, manifests: [AppManifest], customPaths: [String: [String]] = [:]) -> [AssetLinkStatement] {
        manifests.compactMap { manifest in
            guard let package = manifest.androidPackage, !manifest.androidFingerprints.isEmpty else { return nil }
            var statement = AssetLinkStatement(
                target: .init(packageName: package, fingerprints: manifest.androidFingerprints.map { $0.uppercased() }))
            if manifest.androidDynamicAppLinks {
                let components = manifest.androidLinkComponents(host: host, customPaths: customPaths[manifest.app] ?? []).map { component in
                    AssetLinkStatement.Component(
                        path: component.path, query: component.query.isEmpty ? nil : component.query,
                        exclude: component.exclude ? true : nil)
                }
                statement.extensions = [AssetLinkStatement.handleAllURLs: .init(components: components)]
            }
            return statement
        }
    }

    private static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data("{}".utf8))
    }
}
