public import Foundation

/// Where manifests come from when none are named: the daemon's configuration and the CLI verbs share this rule.
public enum ManifestPaths {
    /// No manifest was named and no demo manifests were found.
    public struct NotFound: Error, Sendable, CustomStringConvertible {
        /// How the caller names manifests (`--manifest FILE` for the CLI verbs, the `manifests` key for the daemon).
        public let howToName: String
        /// The folders looked in for the demo manifests.
        public let searched: [String]

        /// What to do about it.
        public var description: String {
            "no manifests: \(howToName), or set LINKD_MANIFESTS=a.yaml,b.yaml (no demo manifests in "
                + searched.joined(separator: " or ") + ")"
        }
    }

    /// `explicit` when given, else `LINKD_MANIFESTS` (comma-separated), else the demo manifests: `examples/*.yaml`
    /// of the install or checkout (`InstallLayout`), else of the working directory. `howToName` goes in the error.
    public static func resolve(
        explicit: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        howToName: String = "pass --manifest FILE"
    ) throws(NotFound) -> [String] {
        if !explicit.isEmpty { return explicit }
        if let env = environment["LINKD_MANIFESTS"], !env.isEmpty { return split(env) }
        // The install's (or checkout's) folder, named relative to the working directory when it is that folder.
        let installed = InstallLayout.directory("examples").map { folder in
            Self.sameDirectory(folder, "examples") ? "examples" : folder
        }
        let folders = [installed, "examples"].compactMap { $0 }
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            let found = names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted().map { "\(folder)/\($0)" }
            if !found.isEmpty { return found }
        }
        let cwd = FileManager.default.currentDirectoryPath
        throw NotFound(howToName: howToName, searched: folders.map { $0.hasPrefix("/") ? $0 : cwd + "/" + $0 })
    }

    /// Whether two paths name the same directory (symbolic links resolved).
    private static func sameDirectory(_ first: String, _ second: String) -> Bool {
        let resolve = { (path: String) in URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        return FileManager.default.fileExists(atPath: second) && resolve(first) == resolve(second)
    }

    /// Splits a `LINKD_MANIFESTS` value: comma-separated paths, blanks trimmed.
    public static func split(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
