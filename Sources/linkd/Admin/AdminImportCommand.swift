import ArgumentParser
import Foundation
import LinkdAdmin
#if canImport(Glibc)
import Glibc
#endif

/// `linkd admin import FILE --app APP --format fdl|csv|ndjson [--dry-run]`: links brought from Firebase Dynamic
/// Links, a CSV or another linkd's export (`POST /v1/admin/imports`), the file streamed as it is read.
struct AdminImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import links from a Firebase Dynamic Links export, a CSV or a linkd NDJSON export (docs/imports.md).",
        discussion: """
            The file is streamed, never read whole. Prints the report: the counts, then every refused row, unresolved \
            row and note as FILE:LINE: code: message. Exits 1 when a row was refused, 75 when the store failed part \
            way (import the file again to complete it: an import is idempotent). --timeout is how long the upload may \
            stall.
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The file to import.") var file: String
    @Option(help: "The app to import into.") var app: String
    @Option(help: "fdl (a Firebase Dynamic Links export), csv (path,route,params_json,owner,title,expires_at) or ndjson (linkd's export).")
    var format: String
    @Flag(name: .customLong("dry-run"), help: "Check everything and report, write nothing.") var dryRun = false

    func run() async throws {
        try await AdminRun.reporting { () async throws(AdminFailure) in try await importFile() }
    }

    private func importFile() async throws(AdminFailure) {
        guard let contentType = ["fdl": "text/csv", "csv": "text/csv", "ndjson": "application/x-ndjson"][format] else {
            throw AdminFailure(.usage, "--format must be fdl, csv or ndjson")
        }
        let client = try connection.client()
        let source = try ImportFile(path: file)
        defer { source.close() }
        var query: [(String, String?)] = [("app", app), ("format", format)]
        if dryRun { query.append(("dryRun", "true")) }
        let request = AdminRequest("POST", ["v1", "admin", "imports"], query: query)
        let response = try await client.upload(request, contentType: contentType, body: AdminUpload(length: source.length) { source.read(into: $0) })
        if let reason = source.failure { throw AdminFailure(.output, "cannot read \(file): \(reason)") }
        let error = response.json["error"] as? [String: Any]
        if (200..<300).contains(response.status) || error?["details"] is [String: Any] && response.status == 503 {
            let report = (200..<300).contains(response.status) ? response.json : error?["details"] as? [String: Any] ?? [:]
            if connection.json {
                AdminRun.print(AdminResponse(status: 200, body: (try? JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])) ?? Data()), json: true) { _ in "" }
            } else {
                Swift.print(ImportReportText.render(report, file: file))
            }
            if response.status == 503 {
                throw AdminFailure(.temporary, "\(file): \((error?["message"] as? String) ?? "the store failed part way")")
            }
            let refused = report["refusedTotal"] as? Int ?? 0
            if refused > 0 { throw AdminFailure(.api, "\(file): \(refused) row\(refused == 1 ? "" : "s") refused") }
            return
        }
        if let code = error?["code"] as? String, let message = error?["message"] as? String, [400, 413, 422].contains(response.status) {
            let line = (error?["details"] as? [String: Any])?["line"] as? Int
            throw AdminFailure(.api, "\(file)\(line.map { ":\($0)" } ?? ""): \(code): \(message)")
        }
        throw client.failure(of: response, request)
    }
}

/// The report of an import as text: the counts, then one line per refused row, unresolved row and note.
enum ImportReportText {
    static func render(_ report: [String: Any], file: String) -> String {
        func int(_ key: String) -> Int { report[key] as? Int ?? 0 }
        var lines = ["\(report["app"] as? String ?? "") \(report["format"] as? String ?? "")\((report["dryRun"] as? Bool) == true ? " (dry run: nothing written)" : "")"]
        let counts = [("rows", int("rows")), ("imported", int("imported")), ("alreadyPresent", int("alreadyPresent")),
                      ("refused", int("refusedTotal")), ("unresolved", int("unresolvedTotal")), ("notes", int("notesTotal"))]
        for (name, count) in counts { lines.append(name.padding(toLength: 16, withPad: " ", startingAt: 0) + String(count)) }
        for (key, total, label) in [("refused", "refusedTotal", nil), ("unresolved", "unresolvedTotal", "unresolved"), ("notes", "notesTotal", nil)] as [(String, String, String?)] {
            let entries = report[key] as? [[String: Any]] ?? []
            for entry in entries {
                let line = entry["line"] as? Int ?? 0
                if let label {
                    lines.append("\(file):\(line): \(label): \(entry["url"] as? String ?? "")")
                } else {
                    lines.append("\(file):\(line): \(entry["code"] as? String ?? ""): \(entry["message"] as? String ?? "")")
                }
            }
            if int(total) > entries.count { lines.append("… and \(int(total) - entries.count) more \(key)") }
        }
        if let stopped = report["stopped"] as? [String: Any] {
            lines.append("\(file):\(stopped["line"] as? Int ?? 0): stopped: \(stopped["message"] as? String ?? "")")
        }
        return lines.joined(separator: "\n")
    }
}

/// The file being imported, read as the upload goes.
final class ImportFile: @unchecked Sendable {
    private let descriptor: Int32
    /// Its size when it is a regular file.
    let length: Int?
    /// Why a read failed, if one did.
    private(set) var failure: String?

    init(path: String) throws(AdminFailure) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw AdminFailure(.notFound, "cannot read \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            Glibc.close(descriptor)
            throw AdminFailure(.notFound, "cannot read \(path): it is a directory")
        }
        length = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    /// The next bytes into `buffer`: how many (0 at the end), nil on a read error.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            failure = String(cString: strerror(errno))
            return nil
        }
    }

    func close() { Glibc.close(descriptor) }
}
