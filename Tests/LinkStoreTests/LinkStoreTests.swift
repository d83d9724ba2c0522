import Foundation
import LinkStore
import Testing

/// A fresh store on a real SQLite file in a temporary directory.
private func makeStore(cacheCapacity: Int = 1000) throws -> (SQLiteLinkStore, String) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkstore-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return (try SQLiteLinkStore(path: dir + "/linkd.sqlite", cacheCapacity: cacheCapacity), dir)
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
    @Test("links round-trip and survive reopening")
    func roundTrip() async throws {
        let (store, dir) = try makeStore()
        try await store.createLink(record(1))
        #expect(try await store.link(id: hexID(1)) == record(1))
        await #expect(throws: LinkStoreError.self) { try await store.createLink(record(1)) }
        let reopened = try SQLiteLinkStore(path: dir + "/linkd.sqlite")
        #expect(try await reopened.link(id: hexID(1)) == record(1))
        #expect(try await reopened.link(id: hexID(2)) == nil)
        #expect(try await reopened.linkCount() == 1)
    }

    @Test("revocation updates the record, the in-memory set, and is reloaded at open")
    func revocation() async throws {
        let (store, dir) = try makeStore()
        try await store.createLink(record(1))
        #expect(!store.isRevoked(linkID: hexID(1), generation: 1))
        let revoked = try await store.revokeLink(id: hexID(1))
        #expect(revoked?.status == .revoked)
        #expect(store.isRevoked(linkID: hexID(1), generation: 1))
        #expect(!store.isRevoked(linkID: hexID(1), generation: 2))
        #expect(try await store.link(id: hexID(1))?.status == .revoked)
        #expect(try await store.revokeLink(id: hexID(9)) == nil)
        let reopened = try SQLiteLinkStore(path: dir + "/linkd.sqlite")
        #expect(reopened.isRevoked(linkID: hexID(1), generation: 1))
        #expect(reopened.revocations.count == 1)
    }

    @Test("owner-wide revocation revokes only that owner's active links")
    func ownerRevocation() async throws {
        let (store, _) = try makeStore()
        for n in 1...3 { try await store.createLink(record(n, owner: "alice")) }
        try await store.createLink(record(4, owner: "bob"))
        #expect(try await store.revokeLinks(app: "handz", owner: "alice") == 3)
        #expect(try await store.revokeLinks(app: "handz", owner: "alice") == 0)
        #expect(try await store.link(id: hexID(2))?.status == .revoked)
        #expect(try await store.link(id: hexID(4))?.status == .active)
        #expect(store.isRevoked(linkID: hexID(3), generation: 1))
        #expect(!store.isRevoked(linkID: hexID(4), generation: 1))
    }

    @Test("clicks are batched and accumulate")
    func clicks() async throws {
        let (store, _) = try makeStore()
        try await store.createLink(record(1))
        let buffer = ClickBuffer()
        let t1 = Date(timeIntervalSince1970: 1_750_000_000)
        buffer.record(linkID: hexID(1), at: t1)
        buffer.record(linkID: hexID(1), at: t1.addingTimeInterval(5))
        #expect(try await store.clicks(linkID: hexID(1)).count == 0)
        try await buffer.flush(into: store)
        buffer.record(linkID: hexID(1), at: t1.addingTimeInterval(10))
        try await buffer.flush(into: store)
        let clicks = try await store.clicks(linkID: hexID(1))
        #expect(clicks.count == 3)
        #expect(clicks.lastOpened == t1.addingTimeInterval(10))
        #expect(buffer.drain().isEmpty)
    }

    @Test("API keys are found by hash and can be revoked")
    func apiKeys() async throws {
        let (store, _) = try makeStore()
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

    @Test("audit log is newest first; key records upsert")
    func auditAndKeys() async throws {
        let (store, _) = try makeStore()
        try await store.appendAudit(AuditEntry(at: Date(), actor: "admin1", action: "key.rotate", detail: "handz"))
        try await store.appendAudit(AuditEntry(at: Date(), actor: "admin1", action: "link.revoke", detail: "x"))
        let log = try await store.auditLog(limit: 10)
        #expect(log.map(\.action) == ["link.revoke", "key.rotate"])
        try await store.saveKeyRecord(StoredKeyRecord(app: "handz", kid: 1, record: Data([1])))
        try await store.saveKeyRecord(StoredKeyRecord(app: "handz", kid: 1, record: Data([2])))
        #expect(try await store.keyRecords() == [StoredKeyRecord(app: "handz", kid: 1, record: Data([2]))])
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
