import ArgumentParser
import Foundation
import ICalendar
import LinkRouter

/// `linkd ics FILE [--manifest FILE…] [--state STATE] [--app APP]`: resolves every item of a calendar file and
/// prints `{"items": [...], "diagnostics": [...]}`. Exits non-zero only when the file cannot be read as a calendar.
struct ICSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ics",
        abstract: "Resolve the items of an .ics file to routes (JSON).",
        discussion: "Manifests: --manifest, else $LINKD_MANIFESTS (comma-separated), else examples/*.yaml. Share tokens resolve as unknown here (no store)."
    )

    @Argument(help: "The .ics file.")
    var file: String

    @Option(help: "The caller's session state (default: the app's unauthenticated state).")
    var state: String?

    @Option(help: "Use only this app's ics rules (default: every loaded app).")
    var app: String?

    @OptionGroup var manifestOptions: ManifestOptions

    func run() throws {
        let router = try manifestOptions.loadRouter()
        let parser = ICalendarParser()
        guard let handle = FileHandle(forReadingAtPath: file) else {
            printError("\(file): cannot open")
            throw ExitCode(1)
        }
        // Read one byte past the cap so an oversized file is refused by the parser without reading all of it.
        let data = (try? handle.read(upToCount: parser.limits.maxBytes + 1)) ?? Data()
        try? handle.close()
        if data.count > parser.limits.maxBytes {
            printError("\(file): error: the file is larger than \(parser.limits.maxBytes) bytes, the .ics cap (inputTooLarge)")
            throw ExitCode(1)
        }
        let report: CalendarReport
        do {
            report = try CalendarResolver(router: router, parser: parser).resolve([UInt8](data), state: state, app: app)
        } catch {
            printError("\(file):\(error.line.map { "\($0):" } ?? "") error: \(error.message) (\(error.code))")
            throw ExitCode(1)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }
}

