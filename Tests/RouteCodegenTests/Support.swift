import Foundation
import LinkRouter
import LinkdTestSupport
import RouteCodegen
import Testing

/// A manifest as the tests generate from it: its file's text, the manifest, and an identity (version 7, the hash of
/// the text as linkd writes it is not needed here: any `sha256:` value does).
struct Fixture: Sendable {
    let name: String
    let source: String
    let manifest: AppManifest

    /// The identity the tests generate with.
    static let identity = ManifestIdentity(version: 7, hash: "sha256:" + String(repeating: "ab", count: 32))

    /// The code of `language` for this manifest.
    func generate(_ language: CodegenLanguage, identity: ManifestIdentity = Fixture.identity) -> String {
        RouteCodegen.generate(language, manifest: manifest, identity: identity)
    }

    /// The namespace the Swift and Kotlin outputs declare (`HandzLinks`).
    var namespace: String {
        let words = manifest.app.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined() + "Links"
    }

    /// The four example manifests (examples/*.yaml).
    static let examples: [Fixture] = ["handz", "coin", "ordentus", "story"].map { name in
        let path = LinkdProcess.repositoryRoot.appendingPathComponent("examples/\(name).yaml").path
        let source = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let manifest = try! ManifestLoader.parse(yaml: source, file: path)  // the examples are valid (ExampleManifestTests)
        return Fixture(name: name, source: source, manifest: manifest)
    }

    static func example(_ name: String) -> Fixture { examples.first { $0.name == name }! }

    /// A manifest of names that no language takes as they are: keywords (`default`, `in`, `self`, `Type`, `for`), ids
    /// that become the same identifier (`coin.canvas`, `CoinCanvas`), a leading digit, non-ASCII letters, quotes, `$`,
    /// `__proto__`, `*/` and `/*` in comments; params named as the generated code's own values (`id`, `text`,
    /// `values`); int, uuid and slug params, optional ones, optional literal segments, a wildcard tail, a dotted
    /// literal; an Android package with a keyword segment.
    static let odd: Fixture = {
        let source = #"""
            app: odd-app
            name: "Odd \"App\" */ --"
            schemes: [oddapp]
            hosts: [links.odd.example]
            android:
              package: com.example.in.odd
            states: [self, default, "in-app"]
            unauthenticatedState: self
            tabs:
              - { id: for, root: default, default: true }
              - { id: Type, root: "coin.canvas" }
            routes:
              - { id: default, tab: for, presentation: root, states: [self], patterns: ["/v1.0/files/*rest"] }
              - { id: "coin.canvas", tab: Type, presentation: root, states: [self], patterns: ["/c/:id(int)/:tab?", "/legacy?/canvas/:id(int)"], query: { text: { type: slug }, values: { type: uuid, required: true } } }
              - { id: CoinCanvas, presentation: push, states: [self], params: { self: string, in: int } }
              - { id: "404", presentation: push, states: [self], patterns: ["/it's/a \"quote\"/:x"] }
              - { id: "Ünï/cødé $x", presentation: push, states: [self] }
              - { id: Self, presentation: push, states: [self] }
              - { id: id, presentation: push, states: [self], patterns: ["/ids/:let/:var(slug)"] }
              - { id: "__proto__", presentation: push, states: [self], patterns: [/proto] }
            share:
              path: /s/:token
              route: CoinCanvas
              unavailableRoute: Self
            """#
        let manifest = try! ManifestLoader.parse(yaml: source, file: "odd.yaml")  // checked by `oddManifestLoads`
        return Fixture(name: "odd", source: source, manifest: manifest)
    }()

    /// A manifest with nothing but a state: no route, tab, scheme, host or share section (empty enums, lists, filters).
    static let bare: Fixture = {
        let source = "app: bare\nname: Bare\nstates: [anyone]\nunauthenticatedState: anyone\nroutes: []\n"
        let manifest = try! ManifestLoader.parse(yaml: source, file: "bare.yaml")  // checked by `oddManifestLoads`
        return Fixture(name: "bare", source: source, manifest: manifest)
    }()

    /// Every manifest the output tests compile: the examples, the odd one, the bare one.
    static let all: [Fixture] = examples + [odd, bare]

    /// A value of each param type, as linkd writes it (a uuid in lowercase).
    static func sample(_ type: ParamType) -> String {
        switch type {
        case .string: "a b/c"
        case .int: "-42"
        case .uuid: "6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b"
        case .slug: "a-slug"
        }
    }
}

/// The outside compilers and runtimes the tests use.
enum Tools {
    /// `name` on PATH, or nil.
    static func find(_ name: String) -> String? { try? ExternalTool.path(name, install: "") }

    /// Runs `executable` in `directory`; its exit status and output (stdout and stderr together).
    static func run(_ executable: String, _ arguments: [String], in directory: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A fresh directory for one test.
    static func directory(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("linkd-codegen-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `text` to `directory/name`.
    static func write(_ text: String, _ name: String, in directory: URL) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }
}
