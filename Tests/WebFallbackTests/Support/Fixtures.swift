import Foundation
@testable import WebFallback

/// Shared page fixtures.
enum Fixtures {
    /// The repository's `templates/` directory.
    static var templatesDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("templates").path
    }

    /// The example manifests (`examples/*.yaml`).
    static var exampleManifests: [String] {
        let examples = URL(fileURLWithPath: templatesDirectory).deletingLastPathComponent().appendingPathComponent("examples")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted().map { examples.appendingPathComponent($0).path }
    }

    static let handz = AppPageInfo(
        appID: "handz", displayName: "Handz", appStoreID: "1234567890", androidPackage: "com.example.handz",
        webFallbackURL: "https://handz.example.com")

    static func landing(title: String = "Morning flow", allowCreator: Bool = true, image: String? = nil) -> LandingPage {
        LandingPage(
            app: handz, shareURL: "https://links.example.com/s/AQAAAAEx", openInAppURL: "https://links.example.com/s/AQAAAAEx",
            customScheme: "handz", customSchemeURL: "handz://flow/42",
            preview: Preview(
                title: title, creatorName: "Ana", allowCreatorName: allowCreator,
                updatedAt: Date(timeIntervalSince1970: 1_790_000_000), imageURL: image))
    }

    static func renderer() throws -> PageRenderer {
        try PageRenderer(configuration: PageConfiguration(directory: templatesDirectory))
    }
}
