import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
import LinkRouter
import LinkStore
import Logging
import Synchronization

/// `POST /v1/admin/imports?app=&format=fdl|csv|ndjson[&dryRun=true]` (admin key): links brought from Firebase
/// Dynamic Links, a CSV, or another linkd's export. The body is the file, read as it arrives (at most `maxBytes`: 413
/// `import_too_large`, before a byte is read when `Content-Length` says so; the edge's `bodyTimeoutSeconds` bounds
/// how long it may take to come), checked whole, then written (`LinkImporter`). One import per app at a time on an
/// instance (409 `import_running`). The answer is the `ImportReport`; audited as `link.import` with its counts.
struct ImportRoutes: Sendable {
    let links: LinkService
    let auth: APIKeyAuthenticator
    /// The largest file (`importMaxBytes`).
    let maxBytes: Int
    /// The apps with an import running on this instance.
    let running = ImportGate()

    func register(on router: some RouterMethods<LinkdRequestContext>) {
        router.group("v1/admin").post("imports") { request, context in
            try await importLinks(request, context)
        }
    }

    /// What an import asks for, from its query string.
    struct ImportQuery: Equatable {
        let app: String
        let format: LinkImportFormat
        let dryRun: Bool

        /// Reads `?app=&format=&dryRun=`: 400 `bad_request` for an unknown or repeated parameter or a `dryRun` other
        /// than `true`/`false`, 400 `unsupported_format`, 404 for an app not loaded.
        init(parameters: some Collection<(key: Substring, value: Substring)>, router: LinkRouter.Router) throws {
            var given: [String: String] = [:]
            for (key, value) in parameters {
                let name = String(key)
                guard ["app", "format", "dryRun"].contains(name) else {
                    throw APIError(.badRequest, .badRequest, "unknown query parameter '\(name.prefix(64))' (known: app, format, dryRun)")
                }
                guard given.updateValue(String(value), forKey: name) == nil else {
                    throw APIError(.badRequest, .badRequest, "query parameter '\(name)' is given twice")
                }
            }
            guard let formatText = given["format"], let format = LinkImportFormat(rawValue: formatText) else {
                throw APIError(.badRequest, .unsupportedFormat, "'format' must be fdl, csv or ndjson")
            }
            guard let app = given["app"], !app.isEmpty, app.unicodeScalars.count <= ResolveRoutes.maxNameLength else {
                throw APIError(.badRequest, .badRequest, "name the app to import into in 'app' (1–\(ResolveRoutes.maxNameLength) characters)")
            }
            try router.requireLoaded(app: app)
            switch given["dryRun"] {
            case nil, "false"?: dryRun = false
            case "true"?: dryRun = true
            default: throw APIError(.badRequest, .badRequest, "dryRun must be true or false")
            }
            self.app = app
            self.format = format
        }
    }

    /// Reads, checks and writes one import, and answers its report (503 with the report in `details` when the store
    /// failed part way: `stopped` says which rows went in).
    func importLinks(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let asked = try ImportQuery(parameters: request.uri.queryParameters, router: links.router)
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBytes {
            throw tooLarge()
        }
        guard let slot = running.enter(app: asked.app) else {
            throw ImportError(.running, .importRunning, "an import into \(asked.app) is running; retry when it has finished")
        }
        defer { withExtendedLifetime(slot) {} }
        let started = ContinuousClock.now
        let now = Date()
        var importer = try LinkImporter(links: links, app: asked.app, format: asked.format, dryRun: asked.dryRun, now: now)
        var received = 0
        do {
            for try await piece in request.body {
                received += piece.readableBytes
                guard received <= maxBytes else { throw tooLarge() }
                try importer.read(piece)
            }
        } catch {
            // The file's fault, or a body that ended early: the connection closed (the edge's body time limit).
            if error is ImportError { throw error }
            throw APIError(.badRequest, .badRequest, "the body ended before it was whole (after \(received) bytes)")
        }
        try importer.finish()
        let report = try await importer.write(dryRun: asked.dryRun)
        let counts = "rows=\(report.rows) imported=\(report.imported) alreadyPresent=\(report.alreadyPresent) "
            + "refused=\(report.refusedTotal) unresolved=\(report.unresolvedTotal)"
        if !asked.dryRun {
            let entry = AuditEntry(
                at: now, actor: caller.keyID, action: AuditAction.linkImport.rawValue,
                detail: "\(asked.app) \(asked.format.rawValue) \(counts)\(report.stopped.map { " stopped at line \($0.line)" } ?? "")",
                app: asked.app)
            try? await links.store.appendAudit(entry)
            context.logger.logAdminAction(.linkImport, actor: caller.keyID, [
                "app": "\(asked.app)", "format": "\(asked.format.rawValue)", "imported": "\(report.imported)",
                "alreadyPresent": "\(report.alreadyPresent)", "refused": "\(report.refusedTotal)",
                "bytes": "\(received)", "duration": "\(ContinuousClock.now - started)",
            ])
        }
        if let stopped = report.stopped {
            throw APIError(.serviceUnavailable, .storeUnavailable, stopped.message, details: report)
        }
        return try JSONBody.response(report)
    }

    private func tooLarge() -> ImportError {
        ImportError(.tooLarge, .importTooLarge, "the file is larger than \(maxBytes) bytes (importMaxBytes)")
    }
}

/// The apps with an import running on this instance: a slot per app, given back when the last reference to it goes
/// (the import answered, failed, or its connection dropped).
final class ImportGate: Sendable {
    private let apps = Mutex<Set<String>>([])

    /// A slot for `app`, or nil while another import of it runs.
    func enter(app: String) -> Slot? {
        let entered = apps.withLock { $0.insert(app).inserted }
        return entered ? Slot(gate: self, app: app) : nil
    }

    fileprivate func leave(_ app: String) {
        _ = apps.withLock { $0.remove(app) }
    }

    /// One running import.
    final class Slot: Sendable {
        private let gate: ImportGate
        private let app: String
        fileprivate init(gate: ImportGate, app: String) {
            self.gate = gate
            self.app = app
        }
        deinit { gate.leave(app) }
    }
}
