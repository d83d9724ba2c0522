import Foundation
import HTTPTypes
import HummingbirdTesting
import LinkStore
import LinkdTestSupport
import Testing

@testable import LinkdServer

@Suite("API: GET /v1/links/export — every link of an app as CSV or NDJSON, streamed; scope, formulas, bad input")
struct LinkExportTests {
    /// RFC 4180 rows of `text` (CRLF line ends, quoted cells with doubled quotes, line breaks inside quotes).
    static func csvRows(_ text: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var cell = ""
        var quoted = false
        var scalars = Array(text.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            if quoted {
                if scalar == "\"" {
                    if scalars.first == "\"" {
                        scalars.removeFirst()
                        cell.unicodeScalars.append("\"")
                    } else {
                        quoted = false
                    }
                } else {
                    cell.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"":
                try #require(cell.isEmpty, "a quote inside an unquoted cell")
                quoted = true
            case ",":
                row.append(cell)
                cell = ""
            case "\r":
                try #require(scalars.popFirst() == "\n", "CR without LF")
                row.append(cell)
                rows.append(row)
                row = []
                cell = ""
            case "\n":
                Issue.record("a bare LF ends a row")
            default:
                cell.unicodeScalars.append(scalar)
            }
        }
        try #require(!quoted && row.isEmpty && cell.isEmpty, "the CSV does not end with CRLF")
        return rows
    }

    /// The CSV as one dictionary per row, by the header's column names.
    static func csvRecords(_ text: String) throws -> [[String: String]] {
        let rows = try csvRows(text)
        let header = try #require(rows.first)
        #expect(header == LinkExportRecord.csvColumns)
        return rows.dropFirst().map { row in
            #expect(row.count == header.count)
            return Dictionary(uniqueKeysWithValues: zip(header, row))
        }
    }

    /// The NDJSON lines as objects (each line checked to start with the version field).
    static func ndjsonRecords(_ text: String) throws -> [[String: Any]] {
        #expect(text.hasSuffix("\n"))
        return try text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
            #expect(line.hasPrefix("{\"linkdExport\":1,\"id\":"), "\(line.prefix(40))")
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// The string fields of a JSON object (nulls left out); nil for anything else.
    static func strings(_ value: Any?) -> [String: String]? {
        guard let object = value as? [String: Any] else { return nil }
        return object.compactMapValues { $0 as? String }
    }

    /// A stored link of `app` straight into the store (no webhook, no token): many links fast.
    static func insert(
        _ api: API, app: String, created: TimeInterval, expires: TimeInterval? = nil, title: String? = "t", owner: String? = "o",
        params: [String: String]? = nil, campaign: Campaign? = nil
    ) async throws -> LinkRecord {
        let record = LinkRecord(
            id: LinkIDText.random(), app: app, route: app == "handz" ? "ShareLink/FlowView" : "Coin/Detail",
            params: params ?? ["flowId": UUID().uuidString.lowercased()], owner: owner, title: title,
            created: Date(timeIntervalSince1970: created), expires: Date(timeIntervalSince1970: expires ?? created + 86_400 * 30),
            campaign: campaign, shortID: ShortID.generate())
        try await api.faults.base.insertLink(record)
        return record
    }

    @Test("every link of the app, CSV and NDJSON, field for field as GET /v1/links/{id} shows it; revoked, expired, deleted included; audited",
          arguments: StoreKind.allCases)
    func everyLinkAsTheInspectorShowsIt(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let client = try await api.clientKey(app: "handz")
            var made: [String] = []
            for index in 0..<12 {
                made.append(try #require(try await api.createHandzLink(key: client, owner: "maker-\(index % 3)")["id"] as? String))
            }
            let now = Date().timeIntervalSince1970.rounded(.down)
            for index in 0..<240 {
                let app = index % 4 == 0 ? "coin" : "handz"
                let campaign = index % 7 == 0 ? Campaign(source: "news", medium: "email", name: "week \(index)") : nil
                let expires = index % 9 == 0 ? now - 60 : nil
                let record = try await Self.insert(
                    api, app: app, created: now - Double(index * 37), expires: expires, title: index % 5 == 0 ? nil : "Title \(index)",
                    owner: index % 6 == 0 ? nil : "owner-\(index % 11)", campaign: campaign)
                if app == "handz" { made.append(record.id) }
            }
            for id in made.prefix(30).dropFirst(20) {
                #expect(try await api.call(.delete, "/v1/links/\(id)", key: api.adminKey).status == 200)
            }
            _ = try await api.store.markLinkDeleted(id: made[40])
            // Opened once: the click is not flushed yet, and counts as on the inspector.
            let opened = try await api.createHandzLink(key: client)
            made.append(try #require(opened["id"] as? String))
            let openedToken = try #require(opened["token"] as? String)
            #expect(try await api.call(.get, "/s/\(openedToken)").status == 200)
            // One with a custom path: exported with it.
            let poster = try await api.call(.post, "/v1/links", key: client, json: [
                "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()], "path": "/export-poster",
            ])
            try #require(poster.status == 201, "\(poster.text)")
            made.append(try #require(poster.json["id"] as? String))

            let ndjson = try await api.call(.get, "/v1/links/export?app=handz&format=ndjson", key: api.adminKey)
            try #require(ndjson.status == 200, "\(ndjson.status) \(ndjson.text.prefix(300))")
            #expect(ndjson.headers[.contentType] == "application/x-ndjson")
            let day = String(ExportText.date(Date()).prefix(10))
            #expect(ndjson.headers[.contentDisposition] == "attachment; filename=\"handz-links-\(day).ndjson\"")
            #expect(ndjson.headers[.cacheControl] == "no-store")
            let lines = try Self.ndjsonRecords(ndjson.text)
            #expect(lines.count == made.count)
            #expect(Set(lines.compactMap { $0["id"] as? String }) == Set(made))
            // Each line is a LinkExportRecord as docs/openapi.yaml states it.
            let document = try OpenAPIDocument()
            let schema = document.resolve("#/components/schemas/LinkExportRecord")
            #expect(!schema.isEmpty)
            for line in ndjson.text.split(separator: "\n") {
                let problems = document.validate(try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)), schema, at: "line")
                #expect(problems.isEmpty, "\(problems)")
            }
            let created = lines.compactMap { $0["createdAt"] as? String }
            #expect(created == created.sorted(by: >), "newest first")

            let csv = try await api.call(.get, "/v1/links/export?app=handz&format=csv", key: client)
            try #require(csv.status == 200, "\(csv.status) \(csv.text.prefix(300))")
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(csv.headers[.contentDisposition] == "attachment; filename=\"handz-links-\(day).csv\"")
            #expect(csv.text.hasPrefix(LinkExportRecord.csvHeader))
            let rows = try Self.csvRecords(csv.text)
            #expect(rows.map { $0["id"] } == lines.map { $0["id"] as? String }, "the same links in the same order")

            var statuses: [String: Int] = [:]
            var sawPath = false
            for (line, row) in zip(lines, rows) {
                let id = try #require(line["id"] as? String)
                let inspected = try await api.call(.get, "/v1/links/\(id)", key: api.adminKey)
                try #require(inspected.status == 200)
                let view = inspected.json
                for field in ["id", "app", "route", "owner", "title", "status", "createdAt", "expiresAt", "clicks", "lastOpenedAt", "shortURL"] {
                    #expect("\(line[field].flatMap { $0 is NSNull ? nil : $0 } ?? "absent")" == "\(view[field] ?? "absent")", "\(id) \(field)")
                }
                #expect(Self.strings(line["params"]) == Self.strings(view["params"]))
                #expect(Self.strings(line["campaign"]) == Self.strings(view["campaign"]), "\(id) campaign")
                let status = try #require(line["status"] as? String)
                statuses[status, default: 0] += 1
                #expect(line["generation"] as? Int == 1 || status == "revoked")
                #expect((line["shortId"] as? String).map { (view["shortURL"] as? String)?.hasSuffix("/s/" + $0) == true } == true)
                let heldPath = (view["pathURL"] as? String).map { "/" + $0.split(separator: "/", maxSplits: 3).dropFirst(2).joined(separator: "/") }
                #expect(line.keys.contains("path") && (line["path"] as? String) == heldPath && (heldPath != nil || line["path"] is NSNull),
                        "\(id) path")
                if heldPath != nil { sawPath = true }
                // The token URL: an active link's only, and it opens the link.
                let tokenURL = line["tokenURL"] as? String
                #expect((tokenURL != nil) == (status == "active"), "\(id) \(status)")
                // The CSV row says the same.
                #expect(row["app"] == "handz" && row["route"] == view["route"] as? String)
                #expect(row["short_url"] == view["shortURL"] as? String)
                #expect(row["token_url"] == tokenURL ?? "")
                #expect(row["path"] == heldPath ?? "")
                #expect(row["owner"] == (view["owner"] as? String ?? ""))
                #expect(row["title"] == (view["title"] as? String ?? ""))
                #expect(row["status"] == status)
                #expect(row["created_at"] == view["createdAt"] as? String && row["expires_at"] == view["expiresAt"] as? String)
                #expect(row["clicks"] == "\(view["clicks"] as? Int ?? -1)")
                #expect(row["last_opened_at"] == (view["lastOpenedAt"] as? String ?? ""))
                let campaign = view["campaign"] as? [String: Any]
                #expect(row["campaign_source"] == (campaign?["source"] as? String ?? "") && row["campaign_name"] == (campaign?["name"] as? String ?? ""))
                let params = try #require(try JSONSerialization.jsonObject(with: Data((row["params"] ?? "").utf8)) as? [String: String])
                #expect(params == view["params"] as? [String: String])
            }
            #expect(sawPath, "the link made with a custom path is exported with it")
            #expect(statuses["active", default: 0] > 0 && statuses["revoked"] == 10 && statuses["deleted"] == 1 && statuses["expired", default: 0] > 0, "\(statuses)")
            // Two exports of unchanged links are the same bytes (token URLs included).
            let again = try await api.call(.get, "/v1/links/export?app=handz&format=ndjson", key: api.adminKey)
            #expect(again.text == ndjson.text)
            let clicked = try #require(lines.first { $0["id"] as? String == opened["id"] as? String })
            #expect(clicked["clicks"] as? Int == 1)
            let tokenURL = try #require(clicked["tokenURL"] as? String)
            let token = try #require(tokenURL.split(separator: "/").last)
            #expect(try await api.call(.get, "/s/\(token)").status == 200, "the exported token URL opens the link")

            // Each export is on the audit log, by key and app.
            let audit = try await api.call(.get, "/v1/admin/audit?action=link.export", key: api.adminKey)
            let entries = try #require(audit.json["entries"] as? [[String: Any]], "\(audit.text)")
            #expect(entries.count == 3)
            #expect(Set(entries.compactMap { $0["detail"] as? String }) == ["handz ndjson", "handz csv"])
        }
    }

    @Test("a client key exports its own app only (403 for another); bad input is 400, an unknown app 404, no key 401",
          arguments: StoreKind.allCases)
    func scopeAndBadInput(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let handz = try await api.clientKey(app: "handz")
            let mine = try #require(try await api.createHandzLink(key: handz)["id"] as? String)
            let now = Date().timeIntervalSince1970
            let coin = try await Self.insert(api, app: "coin", created: now - 10)

            let own = try await api.call(.get, "/v1/links/export?format=ndjson", key: handz)
            #expect(try Self.ndjsonRecords(own.text).map { $0["id"] as? String } == [mine])
            let named = try await api.call(.get, "/v1/links/export?app=handz&format=ndjson", key: handz)
            #expect(named.text == own.text)
            let other = try await api.call(.get, "/v1/links/export?app=coin&format=csv", key: handz)
            #expect(other.status == 403 && other.errorCode == "forbidden")
            let admin = try await api.call(.get, "/v1/links/export?app=coin&format=ndjson", key: api.adminKey)
            #expect(try Self.ndjsonRecords(admin.text).map { $0["id"] as? String } == [coin.id])

            for (target, status, code) in [
                ("/v1/links/export?format=csv", 400, "bad_request"),  // an admin key names the app
                ("/v1/links/export?app=handz", 400, "unsupported_format"),
                ("/v1/links/export?app=handz&format=xlsx", 400, "unsupported_format"),
                ("/v1/links/export?app=handz&format=csv&status=active", 400, "bad_request"),
                ("/v1/links/export?app=handz&format=csv&format=ndjson", 400, "bad_request"),
                ("/v1/links/export?app=nope&format=csv", 404, "not_found"),
                ("/v1/links/export?app=&format=csv", 400, "bad_request"),
            ] {
                let reply = try await api.call(.get, target, key: api.adminKey)
                #expect(reply.status == status && reply.errorCode == code, "\(target): \(reply.status) \(reply.text)")
            }
            let anonymous = try await api.call(.get, "/v1/links/export?app=handz&format=csv")
            #expect(anonymous.status == 401)
            // The export is not a link id: /v1/links/export is never the inspector of a link "export".
            #expect(try await api.call(.post, "/v1/links/export", key: api.adminKey).status == 405)
        }
    }

