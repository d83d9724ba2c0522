import Foundation
import LinkdTestSupport
import Testing

/// The client is Foundation alone: an app that adds it gets no module of the daemon, no C library, no package.
@Suite("LinkdClient depends on Foundation alone")
struct PackageBoundaryTests {
    @Test("its sources import Foundation, FoundationNetworking (Linux) and SwiftUI (its adapter) only; its target declares no dependency")
    func importsAndTarget() throws {
        let root = LinkdProcess.repositoryRoot
        let sources = root.appendingPathComponent("Sources/LinkdClient")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 8)
        var imported: Set<String> = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: /(?m)^[ \t]*(?:(?:public|package|internal|@preconcurrency|@_exported)[ \t]+)*import[ \t]+(\w+)/) {
                imported.insert(String(match.output.1))
            }
        }
        #expect(imported.isSubset(of: ["Foundation", "FoundationNetworking", "SwiftUI"]), "\(imported.sorted())")
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = try #require(manifest.firstMatch(of: /\.target\(\s*name: "LinkdClient",([^)]*)\)/))
        #expect(!declaration.output.1.contains("dependencies"), "\(declaration.output.1)")
    }
}
