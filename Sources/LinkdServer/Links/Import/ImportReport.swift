import Foundation
import LinkdHTTP

/// The `?format=` of `POST /v1/admin/imports`.
enum LinkImportFormat: String, Sendable, CaseIterable {
    /// A Firebase Dynamic Links export: CSV with a short-link column and a long-link column or FDL's parameters.
    case fdl
    /// linkd's own CSV: `path,route,params_json,owner,title,expires_at` (or `url` for route and params).
    case csv
    /// What `GET /v1/links/export?format=ndjson` writes (`LinkExportRecord`, version 1).
    case ndjson
}

/// The caps of an import beside its size (`importMaxBytes`).
enum ImportCaps {
    /// Rows read at most; one more is refused as the file's fault.
    static let maxRows = 1_000_000
    /// Entries of each of the report's lists (`refused`, `unresolved`, `notes`); the totals count them all.
    static let listed = 1000
    /// Links written per transaction: each commit is an fsync (and, on SQLite, a WAL checkpoint now and then), so
    /// larger batches import faster — 100,000 rows took 11.7 s in batches of 1,000, 8.2 s in batches of 5,000
    /// (docs/benchmarks.md) — while a batch holds the writer for a few tenths of a second.
    static let batchSize = 5000
    /// The longest NDJSON line, in bytes.
    static let ndjsonLineBytes = 65_536
}

/// What an import did (or, with `dryRun`, would do), row by row where a row needs saying: the answer of
/// `POST /v1/admin/imports`. Line numbers are the file's (a CSV record spanning lines: its first).
struct ImportReport: Encodable, Sendable {
    /// A row's refusal or a note on it: the line, a machine code, what to tell a person.
    struct LineMessage: Encodable, Sendable, Equatable {
        let line: Int
        let code: String
        let message: String
    }

    /// A row whose deep link (or `url`) resolves to no route of the app: reported, not guessed.
    struct Unresolved: Encodable, Sendable, Equatable {
        let line: Int
        let url: String
    }

    let app: String
    let format: String
    let dryRun: Bool
    /// Rows read (the header aside).
    var rows = 0
    /// Links written by this run (with `dryRun`: that would be).
    var imported = 0
    /// Rows whose link is stored already (an earlier run of the same file): nothing written.
    var alreadyPresent = 0
    /// The first `ImportCaps.listed` refused rows; `refusedTotal` counts them all.
    var refused: [LineMessage] = []
    var refusedTotal = 0
    /// The first `ImportCaps.listed` rows that resolve to nothing; `unresolvedTotal` counts them all.
    var unresolved: [Unresolved] = []
    var unresolvedTotal = 0
    /// The first `ImportCaps.listed` notes (what an imported row could not keep); `notesTotal` counts them all.
    var notes: [LineMessage] = []
    var notesTotal = 0
    /// Set when the store failed during the writes: no row from `line` on was written (the rows before it were, as
    /// counted); running the same import again completes it.
    var stopped: LineMessage?

    init(app: String, format: LinkImportFormat, dryRun: Bool) {
        self.app = app
        self.format = format.rawValue
        self.dryRun = dryRun
    }

    mutating func refuse(_ line: Int, _ code: String, _ message: String) {
        refusedTotal += 1
        if refused.count < ImportCaps.listed { refused.append(LineMessage(line: line, code: code, message: message)) }
    }

    mutating func unresolved(_ line: Int, url: String) {
        unresolvedTotal += 1
        if unresolved.count < ImportCaps.listed { unresolved.append(Unresolved(line: line, url: url)) }
    }

    mutating func note(_ line: Int, _ code: String, _ message: String) {
        notesTotal += 1
        if notes.count < ImportCaps.listed { notes.append(LineMessage(line: line, code: code, message: message)) }
    }
}

/// Why a whole import is refused (nothing is written): the file's fault, with the line when one is to blame.
struct ImportError: Error, Sendable {
    /// The HTTP status it is answered with: 400 (the file cannot be read), 413 (too large), 409, 422.
    enum Kind: Sendable { case unreadable, tooLarge, running, unprocessable }

    let kind: Kind
    /// The machine code (`unclosed_quote`, `missing_column`, `import_too_large`, …).
    let code: APIError.Code
    /// What to tell a person, naming the line.
    let message: String
    /// The line at fault, when one is.
    let line: Int?

    init(_ kind: Kind, _ code: APIError.Code, _ message: String, line: Int? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.line = line
    }
}
