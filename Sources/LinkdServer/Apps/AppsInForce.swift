import Foundation
import LinkdHTTP
import LinkRouter
import LinkStore
import Synchronization
import WebFallback

/// Everything made from the manifests in force, made once per publish and read as one: the compiled router, the
/// version of each app, the well-known files, the share pages and the pages of app-link URLs. A request reads one
/// snapshot (`AppsInForce.snapshot`) and works from it alone, so it never sees half of a publish.
final class AppSnapshot: Sendable {
    /// The compiled manifests.
    let router: Router
    /// The version in force of each app, by app id (empty for apps no store version names, as in unit tests).
    let versions: [String: ManifestVersion]
    /// `/.well-known/apple-app-site-association` and `assetlinks.json` per host.
    let wellKnown: WellKnownFiles
    /// The share pages (landing, unavailable, QR) of every app.
    let sharePages: SharePages<ReadyResponse>
    /// The pages of app-link URLs opened in a browser.
    let appLinkPages: AppLinkPages<ReadyResponse>

    init(
        router: Router, versions: [String: ManifestVersion], wellKnown: WellKnownFiles, sharePages: SharePages<ReadyResponse>,
        appLinkPages: AppLinkPages<ReadyResponse>
    ) {
        self.router = router
        self.versions = versions
        self.wellKnown = wellKnown
        self.sharePages = sharePages
        self.appLinkPages = appLinkPages
    }

    /// The manifests in force, in load order.
    var manifests: [AppManifest] { router.manifests }
}

/// What every snapshot shares — the templates, the origin-fetch limit, the preview wait — and how one is made.
struct AppSnapshotFactory: Sendable {
    /// The renderer of every page (templates read once at start).
    let renderer: PageRenderer
    /// Origin fetches in flight, across snapshots.
    let fetches: OriginFetches
    /// The longest a share page waits for an origin's preview.
    let previewWait: Duration

    /// A snapshot of `manifests`: compiled, checked together (an app, host or scheme claimed twice), their
    /// well-known files made. Throws the manifests' problems, or the well-known files' (a `ManifestErrors`).
    func make(
        manifests: [AppManifest], versions: [String: ManifestVersion], previous: AppSnapshot?
    ) throws(ManifestErrors) -> AppSnapshot {
        let router = try Router(manifests: manifests)
        let wellKnown: WellKnownFiles
        do {
            wellKnown = try WellKnownFiles(manifests: manifests)
        } catch {
            let mark = SourceMark(file: manifests.first?.sourceFile ?? "manifest", line: 1, column: 1)
            throw ManifestErrors([ManifestError(.badValue, at: mark, error.message, hint: "fix the app's well-known settings")])
        }
        let sharePages = SharePages(
            router: router, renderer: renderer, fetches: fetches, previewWait: previewWait, previous: previous?.sharePages,
            makePage: ReadyResponse.init(page:))
        return AppSnapshot(
            router: router, versions: versions, wellKnown: wellKnown, sharePages: sharePages,
            appLinkPages: AppLinkPages(router: router, renderer: renderer, makePage: ReadyResponse.init(page:)))
    }
}

/// The one handle to the apps in force. Every component reads the manifests through it; a publish, a rollback, a
/// retirement or another instance's change (through the store's feed) installs a new snapshot, swapped whole.
final class AppsInForce: Sendable {
    private let current: Mutex<AppSnapshot>
    /// How snapshots are made.
    let factory: AppSnapshotFactory

    init(_ snapshot: AppSnapshot, factory: AppSnapshotFactory) {
        current = Mutex(snapshot)
        self.factory = factory
    }

    /// The snapshot in force now: read it once per request and work from it.
    var snapshot: AppSnapshot { current.withLock { $0 } }

    /// The compiled manifests in force now (a shorthand for `snapshot.router`).
    var router: Router { snapshot.router }

    /// Puts `snapshot` in force: requests that start from now on read it.
    func install(_ snapshot: AppSnapshot) {
        current.withLock { $0 = snapshot }
    }
}
