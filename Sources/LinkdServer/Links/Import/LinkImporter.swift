import CSVRecords
import Foundation
import LinkdHTTP
import LinkRouter
import LinkStore
import NIOCore
import TokenSigning

/// One import of links into one app: the file is read as it arrives and each row is checked at once (as
/// `POST /v1/links` checks a link: `LinkService.check`, `checkCustomPathShape`) and kept as a compact `ImportRow`,
/// never as text; the whole file is read and checked before anything is written (`write`), in batches of
/// `ImportCaps.batchSize` links, one transaction each.
///
/// A row's link id is deterministic (`ImportRowID`), so the same file imported twice stores each link once: the second
/// run reports its rows `alreadyPresent`. Imports queue no `link.created` webhooks.
struct LinkImporter {
    let links: LinkService
    let app: String
    let format: LinkImportFormat
    /// The manifests in force when the import began: every row is checked against the same ones.
    let router: Router
    let manifest: AppManifest
    let now: Date
    var report: ImportReport
    /// The rows checked and kept, in file order.
    private(set) var rows: [ImportRow] = []

    var csv = CSVReader()
    /// The columns of a CSV-based file, once its header is read.
    var columns: ImportColumns?
    /// NDJSON: the line under way, and its number.
    var pendingLine: [UInt8] = []
    var lineNumber = 1
    var sawBytes = false
    private var seenIDs: [String: Int] = [:]
    private var seenPaths: [String: (line: Int, path: String)] = [:]
    private var seenShortIDs: Set<String> = []

    /// An import of `format` into `app` (loaded: the caller checked), judged at `now`.
    init(links: LinkService, app: String, format: LinkImportFormat, dryRun: Bool, now: Date) throws {
        self.links = links
        self.app = app
        self.format = format
        router = links.router
        guard let manifest = router.manifest(app: app) else { throw AdminError(.notFound, "no app \(app.prefix(64)) is loaded") }
        self.manifest = manifest
        self.now = now
        report = ImportReport(app: app, format: format, dryRun: dryRun)
    }

    // MARK: Reading

    /// Reads the next piece of the file.
    mutating func read(_ piece: ByteBuffer) throws(ImportError) {
        guard piece.readableBytes > 0 else { return }
        sawBytes = true
        if format == .ndjson {
            try readLines(piece)
            return
        }
        let records: [CSVRecord]
        do { records = try csv.read(piece.readableBytesView) } catch { throw Self.unreadable(error) }
        for record in records { try take(record) }
    }

    /// Ends the file: its last record or line, then the file's own checks (not empty, a header).
    mutating func finish() throws(ImportError) {
        guard sawBytes else { throw ImportError(.unprocessable, .emptyFile, "the file is empty") }
        if format == .ndjson {
            try finishLines()
        } else {
            let records: [CSVRecord]
            do { records = try csv.finish() } catch { throw Self.unreadable(error) }
            for record in records { try take(record) }
            guard columns != nil else { throw ImportError(.unprocessable, .emptyFile, "the file has no header row") }
        }
    }

    /// A CSV record: the header first, then a row.
    private mutating func take(_ record: CSVRecord) throws(ImportError) {
        guard let columns else {
            columns = try ImportColumns(header: record, format: format, report: &report)
            return
        }
        try countRow(line: record.line)
        switch format {
        case .fdl: fdlRow(record, columns: columns)
        case .csv: csvRow(record, columns: columns)
        case .ndjson: break
        }
    }

    /// Counts a row, refusing the file past `ImportCaps.maxRows`.
    mutating func countRow(line: Int) throws(ImportError) {
        report.rows += 1
        guard report.rows <= ImportCaps.maxRows else {
            throw ImportError(.unprocessable, .tooManyRows, "line \(line): an import holds at most \(ImportCaps.maxRows) rows", line: line)
        }
    }

    static func unreadable(_ error: CSVReadError) -> ImportError {
        let code: APIError.Code = switch error.code {
        case .nulByte: .nulByte
        case .unclosedQuote: .unclosedQuote
        case .badQuote: .badQuote
        case .tooManyColumns: .tooManyColumns
        case .fieldTooLong: .fieldTooLong
        case .lineTooLong: .lineTooLong
        case .invalidUTF8: .invalidUTF8
        }
        return ImportError(.unreadable, code, error.message, line: error.line)
    }

    // MARK: Rows

    /// What a format's reader makes of a row: a link to check, or why there is none.
    enum Draft {
        case link(ImportDraft)
        case refused(code: String, message: String)
        case unresolved(url: String)
    }

