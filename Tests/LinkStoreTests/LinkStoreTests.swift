import Foundation
import GRDB
import LinkStore
import LinkdTestSupport
import Testing

/// The two backends behind `StoreFront`; every behaviour test runs on both.
enum Backend: String, CaseIterable, Sendable {
    case sqlite, postgres
}

/// Where one test's store lives: a real SQLite file in a temporary directory, or a fresh database on the test
/// PostgreSQL cluster. `open()` may be called again to reopen the same store.
struct StoreLocation: Sendable {
    let backend: Backend
    let place: String

    init(_ backend: Backend) throws {
        self.backend = backend
        switch backend {
        case .sqlite:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkstore-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            place = dir + "/linkd.sqlite"
        case .postgres:
            place = try TestPostgres.shared().freshDatabase()
        }
    }

    func open(cacheCapacity: Int = 1000, warmsLinkCache: Bool = false) async throws -> StoreFront {
        switch backend {
        case .sqlite:
            try await StoreFront.open(.sqlite(path: place), cacheCapacity: cacheCapacity, warmsLinkCache: warmsLinkCache)
        case .postgres:
            try await StoreFront.open(
                .postgres(url: place, timing: PostgresTiming(syncInterval: .milliseconds(200))), cacheCapacity: cacheCapacity,
                warmsLinkCache: warmsLinkCache)
        }
    }
}

