import CSVRecords
import Foundation
import UTCTime

// linkd's CSV rows: `path,route,params_json,owner,title,expires_at`, or `url` (resolved through the manifest) for
// route and params.
extension LinkImporter {
    /// One CSV row: the link it describes, checked as a creation is.
    mutating func csvRow(_ record: CSVRecord, columns: ImportColumns) {
        let line = record.line
        let url = columns.value("url", in: record)
        let route = columns.value("route", in: record)
        let paramsText = columns.value("params_json", in: record)
        let path = columns.value("path", in: record)
        let owner = columns.value("owner", in: record)
        let title = columns.value("title", in: record)
        var expires: Date?
        if let text = columns.value("expires_at", in: record) {
            guard let date = UTCDateTime.rfc3339(text) else {
                accept(.refused(code: "bad_expiry", message: "expires_at \(text.prefix(64)) is not an RFC 3339 date"), line: line)
                return
            }
            let seconds = date.timeIntervalSince(now)
            guard seconds >= Double(LinkService.Caps.minTTLSeconds), seconds <= Double(links.maxTTLSeconds) else {
                accept(.refused(code: "bad_expiry", message:
                    "expires_at \(text) must be at least \(LinkService.Caps.minTTLSeconds) s and at most \(links.maxTTLSeconds) s from now"), line: line)
                return
            }
            expires = date
        }
        var params: [String: String]?
        if let paramsText {
            guard let object = try? JSONSerialization.jsonObject(with: Data(paramsText.utf8)) as? [String: Any],
                  let strings = object as? [String: String] else {
                accept(.refused(code: "bad_params_json", message: "params_json is not a JSON object of strings"), line: line)
                return
            }
            params = strings
        }
        let canonical = params.flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) }
        let key = [path ?? "", url ?? "", route ?? "", canonical.map { String(decoding: $0, as: UTF8.self) } ?? ""].joined(separator: "\u{1F}")
        let id = ImportRowID.make(app: app, format: .csv, key: key)
        let fill: (inout ImportDraft) -> Void = { draft in
            draft.request.path = path
            draft.request.owner = owner
            draft.request.title = title
            draft.expires = expires
        }
        if let url {
            guard route == nil, params == nil else {
                accept(.refused(code: "ambiguous_target", message: "give url, or route and params_json, not both"), line: line)
                return
            }
            accept(deepLinkDraft(url, fill, id: id), line: line)
            return
        }
        var draft = ImportDraft(id: id, request: CreateLinkRequest(route: route, params: params))
        fill(&draft)
        accept(.link(draft), line: line)
    }
}
