public import LinkRouter

/// Code made from an app's manifest for the app's own build: its route ids with their typed params, its tabs and
/// states (Swift, TypeScript, Kotlin), React Navigation's `linking` configuration (TypeScript) and the Android intent
/// filters of its links (`android-manifest`). docs/codegen.md shows each output.
///
/// The output depends only on the manifest, its identity (`ManifestIdentity`) and `RouteCodegen.revision`: the same
/// inputs give the same bytes, so a generated file can be checked in and compared.
public enum RouteCodegen {
    /// The generator's revision, named in every header: it changes whenever the same manifest would give other bytes.
    public static let revision = 1

    /// The code of `language` for `manifest`.
    /// - Parameters:
    ///   - language: what to make.
    ///   - manifest: a validated manifest (`ManifestLoader`).
    ///   - identity: its published version and content hash, named in the header.
    public static func generate(_ language: CodegenLanguage, manifest: AppManifest, identity: ManifestIdentity) -> String {
        let table = RouteTable(manifest)
        switch language {
        case .swift: return SwiftGenerator(table: table, identity: identity).render()
        case .typescript: return TypeScriptGenerator(table: table, identity: identity).render()
        case .kotlin: return KotlinGenerator(table: table, identity: identity).render()
        case .androidManifest: return AndroidManifestGenerator(table: table, identity: identity).render()
        }
    }

    /// The language called `name`: `swift`, `typescript`, `kotlin` or `android-manifest`.
    /// - Throws: `CodegenError` with code `unknownLanguage`, naming the languages there are.
    public static func language(named name: String) throws(CodegenError) -> CodegenLanguage {
        if let language = CodegenLanguage(rawValue: name) { return language }
        throw CodegenError(
            .unknownLanguage, "no code generator for '\(Text.ascii(String(name.prefix(40))))': the languages are \(CodegenLanguage.names)")
    }
}

/// A language `RouteCodegen` writes.
public enum CodegenLanguage: String, CaseIterable, Sendable {
    /// A Swift file: `enum <App>Links` with `RouteID`, `Route` (typed associated values), `Tab` and `State`.
    case swift
    /// A TypeScript module: `ROUTES` (`as const`), `RouteParams`, `TABS`, `STATES` and React Navigation's `linking`.
    case typescript
    /// A Kotlin file: `object <App>Links` with the route ids, each route's param names, tabs and states as constants.
    case kotlin
    /// The `<intent-filter>` elements of `AndroidManifest.xml` for the app's links (App Links with `autoVerify`).
    case androidManifest = "android-manifest"

    /// Every language's name, comma-separated, for messages.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The media type of the output (`text/x-swift; charset=utf-8`, …).
    public var contentType: String {
        switch self {
        case .swift: "text/x-swift; charset=utf-8"
        case .typescript: "text/typescript; charset=utf-8"
        case .kotlin: "text/x-kotlin; charset=utf-8"
        case .androidManifest: "application/xml; charset=utf-8"
        }
    }

    /// The usual file name extension of the output, without the dot.
    public var fileExtension: String {
        switch self {
        case .swift: "swift"
        case .typescript: "ts"
        case .kotlin: "kt"
        case .androidManifest: "xml"
        }
    }
}

/// Which manifest the code was made from, as the header names it.
public struct ManifestIdentity: Sendable, Equatable {
    /// The published version (1, 2, …); nil for a manifest read from a file.
    public var version: Int?
    /// The content hash of the manifest's text, as linkd writes it (`sha256:` and 64 lowercase hex digits).
    public var hash: String

    /// - Parameters: see the properties.
    public init(version: Int?, hash: String) {
        self.version = version
        self.hash = hash
    }
}

/// A request `RouteCodegen` cannot do.
public struct CodegenError: Error, Sendable, CustomStringConvertible {
    /// The machine code of a codegen error.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String { case unknownLanguage }
        private let value: Value
        /// Text form.
        public var description: String { value.rawValue }
        /// No generator has that language's name.
        public static let unknownLanguage = Code(value: .unknownLanguage)
    }

    /// The code.
    public var code: Code
    /// What is wrong and what to do.
    public var message: String

    /// - Parameters: see the properties.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// The first lines of every output, in the language's line comments.
struct Header {
    let language: CodegenLanguage
    let table: RouteTable
    let identity: ManifestIdentity

    /// The lines, without comment marks.
    var lines: [String] {
        let version = identity.version.map(String.init) ?? "none (made from a file, not a published version)"
        return [
            "Generated by linkd codegen (\(language.rawValue), generator revision \(RouteCodegen.revision)). Do not edit: generate it again.",
            "App: \(Text.ascii(table.app)) (\(Text.ascii(table.displayName)))",
            "Manifest version: \(version)",
            "Manifest hash: \(Text.ascii(identity.hash))",
        ]
    }

    /// The lines as `//` comments.
    var slashComments: String { lines.map { "// " + $0 + "\n" }.joined() }
}
