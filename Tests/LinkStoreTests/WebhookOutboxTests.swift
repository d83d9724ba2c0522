import Foundation
import LinkStore
import LinkdTestSupport
import Synchronization
import Testing

private func link(_ n: Int) -> LinkRecord {
    LinkRecord(
        id: String(format: "%032x", 0xE000 + n), app: "handz", route: "Library/FlowDetail", params: ["flowId": "f\(n)"],
        owner: "alice", title: nil, created: Date(timeIntervalSince1970: 1_700_000_000),
        expires: Date(timeIntervalSince1970: 1_800_000_000))
}

private func event(_ type: WebhookEventType, app: String = "handz") -> WebhookEvent {
    WebhookEvent(id: "msg_" + UUID().uuidString, app: app, type: type, payload: #"{"type":"\#(type.rawValue)"}"#)
}

/// The webhook outbox on both backends: events are written in the transaction of their change (both or neither),
/// one row per subscribed endpoint, and a leased row belongs to one owner until it is finished.
@Suite("Webhook outbox")
struct WebhookOutboxTests {
    static func endpoint(_ id: String, app: String = "handz", events: [WebhookEventType]) -> WebhookEndpoint {
        WebhookEndpoint(
            id: id, app: app, url: "https://hooks.example.com/\(id)", events: events, enabled: true, sealedSecret: Data([1, 2, 3]),
            created: Date(), updated: Date())
    }

    static let audit = AuditEntry(at: Date(), actor: "admin1", action: "test.action", detail: "detail")

    @Test("SQLite writes an event's body only when an endpoint takes it, and then as written")
    func bodyWrittenOnlyForSubscribers() async throws {
        let location = try StoreLocation(.sqlite)
        let store = try await location.open()
        let writes = Mutex(0)
        let body = #"{"type":"link.created","data":{"id":"x"}}"#
        let counted = { (id: String) in
            WebhookEvent(id: id, app: "handz", type: .linkCreated) {
                writes.withLock { $0 += 1 }
                return body
            }
        }
        // No endpoint; then one of another app, one of another type: nothing is written, the body never made.
        try await store.createLink(link(20), events: [counted("msg_a")])
        try await store.createWebhookEndpoint(Self.endpoint("wh_c", app: "coin", events: [.linkCreated]), maxPerApp: 20, audit: Self.audit)
        try await store.createWebhookEndpoint(Self.endpoint("wh_r", events: [.linkRevoked]), maxPerApp: 20, audit: Self.audit)
        try await store.createLink(link(21), events: [counted("msg_b")])
        #expect(writes.withLock { $0 } == 0)
        #expect(try await store.webhookOutboxDepth() == 0)
        // An endpoint that takes it: the body is made, and the row holds it.
        try await store.createWebhookEndpoint(Self.endpoint("wh_a", events: [.linkCreated]), maxPerApp: 20, audit: Self.audit)
        try await store.createLink(link(22), events: [counted("msg_c")])
        #expect(writes.withLock { $0 } == 1)
        let rows = try await store.claimWebhookDeliveries(owner: "one", limit: 10, now: Date(), lease: .seconds(60))
        #expect(rows.map(\.eventID) == ["msg_c"])
        #expect(rows.first?.payload == body)
        await store.close()
    }

    @Test("an event is stored with its change or not at all, once per subscribed endpoint", arguments: Backend.allCases)
    func atomicFanOut(backend: Backend) async throws {
        let location = try StoreLocation(backend)
        let store = try await location.open()
        try await store.createWebhookEndpoint(Self.endpoint("wh_a", events: [.linkCreated, .linkRevoked]), maxPerApp: 20, audit: Self.audit)
        try await store.createWebhookEndpoint(Self.endpoint("wh_b", events: [.linkRevoked]), maxPerApp: 20, audit: Self.audit)
        try await store.createWebhookEndpoint(Self.endpoint("wh_c", app: "coin", events: [.linkCreated]), maxPerApp: 20, audit: Self.audit)

        // The outbox refuses the write: the link is not made, the revocation not stored, no audit entry is left.
        try location.refuse("INSERT", on: "webhook_outbox")
        await #expect(throws: (any Error).self) { try await store.createLink(link(1), events: [event(.linkCreated)]) }
        #expect(try await store.backend.fetchLink(id: link(1).id) == nil)
        try await store.createLink(link(2))  // no event: nothing to refuse
        let auditBefore = try await store.auditLog(limit: 100).count
        var revocation = Self.audit
        revocation.events = [event(.linkRevoked)]
        await #expect(throws: (any Error).self) { try await store.revokeLink(id: link(2).id, at: Date(), audit: revocation) }
        #expect(try await store.backend.fetchLink(id: link(2).id)?.status == .active)
        #expect(try await store.auditLog(limit: 100).count == auditBefore)
        try location.allow("webhook_outbox")

        // Written: one row per endpoint of the app subscribed to the type.
        try await store.createLink(link(3), events: [event(.linkCreated)])  // wh_a
        try await store.revokeLink(id: link(2).id, at: Date(), audit: revocation)  // wh_a, wh_b
        try await store.createLink(link(4), events: [event(.linkDeleted)])  // nobody
        #expect(try await store.webhookOutboxDepth() == 3)

        // Leased to one owner: another gets nothing while the lease lasts; finishing removes the row.
        let now = Date()
        let first = try await store.claimWebhookDeliveries(owner: "one", limit: 10, now: now, lease: .seconds(60))
        #expect(first.count == 3)
        #expect(Set(first.map(\.endpointID)) == ["wh_a", "wh_b"])
        if backend == .postgres {
            #expect(try await store.claimWebhookDeliveries(owner: "two", limit: 10, now: now, lease: .seconds(60)).isEmpty)
        }
        #expect(try await store.claimWebhookDeliveries(owner: "one", limit: 10, now: now, lease: .seconds(60)).isEmpty)
        let delivered = first[0]
        try await store.finishWebhookDelivery(
            delivered, owner: "one",
            attempt: WebhookAttempt(endpointID: delivered.endpointID, eventID: delivered.eventID, type: delivered.type, attempt: 1,
                                    at: now, status: 204, outcome: .delivered, durationMilliseconds: 3, error: nil),
            disposition: .delivered, keepAttempts: 100)
        #expect(try await store.webhookOutboxDepth() == 2)
        #expect(try await store.webhookAttempts(endpointID: delivered.endpointID, limit: 10).first?.status == 204)
        // Past the lease, the rows are free again.
        let later = now.addingTimeInterval(61)
        #expect(try await store.claimWebhookDeliveries(owner: "two", limit: 10, now: later, lease: .seconds(60)).count == 2)
        // Deleting an endpoint takes its rows along.
        #expect(try await store.deleteWebhookEndpoint(id: "wh_b", audit: Self.audit))
        #expect(try await store.webhookOutboxDepth() == 1)
        await store.close()
    }
}
