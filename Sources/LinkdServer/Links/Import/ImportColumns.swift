import CSVRecords
import Foundation

/// The columns of a CSV-based import, read from its header: each known column's index by its canonical name.
///
/// FDL headers are matched loosely, as Google's exports and hand-made sheets spell them (case, spaces, `_` and `-`
/// ignored: `short_link`, `Short link`, `shortLink`); linkd's CSV header exactly (lowercase). A column neither knows
/// is noted once (line 1) and ignored; a column named twice, or a header lacking what the format needs, refuses the
/// file (422).
struct ImportColumns: Sendable {
    private let index: [String: Int]

    /// FDL's columns by their loose spelling (lowercase, no space, `_` or `-`) → canonical name.
    static let fdlNames: [String: String] = {
        var names = ["shortlink": "short_link", "shortdynamiclink": "short_link", "longlink": "long_link",
                     "longdynamiclink": "long_link", "link": "link", "deeplink": "link", "linkname": "link_name"]
        for parameter in fdlParameters { names[parameter.replacingOccurrences(of: "_", with: "")] = parameter }
        return names
    }()

    /// FDL's link parameters (a long link's query items), read from their own columns too.
    static let fdlParameters = [
        "apn", "ibi", "isi", "ifl", "afl", "ofl", "efr", "ipbi", "ipfl", "imv", "amv", "st", "sd", "si",
        "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content",
    ]

    /// linkd's CSV columns.
    static let csvNames: Set<String> = ["path", "route", "params_json", "owner", "title", "expires_at", "url"]

    /// The columns of `header` for `format`.
    init(header: CSVRecord, format: LinkImportFormat, report: inout ImportReport) throws(ImportError) {
        var index: [String: Int] = [:]
        var ignored: [String] = []
        for (position, raw) in header.fields.enumerated() {
            let name: String?
            if format == .fdl {
                let loose = String(raw.lowercased().unicodeScalars.filter { !" _-\t".unicodeScalars.contains($0) })
                name = Self.fdlNames[loose]
            } else {
                let exact = raw.trimmingCharacters(in: .whitespaces).lowercased()
                name = Self.csvNames.contains(exact) ? exact : nil
            }
            guard let name else {
                ignored.append(String(raw.prefix(64)))
                continue
            }
            guard index.updateValue(position, forKey: name) == nil else {
                throw ImportError(.unprocessable, .duplicateColumn, "line \(header.line): the header names \(name) twice", line: header.line)
            }
        }
        if !ignored.isEmpty {
            report.note(header.line, "columns_ignored", "columns not read: \(ignored.prefix(16).joined(separator: ", "))")
        }
        switch format {
        case .fdl:
            guard index["short_link"] != nil else {
                throw ImportError(.unprocessable, .missingColumn,
                    "line \(header.line): the header names no short-link column (short_link, Short link or shortLink)", line: header.line)
            }
            guard index["long_link"] != nil || index["link"] != nil else {
                throw ImportError(.unprocessable, .missingColumn,
                    "line \(header.line): the header names neither a long-link column (long_link) nor a deep-link column (link)", line: header.line)
            }
        case .csv:
            guard index["route"] != nil || index["url"] != nil || index["params_json"] != nil else {
                throw ImportError(.unprocessable, .missingColumn,
                    "line \(header.line): the header names none of route, params_json or url", line: header.line)
            }
        case .ndjson:
            break
        }
        self.index = index
    }

    /// The cell of column `name` in `record`, nil when the column is absent or the cell empty (spaces around it
    /// dropped).
    func value(_ name: String, in record: CSVRecord) -> String? {
        guard let position = index[name], position < record.fields.count else { return nil }
        let field = record.fields[position]
        // Most cells start and end with a visible ASCII byte: nothing to trim, and Foundation's trimming is a good
        // part of an import's time.
        if let first = field.utf8.first, let last = field.utf8.last, Self.isVisibleASCII(first), Self.isVisibleASCII(last) {
            return field
        }
        let text = field.trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    private static func isVisibleASCII(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }
}
