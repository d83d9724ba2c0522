import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
import LinkRouter
import LinkStore
import Logging
import UTCTime

/// `GET /v1/links/export?app=&format=csv|ndjson`: every link of one app as a download, streamed.
extension LinkRoutes {
    /// The query parameters the export takes.
    static let exportParameters: Set<String> = ["app", "format"]

    /// What an export request asks for, read from its query string and checked against the caller's key.
    struct ExportRequest: Equatable {
        let app: String
        let format: LinkExportFormat

        /// Reads `?app=&format=`: 400 `bad_request` for an unknown or repeated parameter, or an admin key without
        /// `app` (an export is one app's: its file, and what an import recreates); 400 `unsupported_format` unless
        /// `format` is `csv` or `ndjson`; 403 `forbidden` for a client key naming another app (a client key exports
        /// its own app, `app` optional); 404 `not_found` for an app not loaded.
        init(parameters: some Collection<(key: Substring, value: Substring)>, caller: Caller, router: LinkRouter.Router) throws {
            var given: [String: String] = [:]
            for (key, value) in parameters {
                let name = String(key)
                guard LinkRoutes.exportParameters.contains(name) else {
                    throw APIError(.badRequest, .badRequest, "unknown query parameter '\(name.prefix(64))' (known: app, format)")
                }
                guard given.updateValue(String(value), forKey: name) == nil else {
                    throw APIError(.badRequest, .badRequest, "query parameter '\(name)' is given twice")
                }
            }
            guard let formatText = given["format"], let format = LinkExportFormat(rawValue: formatText) else {
                throw APIError(.badRequest, .unsupportedFormat, "'format' must be csv or ndjson")
            }
            if let named = given["app"], named.isEmpty || named.unicodeScalars.count > ResolveRoutes.maxNameLength {
                throw APIError(.badRequest, .badRequest, "app must be 1–\(ResolveRoutes.maxNameLength) characters")
            }
            let app: String
            if caller.kind == .admin {
                guard let named = given["app"] else {
                    throw APIError(.badRequest, .badRequest, "an admin key names the app to export in 'app'")
                }
                app = named
            } else {
                guard let own = caller.app, given["app"] == nil || given["app"] == own else {
                    throw APIError(.forbidden, .forbidden, "a client key exports the links of its own app only")
                }
                app = own
            }
            try router.requireLoaded(app: app)
            self.app = app
            self.format = format
        }

        /// `<app>-links-<YYYY-MM-DD>.<csv|ndjson>`, the app reduced to letters, digits, `-`, `_` and `.`.
        func fileName(at date: Date) -> String {
            let safe = String(app.prefix(64).map { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) ? $0 : "_" })
            let day = String(ExportText.date(date).prefix(10))
            return "\(safe)-links-\(day).\(format.fileExtension)"
        }
    }

    /// Answers an export: the caller's scope checked, a slot taken (429 while `LinkExportGate.limit` run), the export
    /// audited as `link.export` (a `HEAD` is not: it reads no link), then the streamed body.
    func export(_ request: Request, context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.authenticate(request, client: context.clientAddress)
        let asked = try ExportRequest(parameters: request.uri.queryParameters, caller: caller, router: links.router)
        guard let slot = exports.enter() else {
            throw APIError.rateLimited("\(exports.limit) exports are running; retry when one has finished", retryAfterSeconds: 5)
        }
        let now = Date()
        if request.method != .head {
            let entry = AuditEntry(
                at: now, actor: caller.keyID, action: AuditAction.linkExport.rawValue, detail: "\(asked.app) \(asked.format.rawValue)",
                app: asked.app)
            try await LinkService.storing { [store = links.store] in try await store.appendAudit(entry) }
            context.logger.logAdminAction(.linkExport, actor: caller.keyID, ["app": "\(asked.app)", "format": "\(asked.format.rawValue)"])
        }
        let logger = context.logger
        let started = ContinuousClock.now
        let body = links.exportBody(app: asked.app, format: asked.format, now: now) { result in
            withExtendedLifetime(slot) {}
            let elapsed = ContinuousClock.now - started
            switch result {
            case .success(let summary):
                logger.info("export finished", metadata: [
                    "app": "\(asked.app)", "format": "\(asked.format.rawValue)", "links": "\(summary.links)",
                    "bytes": "\(summary.bytes)", "pages": "\(summary.pages)", "duration": "\(elapsed)",
                ])
            case .failure(let error):
                logger.warning("export ended early", metadata: [
                    "app": "\(asked.app)", "format": "\(asked.format.rawValue)", "error": "\(String(describing: error).prefix(200))",
                ])
            }
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: asked.format.mediaType, .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"\(asked.fileName(at: now))\"",
            ],
            body: body)
    }
}
