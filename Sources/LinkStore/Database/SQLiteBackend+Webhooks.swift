public import Foundation
internal import GRDB

// The webhook endpoints, outbox and delivery log of the SQLite backend (`WebhookTable`). One process owns the file,
// so a lease held by another owner is one a dead process left: it is taken over at once (after `kill -9`, the
// restarted daemon delivers what was in flight without waiting for the lease to run out).
extension SQLiteBackend {
    /// Queues `events` inside the caller's write transaction: one outbox row per endpoint of the event's app that
    /// subscribes to its type and is enabled and not failing, due at once. The one way a change of this backend
    /// emits events (an `AuditEntry`'s events are written through it when the entry is inserted).
    static func enqueueWebhookEvents(_ events: [WebhookEvent], in db: Database, at date: Date = Date()) throws {
        guard !events.isEmpty else { return }
        let now = StoredDate.text(date)
        // The endpoints that take an event (`?` its app, `?` its type).
        let takers = """
            FROM webhook_endpoints WHERE app = ? AND enabled = 1 AND failingSince IS NULL
              AND instr(',' || events || ',', ',' || ? || ',') > 0
            """
        // Cached statements: every new link comes through here, and compiling the statement each time was a tenth
        // of a creation's CPU.
        let statement = try db.cachedStatement(sql: """
            INSERT INTO webhook_outbox (eventId, endpointId, type, payload, created, attempts, nextAttempt)
            SELECT ?, id, ?, ?, ?, 0, ? \(takers)
            """)
        // The body is written only for an event some endpoint takes (`WebhookEvent.payload`).
        let subscribed = try db.cachedStatement(sql: "SELECT 1 \(takers) LIMIT 1")
        for event in events {
            guard try Bool.fetchOne(subscribed, arguments: [event.app, event.type.rawValue]) == true else { continue }
            try statement.execute(arguments: [event.id, event.type.rawValue, event.payload, now, now, event.app, event.type.rawValue])
        }
    }

