import Foundation
import LinkRouter

/// Paths and shared routers for the tests.
enum Examples {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static func path(_ name: String) -> String { "\(root)/examples/\(name).yaml" }
    static let all = ["handz", "coin", "ordentus", "story"].map(path)

    static func router() throws -> Router {
        try Router(manifests: ManifestLoader.load(paths: all))
    }
}

let flowID = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
