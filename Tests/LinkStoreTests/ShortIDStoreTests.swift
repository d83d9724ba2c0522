import Foundation
import LinkStore
import LinkdTestSupport
import Testing

private func link(_ n: Int, shortID: String?) -> LinkRecord {
    LinkRecord(
        id: String(format: "%032x", 0x5000 + n), app: "handz", route: "Library/FlowDetail", params: ["flowId": "f\(n)"],
        owner: "alice", title: nil, created: Date(timeIntervalSince1970: 1_700_000_000),
        expires: Date(timeIntervalSince1970: 1_800_000_000), shortID: shortID)
}

/// Short ids in both stores: the `short_id` column (unique, empty for links made before it), the lookup through the
/// front that remembers both what it found and what it did not, and another instance's link behind an id this one
/// found unknown.
@Suite("Short ids in the store")
struct ShortIDStoreTests {
    @Test("stored with the link, read back by id, short id and listing; unique; links without one stay without", arguments: Backend.allCases)
    func column(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        let short = ShortID.generate()
        try await store.createLink(link(1, shortID: short), events: [])
        try await store.createLink(link(2, shortID: nil), events: [])
        try await store.createLink(link(3, shortID: nil), events: [])  // NULLs do not collide
        #expect(try await store.backend.fetchLink(id: link(1, shortID: nil).id)?.shortID == short)
        #expect(try await store.backend.fetchLink(shortID: short)?.id == link(1, shortID: nil).id)
        #expect(try await store.backend.fetchLink(id: link(2, shortID: nil).id)?.shortID == nil)
        #expect(try await store.backend.fetchLink(shortID: ShortID.generate()) == nil)
        let listed = try await store.listLinks(LinkListQuery(limit: 10))
        #expect(listed.first { $0.record.id == link(1, shortID: nil).id }?.record.shortID == short)
        // The same short id again: a conflict, and nothing written.
        await #expect(throws: LinkStoreError.self) { try await store.createLink(link(4, shortID: short), events: []) }
        #expect(try await store.backend.fetchLink(id: link(4, shortID: nil).id) == nil)
        // Revocation keeps it.
        #expect(try await store.revokeLink(id: link(1, shortID: nil).id)?.shortID == short)
        await store.close()
        let reopened = try await location.open()
        #expect(try await reopened.link(shortID: short)?.status == .revoked)
        await reopened.close()
    }

    @Test("the front reads a short id once: found, it is cached with the record; unknown, it is unknown until the window ends")
    func frontMemory() async throws {
        let store = try await StoreLocation(.sqlite).open()
        let short = ShortID.generate()
        #expect(store.cachedLink(shortID: short) == .miss)
        #expect(try await store.link(shortID: short) == nil)
        #expect(store.cachedLink(shortID: short) == .unknown, "remembered as unknown")
        // Made here: known at once, whatever was remembered.
        try await store.createLink(link(1, shortID: short), events: [])
        #expect(store.cachedLink(shortID: short) == .miss, "known, its record not read yet")
        #expect(try await store.link(shortID: short)?.id == link(1, shortID: nil).id)
        guard case .record(let record) = store.cachedLink(shortID: short) else { Issue.record("not cached"); return }
        #expect(record.shortID == short)
        await store.close()

        // The window and the bound of the unknown ids.
        let index = ShortIDIndex(capacity: 10, unknownCapacity: 4, unknownWindow: .seconds(60))
        let start = ContinuousClock.now
        index.putUnknown("a", now: start)
        #expect(index.lookup("a", now: start + .seconds(59)) == .unknown)
        #expect(index.lookup("a", now: start + .seconds(60)) == .miss, "past the window, the store is asked again")
        for id in ["b", "c", "d", "e", "f", "g"] { index.putUnknown(id, now: start) }
        #expect(index.unknownCount <= 4)
    }

    @Test("a link made on another instance behind a short id this one found unknown answers once the window ends")
    func otherInstance() async throws {
        let url = try TestPostgres.shared().freshDatabase()
        let a = try await StoreFront.open(.postgres(url: url, timing: PostgresTiming(syncInterval: .seconds(30))))
        let b = try await StoreFront.open(.postgres(url: url, timing: PostgresTiming(syncInterval: .seconds(30))))
        let short = ShortID.generate()
        #expect(try await b.link(shortID: short) == nil)
        try await a.createLink(link(1, shortID: short), events: [])
        #expect(try await b.link(shortID: short) == nil, "within the window: still unknown on b (bounded by the window)")
        #expect(b.cachedLink(shortID: short) == .unknown)
        // A revocation on a, of a link b knows: b's answer comes from the record and the revocation set, never the
        // negative cache.
        let known = ShortID.generate()
        try await a.createLink(link(2, shortID: known), events: [])
        #expect(try await b.link(shortID: known)?.status == .active)
        try await a.revokeLink(id: link(2, shortID: nil).id)
        #expect(b.cachedLink(shortID: known) != .unknown)
        await a.close()
        await b.close()
    }
}
