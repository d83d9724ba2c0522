import Foundation
import LinkRouter
import LinkdTestSupport
import WebFallback
@testable import LinkdServer

extension AppsInForce {
    /// The apps of `router`, rendered with the repository's templates: a handle for tests that build a service
    /// without a daemon.
    static func fixed(_ router: Router) throws -> AppsInForce {
        let factory = AppSnapshotFactory(
            renderer: try PageRenderer(configuration: PageConfiguration(directory: LinkdProcess.repositoryRoot.path + "/templates")),
            fetches: OriginFetches(limit: 4), previewWait: .milliseconds(100))
        return AppsInForce(try factory.make(manifests: router.manifests, versions: [:], previous: nil), factory: factory)
    }
}
