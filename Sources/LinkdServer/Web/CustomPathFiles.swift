import Foundation
import LinkRouter
import LinkStore
import Synchronization
import WebFallback

/// The well-known files of a share host whose apps' links hold custom paths: the manifests' files with each live
/// custom path added (`WellKnownFiles.files(host:manifests:customPaths:)`), so that iOS and Android open exactly the
/// custom paths linkd answers with a link, and nothing more. Per-link data, so the files are made from the store's
/// live paths (at most `LinkService.maxCustomPathsPerApp` per app, newest first; not those of the app's
/// `share.pathPatterns`, which the manifests' files cover once each) and kept `lifetime`: a path taken or
/// let go is in the files within it — and in the operating systems' copies when they fetch them next (Apple's CDN
/// keeps a file for hours). A host whose apps hold no live path, a store that fails, or files that would be too
/// large get the manifests' files alone.
final class CustomPathFiles: Sendable {
    /// How long made files are served before the store is read again.
    static let lifetime: Duration = .seconds(10)

    private struct Entry {
        var snapshot: ObjectIdentifier
        var made: ContinuousClock.Instant
        var files: (appleAppSiteAssociation: [UInt8], assetLinks: [UInt8])?
    }

    private let store: StoreFront
    private let entries = Mutex<[String: Entry]>([:])

    /// - Parameter store: where the live custom paths are read.
    init(store: StoreFront) {
        self.store = store
    }

    /// The files of `host` (lowercase, no port) with its apps' custom paths; nil when the manifests' own files are the
    /// answer.
    func files(host: String, snapshot: AppSnapshot) async -> (appleAppSiteAssociation: [UInt8], assetLinks: [UInt8])? {
        let now = ContinuousClock.now
        let identity = ObjectIdentifier(snapshot)
        if let entry = entries.withLock({ $0[host] }), entry.snapshot == identity, now - entry.made < Self.lifetime {
            return entry.files
        }
        let manifests = snapshot.router.manifests.filter { Set($0.hosts + $0.shareHosts).contains(host) }
        var paths: [String: [String]] = [:]
        for manifest in manifests where manifest.share != nil && manifest.shareHosts.contains(host) {
            let outside = LinkService.patternShapes(manifest)
            guard let live = try? await store.liveCustomPaths(app: manifest.app, limit: LinkService.maxCustomPathsPerApp, outside: outside)
            else { return nil }
            if !live.isEmpty { paths[manifest.app] = live.sorted() }
        }
        let files = paths.isEmpty ? nil : WellKnownFiles.files(host: host, manifests: manifests, customPaths: paths)
        entries.withLock { entries in
            if entries.count >= Self.maxHosts { entries.removeAll() }
            entries[host] = Entry(snapshot: identity, made: now, files: files)
        }
        return files
    }

    /// The most hosts remembered (every host of every manifest, in practice a handful).
    static let maxHosts = 1_024
}
