import Foundation

/// Handz's manifest with `share.pathPatterns` (an app moving its old short links over: `/l/<code>`, four- and
/// five-character codes, and every path under `/tab/` and `/moves/` its routes do not resolve: `/moves/not-a-uuid`,
/// which `Moves/MoveDetail`'s uuid param refuses, is the pattern's), beside the other examples.
public enum PathPatternFixtures {
    /// The patterns the manifest declares.
    public static let patterns = ["/l/*", "/????", "/?????", "/tab/*", "/moves/*"]

    /// `examples/handz.yaml` with `patterns` added to its share section.
    public static var handzManifest: String {
        get throws {
            let text = try String(contentsOf: LinkdProcess.repositoryRoot.appendingPathComponent("examples/handz.yaml"), encoding: .utf8)
            let list = patterns.map { "\"\($0)\"" }.joined(separator: ", ")
            return text.replacingOccurrences(of: "share:\n  path: /s/:token\n", with: "share:\n  path: /s/:token\n  pathPatterns: [\(list)]\n")
        }
    }

    /// The example manifests with Handz's replaced by `handzManifest`, written into a new directory.
    public static func manifestPaths() throws -> [String] {
        try manifestPaths(app: "handz", patterns: patterns)
    }

    /// The example manifests with `app`'s (`examples/<app>.yaml`, whose share section starts `path: /s/:token`) given
    /// `patterns` as its `share.pathPatterns`, written into a new directory.
    public static func manifestPaths(app: String, patterns: [String]) throws -> [String] {
        let text = try String(contentsOf: LinkdProcess.repositoryRoot.appendingPathComponent("examples/\(app).yaml"), encoding: .utf8)
        let list = patterns.map { "\"\($0)\"" }.joined(separator: ", ")
        let patterned = text.replacingOccurrences(of: "share:\n  path: /s/:token\n", with: "share:\n  path: /s/:token\n  pathPatterns: [\(list)]\n")
        guard patterned != text else { throw FixtureError("examples/\(app).yaml has no share section starting with path: /s/:token") }
        let directory = temporaryDataDir() + "-path-patterns"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let manifest = directory + "/\(app).yaml"
        try patterned.write(toFile: manifest, atomically: true, encoding: .utf8)
        return exampleManifests.map { $0.hasSuffix("/\(app).yaml") ? manifest : $0 }
    }

    /// A fixture that could not be made.
    public struct FixtureError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