    @Test("CSV: formulas are not let through (a ' first), quotes, commas and line breaks round-trip; NDJSON keeps the text as stored")
    func csvCellsAreSafe() async throws {
        try await withAPI { api in
            let now = Date().timeIntervalSince1970.rounded(.down)
            let hostile = [
                #"=HYPERLINK("http://evil","x")"#, "+1+1", "-2", "@SUM(A1:A9)", "\tx", "\r=1",
                // A quote with a combining mark after it is one character: it must still be doubled, or the cell
                // ends there and `@SUM` starts a cell of its own, unguarded (found by FuzzCSV's write-back).
                "=x\"\u{359},@SUM(A1:A9)",
            ]
            var titles: [String: String] = [:]
            for (index, title) in hostile.enumerated() {
                titles[try await Self.insert(api, app: "handz", created: now - Double(index), title: title).id] = title
            }
            let awkward = "He said \"hi\", then left,\r\nand on a new line\n  — «fin» "
            titles[try await Self.insert(api, app: "handz", created: now - 50, title: awkward, owner: "=cmd|' /C calc'!A0",
                                         params: ["flowId": "=1+1", "quote\"d": "a,b"]).id] = awkward

            let csv = try await api.call(.get, "/v1/links/export?app=handz&format=csv", key: api.adminKey)
            let rows = try Self.csvRecords(csv.text)
            #expect(rows.count == titles.count)
            #expect(!csv.text.contains("\n=HYPERLINK") && !csv.text.contains(",=HYPERLINK") && !csv.text.contains("\"=HYPERLINK"))
            for row in rows {
                let id = try #require(row["id"])
                let title = try #require(titles[id])
                if title == awkward {
                    #expect(row["title"] == awkward, "quotes, commas and line breaks round-trip")
                    #expect(row["owner"] == "'=cmd|' /C calc'!A0")
                    let params = try JSONSerialization.jsonObject(with: Data((row["params"] ?? "").utf8)) as? [String: String]
                    #expect(params == ["flowId": "=1+1", "quote\"d": "a,b"])
                } else {
                    #expect(row["title"] == "'" + title, "\(title.debugDescription) → \(row["title"]?.debugDescription ?? "nil")")
                }
            }
            let ndjson = try await api.call(.get, "/v1/links/export?app=handz&format=ndjson", key: api.adminKey)
            for line in try Self.ndjsonRecords(ndjson.text) {
                #expect(line["title"] as? String == titles[line["id"] as? String ?? ""])
            }
            #expect(ndjson.text.split(separator: "\n").count == titles.count, "a line break in a title stays escaped in its line")
        }
    }

