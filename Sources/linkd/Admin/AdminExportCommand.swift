import ArgumentParser
import Foundation
import LinkdAdmin
#if canImport(Glibc)
import Glibc
#endif

/// `linkd admin export`: every link of an app as CSV or NDJSON (`GET /v1/links/export`), streamed to standard output
/// or to a file, however many links there are.
struct AdminExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Every link of an app as CSV or NDJSON, streamed to standard output or a file (docs/admin-cli.md).",
        discussion: """
            The bytes are the API's as they come (GET /v1/links/export). With --output the file (mode 0600: it holds \
            share URLs) appears only once the export is whole; a failed export leaves no file. --timeout is how long \
            the download may stall, not how long it may take.
            """)
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "The app whose links to export.") var app: String
    @Option(help: "csv (for spreadsheets) or ndjson (one JSON object per link: what an import reads).") var format: String
    @Option(help: "Write the export to this file instead of standard output.") var output: String?

    func run() async throws {
        try await AdminRun.reporting { () async throws(AdminFailure) in try await export() }
    }

    private func export() async throws(AdminFailure) {
        guard let accept = ["csv": "text/csv", "ndjson": "application/x-ndjson"][format] else {
            throw AdminFailure(.usage, "--format must be csv or ndjson")
        }
        let client = try connection.client()
        let sink: ExportSink
        if let output { sink = try ExportSink.file(output) } else { sink = ExportSink.standardOutput() }
        let request = AdminRequest("GET", ["v1", "links", "export"], query: [("app", app), ("format", format)])
        do {
            try await client.download(request, accept: accept) { sink.write($0) }
        } catch {
            sink.discard()
            if let reason = sink.writeFailure { throw AdminFailure(.output, "cannot write \(output ?? "standard output"): \(reason)") }
            throw error
        }
        try sink.finish()
    }
}

/// Where an export's bytes go: standard output, or a private temporary file beside the one asked for, renamed to it
/// once the export is whole. Written from the download's thread, one piece at a time.
final class ExportSink: @unchecked Sendable {
    private let descriptor: Int32
    /// The temporary file and the path it becomes; nil for standard output.
    private let file: (temporary: String, final: String)?
    /// Why a write failed (errno), if one did.
    private var failure: Int32?

    private init(descriptor: Int32, file: (temporary: String, final: String)?) {
        self.descriptor = descriptor
        self.file = file
    }

    static func standardOutput() -> ExportSink { ExportSink(descriptor: STDOUT_FILENO, file: nil) }

    /// A new temporary file (mode 0600) in `path`'s folder.
    static func file(_ path: String) throws(AdminFailure) -> ExportSink {
        let url = URL(fileURLWithPath: path)
        var template = Array((url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw AdminFailure(.output, "cannot make a file beside \(path): \(String(cString: strerror(errno)))")
        }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return ExportSink(descriptor: descriptor, file: (temporary, path))
    }

    /// Why a write failed, if one did.
    var writeFailure: String? { failure.map { String(cString: strerror($0)) } }

    /// Writes `bytes` whole; false (and the error kept) when the file or pipe takes them no more.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var next = bytes.baseAddress else { return true }
        var left = bytes.count
        while left > 0 {
            let written = Glibc.write(descriptor, next, left)
            if written < 0 {
                if errno == EINTR { continue }
                failure = errno
                return false
            }
            next += written
            left -= written
        }
        return true
    }

    /// The temporary file flushed to disk and renamed to the path asked for; nothing for standard output.
    func finish() throws(AdminFailure) {
        guard let file else { return }
        if let failure {
            discard()
            throw AdminFailure(.output, "cannot write \(file.final): \(String(cString: strerror(failure)))")
        }
        guard fsync(descriptor) == 0, close(descriptor) == 0, rename(file.temporary, file.final) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(file.temporary)
            throw AdminFailure(.output, "cannot write \(file.final): \(reason)")
        }
    }

    /// The temporary file removed (a failed export leaves nothing behind).
    func discard() {
        guard let file else { return }
        close(descriptor)
        unlink(file.temporary)
    }
}
