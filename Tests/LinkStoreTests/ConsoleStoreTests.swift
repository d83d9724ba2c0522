import Foundation
import LinkStore
import LinkdTestSupport
import Testing

/// The admin console's tables on both backends: sessions, the filtered audit log, an owner's active-link count, and
/// the instance heartbeats through which instances sharing a store see each other.
@Suite("LinkStore: the admin console's tables")
struct ConsoleStoreTests {
    static func link(_ n: Int, owner: String, status: LinkRecordStatus = .active) -> LinkRecord {
        LinkRecord(
            id: String(format: "%032x", n), app: "handz", route: "Library/FlowDetail", params: [:], owner: owner, title: nil,
            created: Date(timeIntervalSince1970: 1_700_000_000), expires: Date(timeIntervalSince1970: 1_800_000_000), status: status)
    }

    @Test("sessions: stored by digest, touched, ended, pruned by idle and absolute age", arguments: Backend.allCases)
    func sessions(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let fresh = AdminSessionRecord(idHash: Data(repeating: 1, count: 32), keyID: "key_a", created: now, lastSeen: now)
        let idle = AdminSessionRecord(idHash: Data(repeating: 2, count: 32), keyID: "key_a", created: now, lastSeen: now - 4000)
        let old = AdminSessionRecord(idHash: Data(repeating: 3, count: 32), keyID: "key_b", created: now - 90_000, lastSeen: now)
        for session in [fresh, idle, old] { try await store.createSession(session) }
        #expect(try await store.session(idHash: fresh.idHash) == fresh)
        try await store.touchSession(idHash: fresh.idHash, at: now + 60)
        #expect(try await store.session(idHash: fresh.idHash)?.lastSeen == now + 60)
        #expect(try await store.pruneSessions(idleBefore: now - 1800, createdBefore: now - 43_200) == 2)
        #expect(try await store.session(idHash: idle.idHash) == nil)
        #expect(try await store.session(idHash: old.idHash) == nil)
        #expect(try await store.endSession(idHash: fresh.idHash))
        let again = try await store.endSession(idHash: fresh.idHash)
        #expect(!again)
        #expect(try await store.session(idHash: fresh.idHash) == nil)
        await store.close()
    }

    @Test("the audit log filtered by actor, action and app; an owner's active links counted", arguments: Backend.allCases)
    func auditAndCounts(backend: Backend) async throws {
        let store = try await StoreLocation(backend).open()
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        try await store.appendAudit(AuditEntry(at: at, actor: "key_a", action: "key.rotate", detail: "handz", app: "handz"))
        try await store.appendAudit(AuditEntry(at: at, actor: "key_b", action: "key.rotate", detail: "coin", app: "coin"))
        try await store.appendAudit(AuditEntry(at: at, actor: "key_a", action: "apikey.create", detail: "admin"))
        #expect(try await store.auditLog(filter: AuditFilter(actor: "key_a"), limit: 10).map(\.action) == ["apikey.create", "key.rotate"])
        #expect(try await store.auditLog(filter: AuditFilter(action: "key.rotate"), limit: 10).map(\.actor) == ["key_b", "key_a"])
        let coin = try await store.auditLog(filter: AuditFilter(app: "coin"), limit: 10)
        #expect(coin.count == 1 && coin.first?.app == "coin" && coin.first?.seq != nil)
        #expect(try await store.auditLog(filter: AuditFilter(actor: "key_a", action: "key.rotate", app: "coin"), limit: 10).isEmpty)
        #expect(try await store.auditLog(filter: AuditFilter(), limit: 2).count == 2)
        #expect(try await store.auditLog(limit: 10).first?.app == nil, "the unfiltered read keeps the app too")

        for n in 1...3 { try await store.createLink(Self.link(n, owner: "ada")) }
        try await store.createLink(Self.link(4, owner: "bob"))
        _ = try await store.revokeLink(id: Self.link(1, owner: "ada").id)
        #expect(try await store.activeLinkCount(app: "handz", owner: "ada") == 2)
        #expect(try await store.activeLinkCount(app: "coin", owner: "ada") == 0)
        #expect(try await store.revokeLinks(app: "handz", owner: "ada") == 2, "what the count said")
        await store.close()
    }

    @Test("instances sharing a store see each other's heartbeats; stale ones drop out")
    func heartbeats() async throws {
        let location = try StoreLocation(.postgres)
        let first = try await location.open(), second = try await location.open()
        let now = Date()
        try await first.heartbeat(InstanceHeartbeat(id: "inst_a", host: "a", started: now, lastSeen: now))
        try await second.heartbeat(InstanceHeartbeat(id: "inst_b", host: "b", started: now, lastSeen: now - 1))
        try await second.heartbeat(InstanceHeartbeat(id: "inst_old", host: "c", started: now - 600, lastSeen: now - 120))
        #expect(try await first.instances(seenSince: now - 30).map(\.id) == ["inst_a", "inst_b"])
        try await second.heartbeat(InstanceHeartbeat(id: "inst_b", host: "b", started: now, lastSeen: now + 1))
        #expect(try await first.instances(seenSince: now - 30).map(\.id) == ["inst_b", "inst_a"], "an update, not a second row")
        await first.close()
        await second.close()
    }
}
