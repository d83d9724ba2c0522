import Foundation
import GRDB
import LinkStore
import LinkdTestSupport
import Testing

private func linkID(_ n: Int) -> String { String(format: "%032x", n) }

private func link(_ n: Int, owner: String) -> LinkRecord {
    LinkRecord(
        id: linkID(n), app: "handz", route: "Library/FlowDetail", params: ["flowId": "f\(n)"], owner: owner, title: nil,
        created: Date(timeIntervalSince1970: 1_700_000_000), expires: Date(timeIntervalSince1970: 1_800_000_000))
}

private func apiKey(_ id: String) -> APIKeyRecord {
    APIKeyRecord(id: id, kind: .client, app: "handz", label: id, secretHash: Data(id.utf8), created: Date())
}

extension StoreLocation {
    /// Makes every `event` (`INSERT`, `UPDATE`) on `table` fail inside its transaction, as a database refusing the
    /// write would, until `allow(table)`.
    func refuse(_ event: String, on table: String) throws {
        switch backend {
        case .sqlite:
            try DatabaseQueue(path: place).write { db in
                try db.execute(sql: "CREATE TRIGGER refuse_\(table) BEFORE \(event) ON \(table) BEGIN SELECT RAISE(ABORT, 'injected'); END")
            }
        case .postgres:
            try TestPostgres.shared().psql("""
                CREATE OR REPLACE FUNCTION refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected'; END $$;
                CREATE TRIGGER refuse_\(table) BEFORE \(event) ON \(table) FOR EACH ROW EXECUTE FUNCTION refuse_write();
                """, database: databaseName)
        }
    }

    /// Ends `refuse(_:on: table)`.
    func allow(_ table: String) throws {
        switch backend {
        case .sqlite: try DatabaseQueue(path: place).write { try $0.execute(sql: "DROP TRIGGER refuse_\(table)") }
        case .postgres: try TestPostgres.shared().psql("DROP TRIGGER refuse_\(table) ON \(table)", database: databaseName)
        }
    }

    /// The PostgreSQL database's name, from its URL.
    private var databaseName: String { String(place.split(separator: "/").last?.split(separator: "?").first ?? "") }
}

/// An admin action and its audit entry are one transaction on both backends: when the entry cannot be written the
/// action is undone, and when the action fails no entry is left.
@Suite("Audit entries are written with their action")
struct AuditAtomicityTests {
    static let entry = AuditEntry(at: Date(), actor: "admin1", action: "test.action", detail: "detail")

    @Test("the audit write fails: the revocation, deletion, API key change or key change is not stored", arguments: Backend.allCases)
    func auditFailureUndoesTheAction(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        try await store.createLink(link(1, owner: "alice"))
        try await store.createLink(link(2, owner: "bob"))
        try await store.createAPIKey(apiKey("k1"))
        let entry = Self.entry
        try location.refuse("INSERT", on: "audit_log")

        await #expect(throws: LinkStoreError.self) { try await store.revokeLink(id: linkID(1), at: Date(), audit: entry) }
        await #expect(throws: LinkStoreError.self) { try await store.revokeLinks(app: "handz", owner: "bob", at: Date()) { _ in entry } }
        await #expect(throws: LinkStoreError.self) { try await store.markLinkDeleted(id: linkID(1)) { _ in entry } }
        for n in [1, 2] {
            #expect(try await store.backend.fetchLink(id: linkID(n))?.status == .active, "link \(n)")
            #expect(!store.isRevoked(linkID: linkID(n), generation: 1), "link \(n)")
        }
        await #expect(throws: LinkStoreError.self) { try await store.createAPIKey(apiKey("k2"), audit: entry) }
        await #expect(throws: LinkStoreError.self) { try await store.revokeAPIKey(id: "k1", at: Date(), audit: entry) }
        #expect(try await store.apiKeys(kind: .client).map(\.id) == ["k1"])
        #expect(try await store.apiKeys(kind: .client).first?.revoked == nil)
        await #expect(throws: LinkStoreError.self) {
            try await store.saveKeyRecords([StoredKeyRecord(app: "handz", kid: 1, record: Data([1]))], audit: entry)
        }
        #expect(try await store.keyRecords().isEmpty)

        // The same writes without an entry go through: it was the audit write that failed.
        try await store.createAPIKey(apiKey("k3"))
        #expect(try await store.revokeLink(id: linkID(2), at: Date())?.status == .revoked)
        try location.allow("audit_log")
        #expect(try await store.auditLog(limit: 10).isEmpty)
        await store.close()
    }

    @Test("the action fails: no audit entry is left", arguments: Backend.allCases)
    func actionFailureLeavesNoEntry(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        try await store.createLink(link(1, owner: "alice"))
        try await store.createAPIKey(apiKey("k1"))
        let entry = Self.entry

        try location.refuse("UPDATE", on: "links")
        await #expect(throws: LinkStoreError.self) { try await store.revokeLink(id: linkID(1), at: Date(), audit: entry) }
        await #expect(throws: LinkStoreError.self) { try await store.revokeLinks(app: "handz", owner: "alice", at: Date()) { _ in entry } }
        await #expect(throws: LinkStoreError.self) { try await store.markLinkDeleted(id: linkID(1)) { _ in entry } }
        try location.allow("links")
        try location.refuse("INSERT", on: "api_keys")
        await #expect(throws: LinkStoreError.self) { try await store.createAPIKey(apiKey("k2"), audit: entry) }
        try location.allow("api_keys")
        try location.refuse("UPDATE", on: "api_keys")
        await #expect(throws: LinkStoreError.self) { try await store.revokeAPIKey(id: "k1", at: Date(), audit: entry) }
        try location.allow("api_keys")
        try location.refuse("INSERT", on: "key_records")
        await #expect(throws: LinkStoreError.self) {
            try await store.saveKeyRecords([StoredKeyRecord(app: "handz", kid: 1, record: Data([1]))], audit: entry)
        }
        try location.allow("key_records")
        #expect(try await store.auditLog(limit: 10).isEmpty)

        // Nothing to act on: no entry either.
        #expect(try await store.revokeLink(id: linkID(9), at: Date(), audit: entry) == nil)
        #expect(try await !store.revokeAPIKey(id: "nope", at: Date(), audit: entry))
        #expect(try await store.auditLog(limit: 10).isEmpty)

        // Both go through together, the owner-wide entry made from the count.
        #expect(try await store.revokeLinks(app: "handz", owner: "alice", at: Date()) { AuditEntry(at: Date(), actor: "a", action: "owner.revoke", detail: "\($0) links") } == 1)
        try await store.saveKeyRecords([], audit: AuditEntry(at: Date(), actor: "a", action: "key.rotate", detail: "no change"))
        #expect(try await store.auditLog(limit: 10).map(\.detail) == ["no change", "1 links"])
        await store.close()
    }
}
