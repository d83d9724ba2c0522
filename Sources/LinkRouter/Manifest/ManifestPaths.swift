public import Foundation

/// Where manifests come from when none are named: the daemon's configuration and the CLI verbs share this rule.
public enum ManifestPaths {
    /// No manifest was named and `examples/*.yaml` holds none.
    public struct NotFound: Error, Sendable, CustomStringConvertible {
        /// What to do about it.
        public var description: String {
            "no manifests: pass --manifest FILE, set LINKD_MANIFESTS, or run where examples/*.yaml exists"
        }
    }

    /// `explicit` when given, else `LINKD_MANIFESTS` (comma-separated), else `examples/*.yaml` of the working directory.
    public static func resolve(
        explicit: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(NotFound) -> [String] {
        if !explicit.isEmpty { return explicit }
        if let env = environment["LINKD_MANIFESTS"], !env.isEmpty { return split(env) }
        let folder = "examples"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let found = names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted().map { "\(folder)/\($0)" }
        guard !found.isEmpty else { throw NotFound() }
        return found
    }

    /// Splits a `LINKD_MANIFESTS` value: comma-separated paths, blanks trimmed.
    public static func split(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
