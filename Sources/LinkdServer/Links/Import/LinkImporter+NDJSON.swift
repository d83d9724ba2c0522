import Foundation
import LinkStore
import NIOCore
import TokenSigning
import UTCTime

// NDJSON rows: the records `GET /v1/links/export?format=ndjson` writes (`LinkExportRecord`, version 1), one a line:
// the same id, short id (when free), custom path, route, params, owner, title, campaign, generation, dates and status.
extension LinkImporter {
    /// Splits the piece into lines, each checked (no NUL, at most `ImportCaps.ndjsonLineBytes`, UTF-8) and read.
    mutating func readLines(_ piece: ByteBuffer) throws(ImportError) {
        for byte in piece.readableBytesView {
            if byte == 0 { throw ImportError(.unreadable, .nulByte, "line \(lineNumber) holds a NUL byte", line: lineNumber) }
            if byte == 0x0A {
                try endLine()
                continue
            }
            guard pendingLine.count < ImportCaps.ndjsonLineBytes else {
                throw ImportError(.unreadable, .lineTooLong, "line \(lineNumber) is longer than \(ImportCaps.ndjsonLineBytes) bytes",
                    line: lineNumber)
            }
            pendingLine.append(byte)
        }
    }

    /// The last line, when the file does not end with a line break.
    mutating func finishLines() throws(ImportError) {
        if !pendingLine.isEmpty { try endLine() }
    }

    private mutating func endLine() throws(ImportError) {
        let line = lineNumber
        lineNumber += 1
        defer { pendingLine.removeAll(keepingCapacity: true) }
        if pendingLine.last == 0x0D { pendingLine.removeLast() }
        guard let text = String(validating: pendingLine, as: UTF8.self) else {
            throw ImportError(.unreadable, .invalidUTF8, "line \(line) holds bytes that are not UTF-8", line: line)
        }
        if text.allSatisfy({ $0 == " " || $0 == "\t" }) { return }
        try countRow(line: line)
        guard let object = try? JSONSerialization.jsonObject(with: Data(pendingLine)) as? [String: Any] else {
            accept(.refused(code: "bad_json", message: "the line is not a JSON object"), line: line)
            return
        }
        accept(ndjsonDraft(object), line: line)
    }

    /// The link an exported record describes, or why it cannot be imported.
    func ndjsonDraft(_ object: [String: Any]) -> Draft {
        func bad(_ message: String) -> Draft { .refused(code: "bad_record", message: message) }
        func text(_ key: String) -> String?? {
            switch object[key] {
            case nil, is NSNull: .some(nil)
            case let value as String: .some(value)
            default: nil
            }
        }
        guard (object["linkdExport"] as? Int) == LinkExportRecord.version else {
            return .refused(code: "unsupported_version", message: "linkdExport must be \(LinkExportRecord.version), the version this linkd reads")
        }
        guard let id = object["id"] as? String, LinkID(hex: id) != nil else { return bad("id must be a link id (32 hex characters)") }
        guard let recordApp = object["app"] as? String else { return bad("app is missing") }
        guard recordApp == app else {
            return .refused(code: "other_app", message: "the record is a link of app \(recordApp.prefix(64)), not \(app)")
        }
        guard let route = object["route"] as? String else { return bad("route is missing") }
        guard let params = (object["params"] as? [String: Any]).flatMap({ $0 as? [String: String] }) else {
            return bad("params must be an object of strings")
        }
        guard let owner = text("owner"), let title = text("title"), let path = text("path"), let shortID = text("shortId") else {
            return bad("owner, title, path and shortId are strings or null")
        }
        var campaign: CampaignFields?
        if let parts = object["campaign"] as? [String: Any] {
            campaign = CampaignFields(source: parts["source"] as? String, medium: parts["medium"] as? String, name: parts["name"] as? String)
        }
        let status: LinkRecordStatus
        switch object["status"] as? String {
        case "active"?, "expired"?: status = .active
        case "revoked"?: status = .revoked
        case "deleted"?: status = .deleted
        default: return bad("status must be active, expired, revoked or deleted")
        }
        guard let generation = object["generation"] as? Int, generation >= 1, generation <= Int(UInt32.max) else {
            return bad("generation must be a positive integer")
        }
        guard let created = (object["createdAt"] as? String).flatMap(UTCDateTime.rfc3339),
              let expires = (object["expiresAt"] as? String).flatMap(UTCDateTime.rfc3339) else {
            return bad("createdAt and expiresAt must be RFC 3339 dates")
        }
        guard expires.timeIntervalSince(now) <= Double(links.maxTTLSeconds) else {
            return .refused(code: "bad_expiry", message: "expiresAt is more than \(links.maxTTLSeconds) s from now")
        }
        var draft = ImportDraft(
            id: id, request: CreateLinkRequest(route: route, params: params, owner: owner, title: title, campaign: campaign, path: path))
        draft.shortID = shortID.flatMap { ShortID.isShape($0) ? $0 : nil }
        draft.status = status
        draft.generation = generation
        draft.created = min(created, now)
        draft.expires = expires
        return .link(draft)
    }
}
