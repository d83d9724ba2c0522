import Foundation
import HTTPTypes
import LinkStore
import LinkdTestSupport
import Testing

@testable import LinkdServer

@Suite("API: POST /v1/admin/imports — FDL, CSV and NDJSON imported, idempotent, every old URL answering")
struct LinkImportTests {
    /// `POST /v1/admin/imports` of `body`.
    static func importFile(_ api: API, app: String, format: String, _ body: String, dryRun: Bool = false) async throws -> Reply {
        try await api.call(
            .post, "/v1/admin/imports?app=\(app)&format=\(format)\(dryRun ? "&dryRun=true" : "")", key: api.adminKey, raw: body,
            contentType: format == "ndjson" ? "application/x-ndjson" : "text/csv")
    }

    /// The report's list `key` as (line, code) pairs.
    static func lines(_ reply: Reply, _ key: String) -> [(Int, String)] {
        (reply.json[key] as? [[String: Any]] ?? []).map { ($0["line"] as? Int ?? 0, $0["code"] as? String ?? $0["url"] as? String ?? "") }
    }

    /// An FDL export of COIN links as Google's CSV spells it: `rows` rows, the first `ownHost` of them with short
    /// links on COIN's own host (kept as custom paths), the rest on `coin.page.link`; every long link carries `ofl`
    /// and `utm_*`. The own-host rows' paths and coin ids.
    static func fdlExport(rows: Int, ownHost: Int) -> (text: String, own: [(path: String, coinId: String)]) {
        var text = "Short link,Long link,Link name\r\n"
        var own: [(String, String)] = []
        for index in 0..<rows {
            let code = "m9Mm\(String(index, radix: 36))"
            let coinId = "coin-\(index)"
            let host = index < ownHost ? "links.coin.example" : "coin.page.link"
            if index < ownHost { own.append(("/\(code)", coinId)) }
            let deep = "https%3A%2F%2Flinks.coin.example%2Fcoin%2F\(coinId)"
            text += "https://\(host)/\(code),https://coin.page.link/?link=\(deep)&apn=com.coin.app&ibi=com.coin.ios"
                + "&ofl=https%3A%2F%2Fcoin.example%2Fweb&utm_source=news&utm_medium=email&utm_campaign=w48,Coin \(index)\r\n"
        }
        return (text, own)
    }