    @Test("the body is streamed: chunked, one chunk per page of 500, never one buffer", arguments: StoreKind.allCases)
    func streamedInPages(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let count = LinkService.ExportCaps.pageSize * 2 + 137
            let now = Date().timeIntervalSince1970.rounded(.down)
            for index in 0..<count { _ = try await Self.insert(api, app: "handz", created: now - Double(index)) }
            let port = try #require(api.client.port)
            let connection = try RawConnection(port: port)
            try await connection.send(
                "GET /v1/links/export?app=handz&format=ndjson HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(api.adminKey)\r\n"
                    + "Connection: close\r\n\r\n")
            let bytes = try await connection.readUntilClosed()
            let separator = Array("\r\n\r\n".utf8)
            let headEnd = try #require(bytes.indices.dropLast(3).first { Array(bytes[$0..<$0 + 4]) == separator })
            let head = String(decoding: bytes[..<headEnd], as: UTF8.self).lowercased()
            #expect(head.hasPrefix("http/1.1 200"))
            #expect(head.contains("transfer-encoding: chunked") && !head.contains("content-length"), "\(head)")
            // The chunks as framed on the wire: size line, data, CRLF; a zero size ends the body.
            var chunks: [Int] = []
            var body: [UInt8] = []
            var at = headEnd + 4
            while true {
                let lineEnd = try #require((at..<bytes.count - 1).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 })
                let size = try #require(Int(String(decoding: bytes[at..<lineEnd], as: UTF8.self), radix: 16))
                at = lineEnd + 2
                if size == 0 { break }
                chunks.append(size)
                body += bytes[at..<at + size]
                at += size + 2
            }
            #expect(chunks.count >= 3, "\(chunks)")
            let lines = try Self.ndjsonRecords(String(decoding: body, as: UTF8.self))
            #expect(lines.count == count)
            #expect(Set(lines.compactMap { $0["id"] as? String }).count == count)
        }
    }

    @Test("exports running at once are capped; a slot comes back when its body is done with, written or not")
    func exportGate() {
        let gate = LinkExportGate(limit: 2)
        var first = gate.enter()
        let second = gate.enter()
        #expect(first != nil && second != nil && gate.enter() == nil && gate.count == 2)
        first = nil
        #expect(gate.count == 1)
        #expect(gate.enter() != nil, "a slot dropped is free again")
        withExtendedLifetime(second) {}
    }
}
