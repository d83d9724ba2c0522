import Foundation
import HTTPTypes
import LinkStore
import LinkdTestSupport
import Testing

@testable import LinkdServer

@Suite("API: GET /v1/links — list and search, keyset pages, filters, client-key scope, bad input")
struct LinkListingTests {
    /// The ids of a page, in order.
    static func ids(_ reply: Reply) -> [String] {
        (reply.json["links"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    /// A stored link of `app` made at `created` (seconds since 1970), straight into the store.
    static func record(
        app: String, owner: String?, created: TimeInterval, expires: TimeInterval? = nil, id: String = LinkIDText.random()
    ) -> LinkRecord {
        LinkRecord(
            id: id, app: app, route: "ShareLink/FlowView", params: ["flowId": UUID().uuidString.lowercased()], owner: owner,
            title: "t", created: Date(timeIntervalSince1970: created),
            expires: Date(timeIntervalSince1970: expires ?? created + 86_400 * 365))
    }

    /// Every page of `path` (a query string without `cursor`), following `nextCursor`; `between` runs before each
    /// page after the first.
    static func allPages(
        _ api: API, _ path: String, key: String, between: () async throws -> Void = {}
    ) async throws -> [[String]] {
        var pages: [[String]] = []
        var cursor: String?
        repeat {
            if !pages.isEmpty { try await between() }
            let separator = path.contains("?") ? "&" : "?"
            let target = cursor.map { path + separator + "cursor=" + $0 } ?? path
            let reply = try await api.call(.get, target, key: key)
            try #require(reply.status == 200, "\(target): \(reply.status) \(reply.text)")
            pages.append(ids(reply))
            cursor = reply.string("nextCursor")
            try #require(pages.count < 100, "paging does not end")
        } while cursor != nil
        return pages
    }

    @Test("pages follow the cursor in order, and links made between pages neither repeat nor push others out", arguments: StoreKind.allCases)
    func pagination(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let client = try await api.clientKey(app: "handz")
            var made: [String] = []
            for index in 0..<7 {
                made.append(try #require(try await api.createHandzLink(key: client, owner: "pager-\(index % 2)")["id"] as? String))
            }
            // The same second holds several links: the id breaks ties, and the order is still total.
            var madeBetween: [String] = []
            let pages = try await Self.allPages(api, "/v1/links?limit=3", key: client) {
                madeBetween.append(try #require(try await api.createHandzLink(key: client)["id"] as? String))
            }
            #expect(pages.count >= 3)
            #expect(pages.dropLast().allSatisfy { $0.count == 3 }, "\(pages)")
            let listed = pages.flatMap { $0 }
            #expect(Set(listed).count == listed.count, "a link was listed twice: \(pages)")
            #expect(Set(made).isSubset(of: Set(listed)), "a link that existed before paging was skipped")
            // Newest first: by creation, then id descending; the newest link is first on a fresh listing.
            let fresh = try await api.call(.get, "/v1/links?limit=200", key: client)
            let all = Self.ids(fresh)
            #expect(Set(all) == Set(made + madeBetween))
            let created = (fresh.json["links"] as? [[String: Any]] ?? []).compactMap { $0["createdAt"] as? String }
            #expect(created == created.sorted(by: >))
            // The listed order is the fresh order restricted to what was listed.
            #expect(listed == all.filter { Set(listed).contains($0) })
            #expect(fresh.json["nextCursor"] == nil)
        }
    }

    @Test("keyset order across seconds, exact at the page boundary on both stores", arguments: StoreKind.allCases)
    func boundaries(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            // Links at times that share seconds and milliseconds, some of another app.
            let base = Date().timeIntervalSince1970.rounded(.down) - 3600
            var records: [LinkRecord] = []
            for index in 0..<25 {
                records.append(Self.record(app: index % 5 == 0 ? "coin" : "handz", owner: "o\(index % 3)", created: base + Double(index / 4) + 0.125))
            }
            for record in records { try await api.faults.base.insertLink(record) }
            let expected = records.sorted { ($0.created, $0.id) > ($1.created, $1.id) }
            for limit in [1, 2, 4, 7, 25] {
                let pages = try await Self.allPages(api, "/v1/links?limit=\(limit)", key: api.adminKey)
                #expect(pages.flatMap { $0 } == expected.map(\.id), "limit \(limit)")
                #expect(pages.count == (25 + limit - 1) / limit)
            }
            let handz = try await Self.allPages(api, "/v1/links?app=handz&owner=o1&limit=2", key: api.adminKey)
            #expect(handz.flatMap { $0 } == expected.filter { $0.app == "handz" && $0.owner == "o1" }.map(\.id))
            // A range: strictly after the first second, strictly before the fourth.
            let after = UTCText.rfc3339(base + 0.125), before = UTCText.rfc3339(base + 3.125)
            let ranged = try await Self.allPages(api, "/v1/links?createdAfter=\(after)&createdBefore=\(before)&limit=3", key: api.adminKey)
            #expect(ranged.flatMap { $0 } == expected.filter { $0.created.timeIntervalSince1970 > base + 0.2 && $0.created.timeIntervalSince1970 < base + 3 }.map(\.id))
        }
    }

    @Test("filters: app, owner, status (active, expired, revoked, deleted), created range; items as the inspector shows them", arguments: StoreKind.allCases)
    func filters(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let client = try await api.clientKey(app: "handz")
            let alive = try #require(try await api.createHandzLink(key: client, owner: "ana")["id"] as? String)
            let revoked = try #require(try await api.createHandzLink(key: client, owner: "ana")["id"] as? String)
            let deleted = try #require(try await api.createHandzLink(key: client, owner: "bo")["id"] as? String)
            let now = Date().timeIntervalSince1970
            let expired = Self.record(app: "handz", owner: "ana", created: now - 7200, expires: now - 3600)
            try await api.faults.base.insertLink(expired)
            let coin = Self.record(app: "coin", owner: "ana", created: now - 60)
            try await api.faults.base.insertLink(coin)
            #expect(try await api.call(.delete, "/v1/links/\(revoked)", key: client).status == 200)
            _ = try await api.store.markLinkDeleted(id: deleted)
            // Clicks not yet flushed count, as on the inspector.
            let activeOnly = try #require(try await api.call(.get, "/v1/links?status=active", key: client).json["links"] as? [[String: Any]])
            #expect(activeOnly.map { $0["id"] as? String } == [alive])
            let created = try await api.createHandzLink(key: client, owner: "cy")
            let shareToken = try #require(created["token"] as? String)
            #expect(try await api.call(.get, "/s/\(shareToken)").status == 200)

            func ids(_ query: String, key: String? = nil) async throws -> Set<String> {
                let reply = try await api.call(.get, "/v1/links?\(query)", key: key ?? api.adminKey)
                try #require(reply.status == 200, "\(query): \(reply.text)")
                return Set(Self.ids(reply))
            }
            let clicked = try #require(created["id"] as? String)
            #expect(try await ids("status=active&app=handz") == [alive, clicked])
            #expect(try await ids("status=expired") == [expired.id])
            #expect(try await ids("status=revoked") == [revoked])
            #expect(try await ids("status=deleted") == [deleted])
            #expect(try await ids("owner=ana") == [alive, revoked, expired.id, coin.id])
            #expect(try await ids("owner=ana&app=coin") == [coin.id])
            #expect(try await ids("owner=nobody").isEmpty)
            #expect(try await ids("app=story").isEmpty)
            #expect(try await ids("createdBefore=\(UTCText.rfc3339(now - 30))") == [expired.id, coin.id])
            #expect(try await ids("createdAfter=\(UTCText.rfc3339(now - 30))&owner=ana") == [alive, revoked])

            let page = try await api.call(.get, "/v1/links?owner=cy", key: client)
            let item = try #require((page.json["links"] as? [[String: Any]])?.first)
            let inspected = try await api.call(.get, "/v1/links/\(clicked)", key: client).json
            #expect(item["clicks"] as? Int == 1)
            for field in ["id", "app", "route", "params", "owner", "title", "status", "createdAt", "expiresAt", "clicks", "lastOpenedAt"] {
                #expect("\(item[field] ?? "absent")" == "\(inspected[field] ?? "absent")", "\(field)")
            }
            // Expired is judged now, like the inspector: same answer.
            let expiredItem = try await api.call(.get, "/v1/links?status=expired", key: api.adminKey)
            #expect((expiredItem.json["links"] as? [[String: Any]])?.first?["status"] as? String == "expired")
        }
    }

    @Test("a client key lists its own app only; another app's name is 403; an admin key sees every app", arguments: StoreKind.allCases)
    func clientKeyScope(backend: StoreKind) async throws {
        try await withAPI(on: backend) { api in
            let handz = try await api.clientKey(app: "handz")
            let coinKey = try await api.clientKey(app: "coin")
            let mine = try #require(try await api.createHandzLink(key: handz)["id"] as? String)
            let theirs = Self.record(app: "coin", owner: "u1", created: Date().timeIntervalSince1970 - 10)
            try await api.faults.base.insertLink(theirs)
            #expect(Self.ids(try await api.call(.get, "/v1/links", key: handz)) == [mine])
            #expect(Self.ids(try await api.call(.get, "/v1/links?app=handz", key: handz)) == [mine])
            #expect(Self.ids(try await api.call(.get, "/v1/links?owner=u1", key: handz)) == [mine])
            #expect(Self.ids(try await api.call(.get, "/v1/links", key: coinKey)) == [theirs.id])
            let foreign = try await api.call(.get, "/v1/links?app=coin", key: handz)
            #expect(foreign.status == 403 && foreign.errorCode == "forbidden")
            #expect(Set(Self.ids(try await api.call(.get, "/v1/links", key: api.adminKey))) == [mine, theirs.id])
            // A cursor from the admin's listing does not widen a client key's scope.
            let first = try await api.call(.get, "/v1/links?limit=1", key: api.adminKey)
            let cursor = try #require(first.string("nextCursor"))
            let scoped = try await api.call(.get, "/v1/links?cursor=\(cursor)", key: handz)
            #expect(scoped.status == 200 && Self.ids(scoped).allSatisfy { $0 == mine })
            #expect(try await api.call(.get, "/v1/links").status == 401)
            #expect(try await api.call(.get, "/v1/links", key: "lkd_wrong").status == 401)
        }
    }

    @Test("bad input: unknown, repeated or malformed parameters are 400 bad_request, a forged cursor 400 bad_cursor")
    func badInput() async throws {
        try await withAPI { api in
            let client = try await api.clientKey(app: "handz")
            _ = try await api.createHandzLink(key: client)
            _ = try await api.createHandzLink(key: client)
            let good = try #require(try await api.call(.get, "/v1/links?limit=1", key: client).string("nextCursor"))
            let refusals: [(String, String)] = [
                ("stauts=active", "bad_request"), ("limit=0", "bad_request"), ("limit=201", "bad_request"), ("limit=x", "bad_request"),
                ("status=gone", "bad_request"), ("createdAfter=yesterday", "bad_request"), ("createdBefore=2026-13-01T00:00:00Z", "bad_request"),
                ("owner=", "bad_request"), ("owner=" + String(repeating: "o", count: 201), "bad_request"),
                ("app=" + String(repeating: "a", count: 65), "bad_request"), ("limit=1&limit=2", "bad_request"),
                ("cursor=", "bad_cursor"), ("cursor=abc", "bad_cursor"), ("cursor=l1.", "bad_cursor"), ("cursor=\(good)x", "bad_cursor"),
                ("cursor=\(good.dropLast())", "bad_cursor"), ("cursor=l1.\(Data("12.zz".utf8).base64EncodedString())", "bad_cursor"),
                ("cursor=l1.\(Self.base64url("-5.\(String(repeating: "a", count: 32))"))", "bad_cursor"),
                ("cursor=l1.\(Self.base64url("5.\(String(repeating: "A", count: 32))"))", "bad_cursor"),
                ("cursor=" + String(repeating: "l", count: 5000), "bad_cursor"),
            ]
            for (query, code) in refusals {
                let reply = try await api.call(.get, "/v1/links?\(query)", key: client)
                #expect(reply.status == 400 && reply.errorCode == code, "\(query.prefix(80)): \(reply.status) \(reply.text.prefix(200))")
            }
            // A cursor this server made from a valid position reads back.
            let made = "l1." + Self.base64url("5.\(String(repeating: "a", count: 32))")
            #expect(try await api.call(.get, "/v1/links?cursor=\(made)", key: client).status == 200)
            // The store down: 503, never 500.
            api.faults.fault = .unavailable
            let down = try await api.call(.get, "/v1/links", key: client)
            #expect(down.status == 503 && down.errorCode == "store_unavailable")
            api.faults.fault = .none
        }
    }

    static func base64url(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// Random link ids as the store keeps them.
enum LinkIDText {
    /// 32 random lowercase hex characters.
    static func random() -> String {
        (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}

/// RFC 3339 text of a time, to the millisecond, for query strings.
enum UTCText {
    static func rfc3339(_ seconds: TimeInterval) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