    /// Checks a row's link as a creation is checked and keeps it (true), or reports why not (false).
    @discardableResult
    mutating func accept(_ draft: Draft, line: Int) -> Bool {
        let link: ImportDraft
        switch draft {
        case .refused(let code, let message): report.refuse(line, code, message); return false
        case .unresolved(let url): report.unresolved(line, url: url); return false
        case .link(let made): link = made
        }
        if let first = seenIDs[link.id] {
            report.refuse(line, "duplicate_row", "the same link as line \(first)")
            return false
        }
        let checked: LinkService.CheckedLink
        do {
            checked = try links.check(link.request, app: app, router: router)
            if let path = link.request.path { try links.checkCustomPathShape(path, manifest: checked.manifest, router: router) }
        } catch {
            let answer = APIError.answering(error)
            report.refuse(line, answer?.code.description ?? "unprocessable", answer?.message ?? "\(error)")
            return false
        }
        var takesPlace = false
        if let path = link.request.path {
            let key = CustomPath.key(path)
            if let first = seenPaths[key] {
                let same = first.path == path
                report.refuse(line, "duplicate_path", same ? "path \(path) is line \(first.line)'s path too"
                    : "path \(path) differs from line \(first.line)'s \(first.path) only by case (custom paths are unique whatever their case)")
                return false
            }
            seenPaths[key] = (line, path)
            takesPlace = links.countsAgainstCustomPathCap(path, manifest: checked.manifest)
        }
        var shortID = link.shortID
        if let given = shortID, !seenShortIDs.insert(given).inserted {
            report.note(line, "short_id_changed", "short id \(given) is another line's too: this link gets a new one")
            shortID = nil
        }
        seenIDs[link.id] = line
        let record = LinkRecord(
            id: link.id, app: app, route: checked.route, params: checked.params, owner: link.request.owner,
            title: link.request.title, created: link.created ?? now,
            expires: link.expires ?? now.addingTimeInterval(TimeInterval(checked.ttlSeconds)), generation: link.generation,
            status: link.status, campaign: checked.campaign, shortID: shortID ?? ShortID.generate(), path: link.request.path)
        rows.append(ImportRow(line: line, record: record, givenShortID: shortID != nil, takesPathPlace: takesPlace))
        return true
    }

    /// The route and params a deep link opens in this app: the route a state may open (the signed-out state's
    /// intercept keeps its target as the continuation); nil when it resolves to nothing.
    func target(of url: String) -> (route: String, params: [String: String])? {
        let resolution = router.resolve(url: url, state: nil, app: app)
        if resolution.outcome == .route, let route = resolution.route { return (route, resolution.params) }
        if let continuation = resolution.intercept?.continuation { return (continuation.route, continuation.params) }
        guard resolution.outcome == .intercept else { return nil }
        for state in manifest.states {
            let opened = router.resolve(url: url, state: state, app: app)
            if opened.outcome == .route, let route = opened.route { return (route, opened.params) }
        }
        return nil
    }

    /// A deep link's draft: the link it opens, another app's link refused, or unresolved.
    func deepLinkDraft(_ url: String, _ fill: (inout ImportDraft) -> Void, id: String) -> Draft {
        guard let (route, params) = target(of: url) else {
            if let other = router.app(for: url), other != app {
                return .refused(code: "other_app_link", message: "\(url.prefix(200)) is a link of app \(other), not \(app)")
            }
            return .unresolved(url: String(url.prefix(2048)))
        }
        var draft = ImportDraft(id: id, request: CreateLinkRequest(route: route, params: params))
        fill(&draft)
        return .link(draft)
    }
}

/// A row's link before it is checked.
struct ImportDraft: Sendable {
    /// The link id: deterministic (`ImportRowID`), or the exported one (NDJSON).
    var id: String
    /// What a creation would be asked (route, params, owner, title, campaign, path; `ttlSeconds` unset).
    var request: CreateLinkRequest
    /// The exported short id (NDJSON), kept when free; nil: a new one.
    var shortID: String?
    var status = LinkRecordStatus.active
    var generation = 1
    var created: Date?
    /// The expiry the file gives; nil: the default lifetime from now.
    var expires: Date?
}

/// A row checked and kept until it is written.
struct ImportRow: Sendable {
    let line: Int
    var record: LinkRecord
    /// The short id came from the file (a new one drawn is noted).
    let givenShortID: Bool
    /// Its custom path takes one of the app's places (`LinkService.maxCustomPathsPerApp`).
    let takesPathPlace: Bool
}

/// The deterministic id of an imported row's link: 32 hex characters of SHA-256 over the app, the format and the
/// row's source key (the FDL short link; the CSV path, URL, route and params), so a second import of the same row
/// names the same link.
enum ImportRowID {
    static func make(app: String, format: LinkImportFormat, key: String) -> String {
        let digest = SecretDigest.sha256(Array("linkd-import\u{0}\(app)\u{0}\(format.rawValue)\u{0}\(key)".utf8))
        // A link id's own form: 16 bytes (SHA-256 gives 32), written as `LinkID` writes every id.
        return LinkID(bytes: Array(digest.prefix(16)))!.hex
    }
}
