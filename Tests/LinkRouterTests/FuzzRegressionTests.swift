import LinkRouter
import Testing

/// Inputs the fuzz targets (Fuzz/, docs/fuzzing.md) found to break the manifest and YAML readers.
@Suite("Fuzz regressions: manifests and YAML")
struct FuzzRegressionTests {
    /// A "billion laughs" mapping key: eight levels of ten aliases over a list of ten (10^9 references in 300 bytes).
    /// Yams's duplicate-key check hashed the whole aliased tree (FuzzConfiguration, FuzzManifest: over 10 s, then
    /// minutes); aliases are now refused before Yams composes the document.
    static let aliasBomb: String = {
        var lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...8 {
            lines.append("l\(level): &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        return lines.joined(separator: "\n") + "\n? *l8\n: 1\n"
    }()

    @Test("a manifest with YAML aliases is refused at the first alias, at once (an alias-bomb key hung the reader)")
    func manifestAliases() {
        for (text, mark) in [(Self.aliasBomb, SourceMark(file: "bomb.yaml", line: 2, column: 10)),
                             ("app: &a x\nname: *a\n", SourceMark(file: "bomb.yaml", line: 2, column: 7))] {
            do {
                _ = try ManifestLoader.parse(yaml: text, file: "bomb.yaml")
                Issue.record("an alias was accepted")
            } catch {
                #expect(error.errors.map(\.code) == [.syntax])
                #expect(error.errors.first?.message == "YAML aliases (*name) are not supported")
                #expect(error.errors.first?.mark == mark)
            }
        }
    }

    @Test("YAMLValue (the configuration file's reader) refuses aliases with their line and column")
    func yamlValueAliases() {
        do {
            _ = try YAMLValue.document(Self.aliasBomb)
            Issue.record("an alias was accepted")
        } catch {
            #expect(error.description == "line 2, column 10: YAML aliases (*name) are not supported")
        }
        // Anchors alone, `*` inside scalars and an empty text are not aliases.
        #expect(throws: Never.self) { try YAMLValue.document("a: &x 1\nb: '*x'\nc: x*y\n") }
        #expect(throws: Never.self) { try YAMLValue.document("") }
    }
}
