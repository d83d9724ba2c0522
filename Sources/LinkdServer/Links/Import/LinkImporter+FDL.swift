import CSVRecords
import Foundation
import LinkRouter

// Firebase Dynamic Links rows: the short link, and the deep link with FDL's parameters from a long link or from
// columns of their own.
extension LinkImporter {
    /// FDL's fallback parameters: never kept (no manifest names hosts a fallback may send a browser to).
    static let fdlFallbacks = ["ofl", "ifl", "afl"]

    /// One FDL row: its deep link resolved through the manifest, the short link's path kept as the link's custom path
    /// when its host is one of the app's, `utm_*` kept as the link's campaign, `st` or the link name as its title.
    mutating func fdlRow(_ record: CSVRecord, columns: ImportColumns) {
        let line = record.line
        guard let short = columns.value("short_link", in: record) else {
            accept(.refused(code: "missing_short_link", message: "the row has no short link"), line: line)
            return
        }
        var items: [String: String] = [:]
        if let long = columns.value("long_link", in: record) {
            switch LongLink.parse(long) {
            case nil:
                accept(.refused(code: "bad_long_link", message: "\(long.prefix(200)) is not a long link (https://<host>/?link=…)"), line: line)
                return
            case .refused(let why)?:
                accept(.refused(code: "bad_long_link", message: why), line: line)
                return
            case .inner(let link)?:
                items["link"] = link
                for (name, value) in LongLink.items(long) ?? [] where items[name] == nil { items[name] = value }
            }
        }
        for name in ["link"] + ImportColumns.fdlParameters where items[name] == nil {
            if let value = columns.value(name, in: record) { items[name] = value }
        }
        guard let link = items["link"], !link.isEmpty else {
            accept(.refused(code: "missing_link", message: "the row has no deep link (link)"), line: line)
            return
        }
        var notes: [(code: String, message: String)] = []
        for name in Self.fdlFallbacks {
            guard let value = items[name], !value.isEmpty else { continue }
            notes.append(("fallback_not_kept",
                "\(name) (\(value.prefix(200))) is not kept: no manifest names hosts a fallback may send a browser to"))
        }
        let path: String?
        switch shortLinkPath(short) {
        case .refused(let message):
            accept(.refused(code: "bad_short_link", message: message), line: line)
            return
        case .foreign(let host):
            path = nil
            notes.append(("path_not_kept",
                "the short link's host \(host) is not one of \(app)'s: the link answers at its new short URL only"))
        case .own(let own):
            path = own
        }
        let campaign = CampaignFields(source: items["utm_source"], medium: items["utm_medium"], name: items["utm_campaign"])
        let title = items["st"] ?? columns.value("link_name", in: record)
        let id = ImportRowID.make(app: app, format: .fdl, key: short)
        let draft = deepLinkDraft(link, { draft in
            draft.request.path = path
            draft.request.title = title.map { String($0.prefix(LinkService.Caps.titleLength)) }
            if campaign.source != nil || campaign.medium != nil || campaign.name != nil { draft.request.campaign = campaign }
        }, id: id)
        if accept(draft, line: line) {
            for note in notes { report.note(line, note.code, note.message) }
        }
    }

    /// Where a short link's path goes.
    enum ShortLinkPath {
        /// On a host of the app: kept as the link's custom path.
        case own(String)
        /// On another host (`*.page.link`): not kept.
        case foreign(String)
        /// Not an http(s) URL with a path.
        case refused(String)
    }

    /// The path of `short` on one of the app's hosts, or the foreign host.
    func shortLinkPath(_ short: String) -> ShortLinkPath {
        guard let (path, _) = LongLink.pathAndQuery(short), let start = short.range(of: "://") else {
            return .refused("\(short.prefix(200)) is not an http(s) URL")
        }
        let authority = short[start.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = Authority.hostname(String(authority.split(separator: "@").last ?? authority))
        guard manifest.hosts.contains(host) || manifest.shareHosts.contains(host) else { return .foreign(host) }
        var kept = path
        if kept.count > 1, kept.hasSuffix("/") { kept = kept.dropLast() }
        guard kept.count > 1 else { return .refused("\(short.prefix(200)) has no path to keep") }
        return .own(String(kept))
    }
}

extension CampaignFields {
    /// A campaign of these parts (each may be nil).
    init(source: String?, medium: String?, name: String?) {
        self.source = source
        self.medium = medium
        self.name = name
    }
}