extension StoreLocation {
    /// Runs `sql` on the store's database directly, past linkd (SQLite through GRDB, PostgreSQL through `psql`), and
    /// gives the first column of its first row as a number (0 when there is none).
    func sql(_ sql: String) throws -> Int {
        switch backend {
        case .sqlite:
            let queue = try DatabaseQueue(path: place)
            defer { try? queue.close() }
            return try queue.write { db in try Int.fetchOne(db, sql: sql) ?? 0 }
        case .postgres:
            let database = try #require(place.split(separator: "/").last.map { String($0.split(separator: "?")[0]) })
            return Int(try TestPostgres.shared().psql(sql, database: database).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
    }
}

/// A fresh store of `backend` and its location (to reopen it).
private func makeStore(_ backend: Backend) async throws -> (StoreFront, StoreLocation) {
    let location = try StoreLocation(backend)
    return (try await location.open(), location)
}

private func hexID(_ n: Int) -> String {
    String(repeating: "0", count: 32 - String(n, radix: 16).count) + String(n, radix: 16)
}

private func record(_ n: Int, owner: String? = "u1") -> LinkRecord {
    LinkRecord(
        id: hexID(n), app: "handz", route: "Library/FlowDetail", params: ["flowId": "f\(n)"], owner: owner,
        title: "Flow \(n)", created: Date(timeIntervalSince1970: 1_700_000_000),
        expires: Date(timeIntervalSince1970: 1_800_000_000)
    )
}

@Suite("LinkStore")
struct LinkStoreTests {
    @Test("links round-trip and survive reopening", arguments: Backend.allCases)
    func roundTrip(backend: Backend) async throws {
        let (store, location) = try await makeStore(backend)
        try await store.createLink(record(1))
        #expect(try await store.link(id: hexID(1)) == record(1))
        await #expect(throws: LinkStoreError.self) { try await store.createLink(record(1)) }
        let reopened = try await location.open()
        #expect(try await reopened.link(id: hexID(1)) == record(1))
        #expect(try await reopened.link(id: hexID(2)) == nil)
        #expect(try await reopened.linkCount() == 1)
    }

    @Test("revocation updates the record, the in-memory set, and is reloaded at open", arguments: Backend.allCases)
    func revocation(backend: Backend) async throws {
        let (store, location) = try await makeStore(backend)
        try await store.createLink(record(1))
        #expect(!store.isRevoked(linkID: hexID(1), generation: 1))
        let revoked = try await store.revokeLink(id: hexID(1))
        #expect(revoked?.status == .revoked)
        #expect(store.isRevoked(linkID: hexID(1), generation: 1))
        #expect(!store.isRevoked(linkID: hexID(1), generation: 2))
        #expect(try await store.link(id: hexID(1))?.status == .revoked)
        #expect(try await store.revokeLink(id: hexID(9)) == nil)
        let reopened = try await location.open()
        #expect(reopened.isRevoked(linkID: hexID(1), generation: 1))
        #expect(reopened.revocations.count == 1)
    }

    @Test("owner-wide revocation revokes only that owner's active links", arguments: Backend.allCases)
    func ownerRevocation(backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        for n in 1...3 { try await store.createLink(record(n, owner: "alice")) }
        try await store.createLink(record(4, owner: "bob"))
        #expect(try await store.revokeLinks(app: "handz", owner: "alice") == 3)
        #expect(try await store.revokeLinks(app: "handz", owner: "alice") == 0)
        #expect(try await store.link(id: hexID(2))?.status == .revoked)
        #expect(try await store.link(id: hexID(4))?.status == .active)
        #expect(store.isRevoked(linkID: hexID(3), generation: 1))
        #expect(!store.isRevoked(linkID: hexID(4), generation: 1))
    }

    @Test("links_owner is gone (links_owner_status serves lookups by owner); owner-wide revocation still finds the links",
          arguments: Backend.allCases)
    func ownerIndex(backend: Backend) async throws {
        let (store, location) = try await makeStore(backend)
        let catalogue = backend == .sqlite
            ? "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '%@'"
            : "SELECT count(*) FROM pg_indexes WHERE indexname = '%@'"
        #expect(try location.sql(catalogue.replacingOccurrences(of: "%@", with: "links_owner")) == 0)
        #expect(try location.sql(catalogue.replacingOccurrences(of: "%@", with: "links_owner_status")) == 1)
        for n in 11...12 { try await store.createLink(record(n, owner: "carol")) }
        #expect(try await store.revokeLinks(app: "handz", owner: "carol") == 2)
    }

    @Test("clicks-without-rowid-v1 rebuilds a store's click totals as one B-tree keyed by link id, logged, totals kept, flushes adding to them")
    func clickTotalsRebuilt() async throws {
        let location = try StoreLocation(.sqlite)
        let firstStart = LogCapture()
        let store = try await StoreFront.open(.sqlite(path: location.place), logger: firstStart.logger())
        #expect(firstStart.lines.allSatisfy { $0.metadata["migration"] == nil }, "a new file's schema is made without a line per step")
        for n in 1...3 { try await store.createLink(record(n)) }
        let opened = Date(timeIntervalSince1970: 1_790_000_000)
        let buffer = ShareEventBuffer()
        for n in 1...3 {
            for k in 0..<n { buffer.record(.clickIOS, linkID: hexID(n), app: "handz", at: opened.addingTimeInterval(Double(k))) }
        }
        try await buffer.flush(into: store)
        var before: [LinkClicks] = []
        for n in 1...3 { before.append(try await store.clicks(linkID: hexID(n))) }
        #expect(before.map(\.count) == [1, 2, 3])
        await store.close()
        // The table as stores made before the migration have it: a rowid table, its id in an index of its own.
        for statement in [
            #"CREATE TABLE clicks_rowid ("linkId" TEXT PRIMARY KEY NOT NULL, "count" INTEGER NOT NULL, "lastOpened" DATETIME)"#,
            "INSERT INTO clicks_rowid SELECT linkId, count, lastOpened FROM clicks", "DROP TABLE clicks",
            "ALTER TABLE clicks_rowid RENAME TO clicks",
            "DELETE FROM grdb_migrations WHERE identifier = 'clicks-without-rowid-v1'",
        ] { _ = try location.sql(statement) }
        let autoindex = "SELECT count(*) FROM sqlite_master WHERE tbl_name = 'clicks' AND type = 'index'"
        let withoutRowid = "SELECT count(*) FROM sqlite_master WHERE name = 'clicks' AND sql LIKE '%WITHOUT ROWID%'"
        #expect(try location.sql(autoindex) == 1 && location.sql(withoutRowid) == 0)

        let log = LogCapture()
        let migrated = try await StoreFront.open(.sqlite(path: location.place), logger: log.logger())
        #expect(try location.sql(autoindex) == 0 && location.sql(withoutRowid) == 1)
        let migrations = log.lines.filter { $0.metadata["migration"] != nil }
        #expect(migrations.map { "\($0.message.split(separator: " ")[0]) \($0.metadata["migration"]!)" } == [
            "applying clicks-without-rowid-v1", "applied clicks-without-rowid-v1",
        ], "an upgrade logs each migration as it begins and ends")
        for n in 1...3 { #expect(try await migrated.clicks(linkID: hexID(n)) == before[n - 1]) }
        buffer.record(.clickAndroid, linkID: hexID(1), app: "handz", at: opened.addingTimeInterval(60))
        buffer.record(.clickDesktop, linkID: hexID(3), app: "handz", at: opened)
        try await buffer.flush(into: migrated)
        #expect(try await migrated.clicks(linkID: hexID(1)) == LinkClicks(count: 2, lastOpened: opened.addingTimeInterval(60)))
        #expect(try await migrated.clicks(linkID: hexID(3)) == LinkClicks(count: 4, lastOpened: opened.addingTimeInterval(2)))
        await migrated.close()
    }

    @Test("owner-wide revocation drops exactly the revoked records from the cache", arguments: Backend.allCases)
    func ownerRevocationCache(backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        for n in 1...3 { try await store.createLink(record(n, owner: "alice")) }
        try await store.createLink(record(4, owner: "bob"))
        try await store.createLink(record(5, owner: "alice"))
        try await store.revokeLink(id: hexID(5))  // cached as revoked; not active, so not revoked again below
        #expect(store.cachedLink(id: hexID(1)) == nil, "not cached on create")
        for n in 1...4 { #expect(try await store.link(id: hexID(n))?.status == .active) }  // now cached
        #expect(try await store.revokeLinks(app: "handz", owner: "alice") == 3)
        for n in 1...3 { #expect(store.cachedLink(id: hexID(n)) == nil, "link \(n) was revoked: dropped") }
        #expect(store.cachedLink(id: hexID(4)) == record(4, owner: "bob"), "another owner's record stays cached")
        #expect(store.cachedLink(id: hexID(5))?.status == .revoked, "a record the revocation did not change stays cached")
        for n in 1...3 {
            #expect(try await store.link(id: hexID(n))?.status == .revoked)
            #expect(store.cachedLink(id: hexID(n))?.status == .revoked, "cached again on the next read")
        }
    }

    @Test("marking a link deleted changes an active link once, for good, and never a revoked one", arguments: Backend.allCases)
    func markDeleted(backend: Backend) async throws {
        let (store, location) = try await makeStore(backend)
        for n in 1...3 { try await store.createLink(record(n)) }
        #expect(try await store.link(id: hexID(1))?.status == .active)  // cached as active
        let deleted = try await store.markLinkDeleted(id: hexID(1))
        #expect(deleted?.status == .deleted)
        #expect(deleted.map { var active = $0; active.status = .active; return active } == record(1), "only the status changes")
        #expect(store.cachedLink(id: hexID(1))?.status == .deleted, "the cached record is the stored one")
        #expect(try await store.markLinkDeleted(id: hexID(1)) == nil, "a second report changes nothing")
        #expect(try await store.markLinkDeleted(id: hexID(9)) == nil, "no such link")
        // A revoked link stays revoked; a deleted one is not revoked by an owner-wide revocation (it is not active).
        try await store.revokeLink(id: hexID(2))
        #expect(try await store.markLinkDeleted(id: hexID(2)) == nil)
        #expect(try await store.link(id: hexID(2))?.status == .revoked)
        #expect(try await store.revokeLinks(app: "handz", owner: "u1") == 1)
        #expect(try await store.link(id: hexID(1))?.status == .deleted)
        #expect(!store.isRevoked(linkID: hexID(1), generation: 1))
        let reopened = try await location.open()
        #expect(try await reopened.link(id: hexID(1))?.status == .deleted, "durable")
        #expect(try await reopened.link(id: hexID(3))?.status == .revoked)
    }

    @Test("clicks are batched and accumulate", arguments: Backend.allCases)
    func clicks(backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        try await store.createLink(record(1))
        let buffer = ShareEventBuffer()
        let t1 = Date(timeIntervalSince1970: 1_750_000_000)
        buffer.record(.clickIOS, linkID: hexID(1), app: "handz", at: t1)
        buffer.record(.clickDesktop, linkID: hexID(1), app: "handz", at: t1.addingTimeInterval(5))
        #expect(try await store.clicks(linkID: hexID(1)).count == 0)
        try await buffer.flush(into: store)
        buffer.record(.clickAndroid, linkID: hexID(1), app: "handz", at: t1.addingTimeInterval(10))
        try await buffer.flush(into: store)
        let clicks = try await store.clicks(linkID: hexID(1))
        #expect(clicks.count == 3)
        #expect(clicks.lastOpened == t1.addingTimeInterval(10))
        #expect(buffer.drain().isEmpty)
    }

    @Test("a count taken while clicks are being flushed sees every click exactly once", arguments: Backend.allCases)
    func countDuringFlush(backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        try await store.createLink(record(1))
        let buffer = ShareEventBuffer()
        var recorded = 0
        for round in 0..<20 {
            for _ in 0..<5 { buffer.record(.clickIOS, linkID: hexID(1), app: "handz") }
            recorded += 5
            async let flushed: Void = buffer.flush(into: store)
            // Taken while the flush may be between draining the buffer and writing the store.
            let seen = try await buffer.counted(linkID: hexID(1)) { try await store.clicks(linkID: hexID(1)) }
            try await flushed
            #expect(seen.count == recorded, "round \(round)")
        }
        #expect(try await store.clicks(linkID: hexID(1)).count == 100)
    }

    @Test("API keys are found by hash and can be revoked", arguments: Backend.allCases)
    func apiKeys(backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let hash = Data(repeating: 7, count: 32)
        try await store.createAPIKey(APIKeyRecord(id: "k1", kind: .client, app: "handz", label: "ios", secretHash: hash, created: Date()))
        #expect(try await store.apiKey(secretHash: hash)?.app == "handz")
        #expect(try await store.apiKey(secretHash: Data(repeating: 8, count: 32)) == nil)
        #expect(try await store.revokeAPIKey(id: "k1"))
        #expect(try await store.apiKey(secretHash: hash)?.revoked != nil)
        #expect(try await !store.revokeAPIKey(id: "nope"))
        #expect(try await store.apiKeys(kind: .client).count == 1)
        #expect(try await store.apiKeys(kind: .admin).isEmpty)
    }

    @Test("audit log is newest first; key records upsert", arguments: Backend.allCases)
    func auditAndKeys(backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        try await store.appendAudit(AuditEntry(at: Date(), actor: "admin1", action: "key.rotate", detail: "handz"))
        try await store.appendAudit(AuditEntry(at: Date(), actor: "admin1", action: "link.revoke", detail: "x"))
        let log = try await store.auditLog(limit: 10)
        #expect(log.map(\.action) == ["link.revoke", "key.rotate"])
        try await store.saveKeyRecords([StoredKeyRecord(app: "handz", kid: 1, record: Data([1]))])
        try await store.saveKeyRecords([
            StoredKeyRecord(app: "handz", kid: 1, record: Data([2])), StoredKeyRecord(app: "coin", kid: 1, record: Data([3])),
        ])
        #expect(try await store.keyRecords() == [
            StoredKeyRecord(app: "coin", kid: 1, record: Data([3])), StoredKeyRecord(app: "handz", kid: 1, record: Data([2])),
        ])
    }

    @Test("the link cache stays bounded and keeps recently used records")
    func cacheBound() async throws {
        let cache = LinkCache(capacity: 10)
        for n in 0..<100 { cache.put(record(n)) }
        #expect(cache.count <= 10)
        #expect(cache.get(hexID(99)) != nil)
        #expect(cache.get(hexID(0)) == nil)
    }

    @Test("revocation keys parse only 32 lowercase hex characters")
    func revocationKeyParsing() {
        #expect(RevocationKey(hex: hexID(255), generation: 1) == RevocationKey(high: 0, low: 255, generation: 1))
        #expect(RevocationKey(hex: "zz", generation: 1) == nil)
        #expect(RevocationKey(hex: String(repeating: "G", count: 32), generation: 1) == nil)
    }
}