    @Test("seed 004 (COIN's shared Canvas) — a 10,000-row FDL export imported: every old own-host URL answers (page 200, resolve to Canvas), page.link rows noted; a second import is all alreadyPresent",
          arguments: StoreKind.allCases)
    func fdlExportImported(backend: StoreKind) async throws {
        try await withAPI(on: backend, { $0.limits.rateLimitPerSecond = 0 }) { api in
            // 150 own-host paths: under the 200 live custom paths an app may hold (the cap applies to imports too).
            var (text, own) = Self.fdlExport(rows: 10_000, ownHost: 150)
            text += "https://coin.page.link/unresolved1,https://coin.page.link/?link=https%3A%2F%2Flinks.coin.example%2Fnowhere%2Fx,\r\n"
            text += "https://coin.page.link/otherapp,https://coin.page.link/?link=https%3A%2F%2Flinks.handz.example%2Fwelcome,\r\n"
            text += "https://coin.page.link/nested,https://coin.page.link/?link=https%3A%2F%2Fx.page.link%2F%3Flink%3Dy,\r\n"
            let first = try await Self.importFile(api, app: "coin", format: "fdl", text)
            try #require(first.status == 200, "\(first.status) \(first.text.prefix(500))")
            #expect(first.json["rows"] as? Int == 10_003)
            #expect(first.json["imported"] as? Int == 10_000)
            #expect(first.json["unresolvedTotal"] as? Int == 1)
            #expect(Self.lines(first, "unresolved").first?.0 == 10_002)
            #expect(Self.lines(first, "refused").map(\.1) == ["other_app_link", "bad_long_link"])
            #expect(Self.lines(first, "refused").map(\.0) == [10_003, 10_004])
            // A note per row for ofl, and one per page.link row for its path: 10,000 + 9,850.
            #expect(first.json["notesTotal"] as? Int == 10_000 + 9_850)
            let notes = Self.lines(first, "notes")
            #expect(notes.count == 1000 && notes.contains { $0 == (2, "fallback_not_kept") } && notes.contains { $0 == (152, "path_not_kept") })

            for (path, coinId) in own {
                let page = try await api.get(path, host: "links.coin.example")
                #expect(page.status == 200, "\(path): \(page.status)")
                let resolved = try await api.resolve("https://links.coin.example\(path)", state: "signedOut")
                #expect(resolved["route"] as? String == "Canvas", "\(path)")
                #expect((resolved["params"] as? [String: String])?["coinId"] == coinId, "\(path)")
            }
            // The link keeps the FDL campaign and name; imported links are ordinary links (listed, inspected).
            let listed = try await api.call(.get, "/v1/links?app=coin&limit=1", key: api.adminKey)
            let link = try #require((listed.json["links"] as? [[String: Any]])?.first)
            #expect(link["title"] as? String != nil)
            #expect(link["campaign"] as? [String: String] == ["source": "news", "medium": "email", "name": "w48"])

            let second = try await Self.importFile(api, app: "coin", format: "fdl", text)
            try #require(second.status == 200, "\(second.text.prefix(300))")
            #expect(second.json["imported"] as? Int == 0)
            #expect(second.json["alreadyPresent"] as? Int == 10_000)
            #expect(second.json["refusedTotal"] as? Int == 2)
            let audit = try await api.call(.get, "/v1/admin/audit?action=link.import", key: api.adminKey)
            let details = (audit.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["detail"] as? String }
            #expect(details.count == 2 && details.contains { $0.contains("imported=10000") } && details.contains { $0.contains("alreadyPresent=10000") },
                    "\(details)")
        }
    }

    @Test("seed 004 (COIN's shared Canvas) — a team leaving FDL with its own domain: 10,000 four-character short links on COIN's host, covered by share.pathPatterns [\"/????\"], imported; every old URL answers (page 200, resolve to its Canvas), the well-known files unchanged")
    func fdlMigrationOfAWholeDomain() async throws {
        let manifests = try PathPatternFixtures.manifestPaths(app: "coin", patterns: ["/????"])
        try await withAPI({ $0.links.manifests = manifests; $0.limits.rateLimitPerSecond = 0 }) { api in
            let aasaBefore = try await api.get("/.well-known/apple-app-site-association", host: "links.coin.example")
            // Codes of digits and lowercase letters with one letter in upper case each: FDL's are case-sensitive.
            let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz")
            func code(_ index: Int) -> String {
                let lower = (0..<4).reversed().map { String(digits[index / Int(pow(36.0, Double($0))) % 36]) }.joined()
                return lower.prefix(3) + lower.suffix(1).uppercased()
            }
            var text = "short_link,link,utm_source\r\n"
            for index in 0..<10_000 {
                text += "https://links.coin.example/\(code(index)),https://links.coin.example/coin/coin-\(index),fdl\r\n"
            }
            // Two codes that differ only by case: a custom path's case rule keeps the first, the second is refused
            // by name (docs/imports.md: such pairs are reported, not kept both).
            text += "https://links.coin.example/\(code(10).lowercased()),https://links.coin.example/coin/coin-x,fdl\r\n"
            let report = try await Self.importFile(api, app: "coin", format: "fdl", text)
            try #require(report.status == 200, "\(report.status) \(report.text.prefix(500))")
            #expect(report.json["imported"] as? Int == 10_000, "\(report.text.prefix(500))")
            #expect(report.json["notesTotal"] as? Int == 0, "\(report.text.prefix(500))")
            #expect(Self.lines(report, "refused").map(\.0) == [10_002], "\(report.text.suffix(400))")
            #expect(Self.lines(report, "refused").map(\.1) == ["duplicate_path"]
                    && (report.json["refused"] as? [[String: Any]])?.first?["message"] as? String == "path /\(code(10).lowercased()) differs from line 12's /\(code(10)) only by case (custom paths are unique whatever their case)",
                    "\(report.json["refused"] ?? "")")
            // Every old URL, as people kept it: the page, and the app's resolution of it.
            for index in 0..<10_000 {
                let path = "/" + code(index)
                let page = try await api.get(path, host: "links.coin.example")
                #expect(page.status == 200, "\(path): \(page.status)")
                let resolved = try await api.resolve("https://links.coin.example\(path)", state: "signedOut")
                #expect((resolved["params"] as? [String: String])?["coinId"] == "coin-\(index)", "\(path): \(resolved)")
            }
            // The app opens them all through the one pattern: the well-known file is what it was with no link.
            let aasaAfter = try await api.get("/.well-known/apple-app-site-association", host: "links.coin.example")
            #expect(aasaAfter.status == 200 && aasaAfter.text == aasaBefore.text && aasaAfter.text.contains("\"/????\""))
            // A code of the shape that no link holds answers as an unknown link does.
            #expect(try await api.get("/zzzz", host: "links.coin.example").status == 404)
        }
    }

    @Test("NDJSON: an export from one daemon imported into another gives the same links — ids, short URLs, paths, statuses — and the formula guard still holds in the CSV export",
          arguments: StoreKind.allCases)
    func exportImportedIntoASecondDaemon(backend: StoreKind) async throws {
        let exported = ImportTestBox<(text: String, ids: [String], views: [String: [String: Any]])>(("", [], [:]))
        try await withAPI(on: backend) { api in
            let client = try await api.clientKey(app: "handz")
            var ids: [String] = []
            for index in 0..<12 {
                var body: [String: Any] = ["route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()], "owner": "u\(index % 3)"]
                if index == 0 { body["title"] = #"=HYPERLINK("http://evil","x")"# }
                if index < 3 { body["path"] = "/moved-\(index)" }
                if index == 4 { body["campaign"] = ["source": "news", "name": "w48"] }
                let made = try await api.call(.post, "/v1/links", key: client, json: body)
                try #require(made.status == 201, "\(made.text)")
                ids.append(try #require(made.string("id")))
            }
            #expect(try await api.call(.delete, "/v1/links/\(ids[2])", key: client).status == 200)
            let export = try await api.call(.get, "/v1/links/export?app=handz&format=ndjson", key: api.adminKey)
            try #require(export.status == 200)
            var views: [String: [String: Any]] = [:]
            for id in ids { views[id] = try await api.call(.get, "/v1/links/\(id)", key: api.adminKey).json }
            exported.value = (export.text, ids, views)
        }
        try await withAPI(on: backend) { api in
            let (text, ids, views) = exported.value
            let imported = try await Self.importFile(api, app: "handz", format: "ndjson", text)
            try #require(imported.status == 200, "\(imported.text.prefix(500))")
            #expect(imported.json["imported"] as? Int == 12 && imported.json["refusedTotal"] as? Int == 0, "\(imported.text.prefix(500))")
            for id in ids {
                let view = try await api.call(.get, "/v1/links/\(id)", key: api.adminKey).json
                let before = try #require(views[id])
                for field in ["id", "route", "owner", "title", "status", "createdAt", "expiresAt", "shortURL", "pathURL"] {
                    #expect("\(view[field] ?? "absent")" == "\(before[field] ?? "absent")", "\(id) \(field)")
                }
                #expect(view["params"] as? [String: String] == before["params"] as? [String: String])
                #expect(view["campaign"] as? [String: String] == before["campaign"] as? [String: String])
            }
            for index in 0..<2 { #expect(try await api.get("/moved-\(index)", host: "links.handz.example").status == 200) }
            #expect(try await api.get("/moved-2", host: "links.handz.example").status == 410, "revoked: imported as such")
            let shortURL = try #require(views[ids[5]]?["shortURL"] as? String)
            #expect(try await api.get(String(shortURL.dropFirst("https://links.handz.example".count)), host: "links.handz.example").status == 200)
            let csv = try await api.call(.get, "/v1/links/export?app=handz&format=csv", key: api.adminKey)
            #expect(csv.text.contains(#"'=HYPERLINK(""http://evil"",""x"")"#), "the title is text, guarded in the CSV export")
            let again = try await Self.importFile(api, app: "handz", format: "ndjson", text)
            #expect(again.json["alreadyPresent"] as? Int == 12 && again.json["imported"] as? Int == 0)
        }
    }

    @Test("CSV: route and params, url, expiry, paths; each refusal with the row's first line (a record spanning lines) and the creation's code")
    func csvRows() async throws {
        try await withAPI { api in
            let flow = UUID().uuidString.lowercased()
            let future = ExportText.date(Date().addingTimeInterval(86_400 * 7))
            let text = """
                route,params_json,owner,title,path,expires_at,url
                ShareLink/FlowView,"{""flowId"":""\(flow)""}",u1,"A title
                on two lines",/csv-one,\(future),
                ,"{""flowId"":""\(UUID().uuidString.lowercased())""}",u2,plain,,,
                ,,u3,from a url,,,https://links.handz.example/flows/\(flow)
                Library/FlowDetail,"{""flowId"":""\(flow)""}",,,,,
                ShareLink/FlowView,"{""flowId"":""not-a-uuid""}",,,,,
                ShareLink/FlowView,"{""flowId"":""\(UUID().uuidString.lowercased())""}",,,/flows/\(flow),,
                ShareLink/FlowView,"{""flowId"":""\(UUID().uuidString.lowercased())""}",,,/csv-one,,
                ShareLink/FlowView,"{""flowId"":""\(UUID().uuidString.lowercased())""}",,,,2001-01-01T00:00:00Z,
                ShareLink/FlowView,not json,,,,,
                ,,,,,,https://links.handz.example/nowhere/at/all
                ShareLink/FlowView,"{""flowId"":""\(UUID().uuidString.lowercased())""}",,,/CSV-one,,

                """
            let dry = try await Self.importFile(api, app: "handz", format: "csv", text, dryRun: true)
            try #require(dry.status == 200, "\(dry.text)")
            #expect(dry.json["dryRun"] as? Bool == true && dry.json["imported"] as? Int == 2)
            #expect((try await api.call(.get, "/v1/links?app=handz", key: api.adminKey).json["links"] as? [Any])?.isEmpty == true, "a dry run writes nothing")
            let audit = try await api.call(.get, "/v1/admin/audit?action=link.import", key: api.adminKey)
            #expect((audit.json["entries"] as? [Any])?.isEmpty == true, "nor an audit entry")

            let reply = try await Self.importFile(api, app: "handz", format: "csv", text)
            try #require(reply.status == 200, "\(reply.text)")
            #expect(reply.json["rows"] as? Int == 11)
            #expect(reply.json["imported"] as? Int == 2, "\(reply.text)")
            // A record spanning lines 2–3 is named by line 2 (its title's line break is refused, as by POST /v1/links);
            // the url row resolves to Library/FlowDetail (not shareable): refused as a creation would be; a path
            // another row of the file has (in any case) is refused.
            #expect(Self.lines(reply, "refused").map(\.0) == [2, 5, 6, 7, 8, 10, 11, 13], "\(reply.text)")
            #expect(Self.lines(reply, "refused").map(\.1)
                == ["unprocessable", "not_shareable", "not_shareable", "bad_params", "path_taken", "bad_expiry", "bad_params_json",
                    "duplicate_path"])
            #expect(Self.lines(reply, "unresolved").map(\.0) == [12])
            let page = try await api.get("/csv-one", host: "links.handz.example")
            #expect(page.status == 200)
        }
    }
}

/// A value shared between the closures of two servers in one test.
final class ImportTestBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
