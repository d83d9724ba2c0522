import Foundation
import Testing

@testable import LinkdServer

/// Inputs the fuzz targets (Fuzz/, docs/fuzzing.md) found to break the server's readers.
@Suite("Fuzz regressions: the server's readers")
struct ServerFuzzRegressionTests {
    @Test("a configuration file with a YAML alias bomb is refused at once, naming the file and the first alias")
    func configurationAliasBomb() throws {
        // Eight levels of ten aliases used as a mapping key: Yams's duplicate-key check hashed 10^9 nodes
        // (Fuzz/FuzzConfiguration timed out); aliases are refused before Yams composes the document.
        var lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...8 {
            lines.append("l\(level): &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        let text = lines.joined(separator: "\n") + "\n? *l8\n: 1\n"
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkd-fuzz-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let file = dir + "/linkd.yaml"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        do {
            _ = try ServerConfiguration.load(file: file, environment: [:])
            Issue.record("the alias bomb was read")
        } catch let error as ConfigurationError {
            #expect(error.message == "\(file): line 2, column 10: YAML aliases (*name) are not supported")
        }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.fromYAML("port: &p 80\nhost: *p\n", source: "x.yaml") }
    }
}
