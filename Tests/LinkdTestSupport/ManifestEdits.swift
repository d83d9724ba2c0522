import Foundation

/// The example manifests and the navigation changes the publishing tests make to them.
public enum ManifestEdits {
    /// The text of `examples/<app>.yaml`.
    public static func example(_ app: String) throws -> String {
        try String(contentsOf: LinkdProcess.repositoryRoot.appendingPathComponent("examples/\(app).yaml"), encoding: .utf8)
    }

    /// Handz with its shared-flow screen (seed 001 §7.2, `ShareLink/FlowView`) renamed `ShareLink/SharedFlow` and
    /// given a URL of its own (`/shared-flows/:flowId(uuid)`): a release that strands every live share link unless
    /// they move.
    public static func renamedHandz() throws -> String {
        try example("handz")
            .replacingOccurrences(
                of: "- { id: ShareLink/FlowView, tab: library, presentation: push, states: [signedOut, guest, free, pro, trial], params: { flowId: uuid }, shareable: true }",
                with: "- { id: ShareLink/SharedFlow, tab: library, presentation: push, states: [signedOut, guest, free, pro, trial], patterns: [\"/shared-flows/:flowId(uuid)\"], shareable: true }")
            .replacingOccurrences(of: "ShareLink/FlowView", with: "ShareLink/SharedFlow")
    }

    /// `yaml` (a manifest) with one more Library screen, `Library/Extra<n>` at `/extra-<n>`: a change that strands
    /// nothing.
    public static func addingScreen(_ yaml: String, _ n: Int) -> String {
        let anchor = "  - { id: ShareLink/Unavailable,"
        let screen = "  - { id: Library/Extra\(n), tab: library, presentation: push, states: [free, pro, trial], parent: Library/Home, patterns: [/extra-\(n)] }\n"
        return yaml.replacingOccurrences(of: anchor, with: screen + anchor)
    }
}
