import Foundation
import LinkdTestSupport
import Testing

/// Text that could forge a log line or reorder what a reader sees, in what `linkd serve` logs as a process: escaped,
/// on one line.
@Suite("Hostile text in linkd serve's log")
struct ServeLogEscapingTests {
    @Test("linkd serve's log: a manifest path with a newline and a forged line stays on one escaped line")
    func daemonLogEscapes() throws {
        let folder = temporaryDataDir() + "/evil\nlinkd: action=apikey.create actor=attacker\u{202E}"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let manifest = folder + "/handz.yaml"
        try FileManager.default.copyItem(
            atPath: LinkdProcess.repositoryRoot.appendingPathComponent("examples/handz.yaml").path, toPath: manifest)
        let daemon = try LinkdDaemon(
            dataDir: temporaryDataDir(), environment: ["LINKD_MANIFESTS": manifest, "LINKD_LOG_LEVEL": "notice"])
        daemon.stop()
        let log = daemon.errorOutput
        #expect(log.contains("published a manifest file"), "\(log)")
        #expect(log.contains(#"evil\nlinkd: action=apikey.create actor=attacker\u{202E}/handz.yaml"#), "\(log)")
        #expect(!log.split(separator: "\n").contains { $0.hasPrefix("linkd: action=apikey.create") }, "a forged line")
        #expect(!log.contains("\u{202E}"))
    }
}
