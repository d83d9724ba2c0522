import Foundation
internal import Yams

/// Loads and validates manifests. Every problem of every file is collected before failing.
public enum ManifestLoader {
    /// Manifests over this size are refused (1 MiB).
    public static let maxBytes = 1 << 20

    /// A manifest file as read: its text (each file read once, so the text is exactly what was validated) and the
    /// manifest it holds.
    public struct LoadedFile: Sendable {
        /// The path as given.
        public let path: String
        /// The file's text.
        public let source: String
        /// The manifest.
        public let manifest: AppManifest
    }

    /// Loads every file; fails with every problem found, also across files (an app id, host or scheme claimed twice).
    public static func load(paths: [String]) throws(ManifestErrors) -> [AppManifest] {
        try loadFiles(paths: paths).map(\.manifest)
    }

    /// `load(paths:)` with each file's text.
    public static func loadFiles(paths: [String]) throws(ManifestErrors) -> [LoadedFile] {
        var files: [LoadedFile] = []
        var errors: [ManifestError] = []
        for path in paths {
            do {
                let text = try source(path: path)
                files.append(LoadedFile(path: path, source: text, manifest: try parse(yaml: text, file: path)))
            } catch {
                errors += error.errors
            }
        }
        let manifests = files.map(\.manifest)
        var owners: [String: String] = [:]
        for manifest in manifests {
            let mark = SourceMark(file: manifest.sourceFile, line: 1, column: 1)
            let claims = ["app " + manifest.app] + manifest.hosts.map { "host " + $0 } + manifest.schemes.map { "scheme " + $0 }
            for claim in claims {
                if let owner = owners[claim] {
                    errors.append(ManifestError(.duplicateID, at: mark, "\(claim) is already used by \(owner)",
                                                hint: "give each app its own id, hosts and schemes"))
                } else {
                    owners[claim] = manifest.sourceFile
                }
            }
        }
        guard errors.isEmpty else { throw ManifestErrors(errors) }
        return files
    }

    /// Loads one file.
    public static func load(path: String) throws(ManifestErrors) -> AppManifest {
        try parse(yaml: try source(path: path), file: path)
    }

    /// The text of one manifest file: at most `maxBytes`, UTF-8.
    public static func source(path: String) throws(ManifestErrors) -> String {
        let mark = SourceMark(file: path, line: 1, column: 1)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= maxBytes else {
            throw ManifestErrors([ManifestError(.tooLarge, at: mark, "manifest is \(size) bytes, over the cap of \(maxBytes)",
                                                hint: "split the app's routes or shorten the file")])
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ManifestErrors([ManifestError(.io, at: mark, "cannot read the file", hint: "check the path and permissions")])
        }
        guard data.count <= maxBytes else {
            throw ManifestErrors([ManifestError(.tooLarge, at: mark, "manifest is \(data.count) bytes, over the cap of \(maxBytes)",
                                                hint: "split the app's routes or shorten the file")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ManifestErrors([ManifestError(.syntax, at: mark, "manifest is not UTF-8", hint: "save it as UTF-8")])
        }
        return text
    }

    /// Parses and validates manifest text; `file` is used in messages.
    public static func parse(yaml text: String, file: String) throws(ManifestErrors) -> AppManifest {
        let start = SourceMark(file: file, line: 1, column: 1)
        guard text.utf8.count <= maxBytes else {
            throw ManifestErrors([ManifestError(.tooLarge, at: start, "manifest is \(text.utf8.count) bytes, over the cap of \(maxBytes)",
                                                hint: "split the app's routes or shorten the file")])
        }
        if let (line, column) = YAMLAliases.firstAlias(in: text) {
            throw ManifestErrors([ManifestError(.syntax, at: SourceMark(file: file, line: line, column: column),
                                                "YAML aliases (*name) are not supported", hint: "write the value out in full")])
        }
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text, .basic) else {
                throw ManifestErrors([ManifestError(.missingKey, at: start, "manifest is empty", hint: "start with 'app: <id>'")])
            }
            root = node
        } catch let error as ManifestErrors {
            throw error
        } catch let error as YamlError {
            throw ManifestErrors([syntaxError(error, file: file)])
        } catch {
            throw ManifestErrors([ManifestError(.syntax, at: start, "YAML does not parse: \(error)", hint: "fix the YAML syntax")])
        }
        let reader = YAMLReader(file: file)
        let manifest = ManifestParser(reader: reader).parse(root)
        guard reader.errors.isEmpty, let manifest else {
            throw ManifestErrors(reader.errors.sorted { ($0.mark.line, $0.mark.column) < ($1.mark.line, $1.mark.column) })
        }
        return manifest
    }

    private static func syntaxError(_ error: YamlError, file: String) -> ManifestError {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return ManifestError(.syntax, at: SourceMark(file: file, line: mark.line, column: mark.column),
                                 "YAML does not parse: \(problem)", hint: "fix the YAML syntax here")
        default:
            return ManifestError(.syntax, at: SourceMark(file: file, line: 1, column: 1),
                                 "YAML does not parse: \(error)", hint: "fix the YAML syntax")
        }
    }
}