    /// Inserts a new link and queues `events`, in one transaction, shared with the creations that arrive meanwhile
    /// (`SQLiteGroupCommit`: one fsync for them all). Throws `conflict` if the id or the short id exists,
    /// `CustomPathTaken` when a live link of the app holds its custom path.
    public func insertLink(_ record: LinkRecord, events: [WebhookEvent]) async throws {
        try await groupCommit.write { db in
            if try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM links WHERE id = ?"), arguments: [record.id]) == true {
                throw LinkStoreError(.conflict, "link \(record.id) exists")
            }
            if let shortID = record.shortID,
               try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM links WHERE short_id = ?"), arguments: [shortID]) == true {
                throw LinkStoreError(.conflict, "short id \(shortID) exists")
            }
            if let path = record.path {
                // A revoked, deleted or expired holder lets the path go; a live one keeps it. One writer at a time,
                // so the check and the insert are not raced (the unique index stands behind them anyway). A taken
                // path is thrown from the creation's savepoint: it rolls back alone (`SQLiteGroupCommit`).
                try db.cachedStatement(sql: "UPDATE links SET path = NULL WHERE app = ? AND lower(path) = ? AND (status <> 'active' OR expires <= ?)")
                    .execute(arguments: [record.app, CustomPath.key(path), StoredDate.text(record.created)])
                if let holder = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT id, path FROM links WHERE app = ? AND lower(path) = ?"),
                    arguments: [record.app, CustomPath.key(path)]) {
                    throw CustomPathTaken(linkID: holder[0], path: holder[1])
                }
            }
            try Self.insertLinkRow(record, in: db)
            try Self.enqueueWebhookEvents(events, in: db)
        }
    }

    // MARK: Endpoints

    /// Inserts an endpoint with `audit`; `conflict` when its app has `maxPerApp` endpoints.
    public func insertWebhookEndpoint(_ endpoint: WebhookEndpoint, maxPerApp: Int, audit: AuditEntry) async throws {
        try await write { db in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webhook_endpoints WHERE app = ?", arguments: [endpoint.app]) ?? 0
            guard count < maxPerApp else {
                throw LinkStoreError(.conflict, "app \(endpoint.app) has \(maxPerApp) webhook endpoints, the most it may have")
            }
            try db.execute(
                sql: """
                    INSERT INTO webhook_endpoints (id, app, url, events, enabled, secret, created, updated, failingSince)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    endpoint.id, endpoint.app, endpoint.url, WebhookEndpoint.eventsText(endpoint.events), endpoint.enabled,
                    endpoint.sealedSecret, StoredDate.text(endpoint.created), StoredDate.text(endpoint.updated),
                    endpoint.failingSince.map(StoredDate.text),
                ])
            try audit.insert(db)
        }
    }

    /// The endpoints of `app` (all when nil), oldest first.
    public func fetchWebhookEndpoints(app: String?) async throws -> [WebhookEndpoint] {
        try await read { db in
            let rows = if let app {
                try Row.fetchAll(db, sql: "SELECT * FROM webhook_endpoints WHERE app = ? ORDER BY created, id", arguments: [app])
            } else {
                try Row.fetchAll(db, sql: "SELECT * FROM webhook_endpoints ORDER BY created, id")
            }
            return rows.map(Self.endpoint)
        }
    }

    /// The endpoint, nil when there is none.
    public func fetchWebhookEndpoint(id: String) async throws -> WebhookEndpoint? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM webhook_endpoints WHERE id = ?", arguments: [id]).map(Self.endpoint)
        }
    }

    /// Replaces an endpoint's changeable fields with `audit`; false when there is no such endpoint.
    public func updateWebhookEndpoint(_ endpoint: WebhookEndpoint, audit: AuditEntry) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "UPDATE webhook_endpoints SET url = ?, events = ?, enabled = ?, updated = ?, failingSince = ? WHERE id = ?",
                arguments: [
                    endpoint.url, WebhookEndpoint.eventsText(endpoint.events), endpoint.enabled,
                    StoredDate.text(endpoint.updated), endpoint.failingSince.map(StoredDate.text), endpoint.id,
                ])
            guard db.changesCount == 1 else { return false }
            try audit.insert(db)
            return true
        }
    }

    /// Deletes an endpoint, its pending deliveries and its log, with `audit`; false when there is no such endpoint.
    public func deleteWebhookEndpoint(id: String, audit: AuditEntry) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM webhook_endpoints WHERE id = ?", arguments: [id])
            guard db.changesCount == 1 else { return false }
            try db.execute(sql: "DELETE FROM webhook_outbox WHERE endpointId = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM webhook_attempts WHERE endpointId = ?", arguments: [id])
            try audit.insert(db)
            return true
        }
    }

    // MARK: Outbox

    /// Leases due rows to `owner` (rows leased by another owner count as free: no other process shares the file).
    public func claimWebhookDeliveries(owner: String, limit: Int, now: Date, lease: Duration) async throws -> [WebhookDelivery] {
        let nowText = StoredDate.text(now)
        let until = StoredDate.text(now.addingTimeInterval(Double(lease.components.seconds)))
        return try await write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT o.seq, o.eventId, o.endpointId, e.url, e.secret, o.type, o.payload, o.attempts, o.created
                    FROM webhook_outbox o JOIN webhook_endpoints e ON e.id = o.endpointId
                    WHERE o.nextAttempt <= ? AND (o.leaseOwner IS NULL OR o.leaseOwner != ? OR o.leaseUntil <= ?)
                      AND e.enabled = 1 AND e.failingSince IS NULL
                    ORDER BY o.nextAttempt, o.seq LIMIT ?
                    """,
                arguments: [nowText, owner, nowText, limit])
            var deliveries: [WebhookDelivery] = []
            for row in rows {
                let seq: Int64 = row[0]
                try db.execute(
                    sql: "UPDATE webhook_outbox SET leaseOwner = ?, leaseUntil = ? WHERE seq = ?", arguments: [owner, until, seq])
                deliveries.append(WebhookDelivery(
                    seq: seq, eventID: row[1], endpointID: row[2], url: row[3], sealedSecret: row[4], type: row[5],
                    payload: row[6], attempts: row[7], created: StoredDate.date(row[8]) ?? now))
            }
            return deliveries
        }
    }

    /// Logs the attempt and applies `disposition`, if `owner` still holds the row.
    public func finishWebhookDelivery(
        _ delivery: WebhookDelivery, owner: String, attempt: WebhookAttempt, disposition: WebhookDisposition, keepAttempts: Int
    ) async throws {
        try await write { db in
            let held = "seq = ? AND leaseOwner = ?"
            switch disposition {
            case .delivered:
                try db.execute(sql: "DELETE FROM webhook_outbox WHERE \(held)", arguments: [delivery.seq, owner])
            case .retry(let next):
                try db.execute(
                    sql: """
                        UPDATE webhook_outbox SET attempts = attempts + 1, nextAttempt = ?, leaseOwner = NULL, leaseUntil = NULL
                        WHERE \(held)
                        """,
                    arguments: [StoredDate.text(next), delivery.seq, owner])
            case .abandon:
                try db.execute(sql: "DELETE FROM webhook_outbox WHERE \(held)", arguments: [delivery.seq, owner])
                if db.changesCount == 1 {
                    try db.execute(
                        sql: "UPDATE webhook_endpoints SET failingSince = ? WHERE id = ? AND failingSince IS NULL",
                        arguments: [StoredDate.text(attempt.at), delivery.endpointID])
                }
            }
            try db.execute(
                sql: """
                    INSERT INTO webhook_attempts (endpointId, eventId, type, attempt, at, status, outcome, durationMs, error)
                    SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ?)
                    """,
                arguments: [
                    attempt.endpointID, attempt.eventID, attempt.type, attempt.attempt, StoredDate.text(attempt.at),
                    attempt.status, attempt.outcome.rawValue, attempt.durationMilliseconds, attempt.error, attempt.endpointID,
                ])
            try db.execute(
                sql: """
                    DELETE FROM webhook_attempts WHERE endpointId = ? AND seq <= (
                      SELECT seq FROM webhook_attempts WHERE endpointId = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)
                    """,
                arguments: [attempt.endpointID, attempt.endpointID, keepAttempts])
        }
    }

    /// An endpoint's newest attempts, newest first.
    public func fetchWebhookAttempts(endpointID: String, limit: Int) async throws -> [WebhookAttempt] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM webhook_attempts WHERE endpointId = ? ORDER BY seq DESC LIMIT ?",
                arguments: [endpointID, max(0, limit)]
            ).map { row in
                WebhookAttempt(
                    seq: row["seq"], endpointID: row["endpointId"], eventID: row["eventId"], type: row["type"],
                    attempt: row["attempt"], at: StoredDate.date(row["at"]) ?? Date(timeIntervalSince1970: 0),
                    status: row["status"], outcome: WebhookAttempt.Outcome(rawValue: row["outcome"]) ?? .failed,
                    durationMilliseconds: row["durationMs"], error: row["error"])
            }
        }
    }

    /// How many deliveries wait.
    public func countWebhookOutbox() async throws -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webhook_outbox") ?? 0 }
    }

    private static func endpoint(_ row: Row) -> WebhookEndpoint {
        WebhookEndpoint(
            id: row["id"], app: row["app"], url: row["url"], events: WebhookEndpoint.events(row["events"]),
            enabled: row["enabled"], sealedSecret: row["secret"],
            created: StoredDate.date(row["created"]) ?? Date(timeIntervalSince1970: 0),
            updated: StoredDate.date(row["updated"]) ?? Date(timeIntervalSince1970: 0),
            failingSince: StoredDate.date(row["failingSince"]))
    }
}
