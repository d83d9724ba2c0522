public import Foundation
import Logging
import PostgresNIO

// The webhook endpoints, outbox and delivery log of the PostgreSQL backend (`WebhookTable`), shared by every
// instance: a due row is leased to one instance at a time (`FOR UPDATE SKIP LOCKED`, then a lease in the row that
// outlives a delivery's time limit), so each event is delivered by one instance; a lease left by an instance that
// died runs out and another takes the row.
extension PostgresBackend {
    /// Queues `events` on `connection`, inside the caller's transaction: one outbox row per endpoint of the event's
    /// app that subscribes to its type and is enabled and not failing, due at once. The one way a change of this
    /// backend emits events (`insertAudit` writes an entry's events through it).
    static func enqueueWebhookEvents(
        _ events: [WebhookEvent], on connection: PostgresConnection, logger: Logger, at date: Date = Date()
    ) async throws {
        for event in events {
            try await connection.query("""
                INSERT INTO webhook_outbox (event_id, endpoint_id, type, payload, created, attempts, next_attempt)
                SELECT \(event.id), id, \(event.type.rawValue), \(event.payload), \(date), 0, \(date) FROM webhook_endpoints
                WHERE app = \(event.app) AND enabled AND failing_since IS NULL
                  AND position(\(",\(event.type.rawValue),") in (',' || events || ',')) > 0
                """, logger: logger)
        }
    }

    /// Inserts a new link and queues `events`, in one transaction. Throws `conflict` if the id exists.
    public func insertLink(_ record: LinkRecord, events: [WebhookEvent]) async throws {
        let params = try LinkParamsText.encode(record.params)
        let inserted = try await run("create a link") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> InsertedLink in
                if let path = record.path {
                    // A revoked, deleted or expired holder lets the path go. Two inserts of one path: the second
                    // waits on the first's index entry, then finds it taken below (a holder this one released
                    // meanwhile is locked by the UPDATE, and re-checked by it once the first commits).
                    try await connection.query("""
                        UPDATE links SET path = NULL WHERE app = \(record.app) AND lower(path) = \(CustomPath.key(path))
                        AND (status <> 'active' OR expires <= \(record.created))
                        """, logger: logger)
                }
                let rows = try await connection.query("""
                    INSERT INTO links (id, app, route, params, owner, title, created, expires, generation, status, campaign, short_id, path)
                    VALUES (\(record.id), \(record.app), \(record.route), \(params), \(record.owner), \(record.title),
                    \(record.created), \(record.expires), \(Int64(record.generation)), \(record.status.rawValue),
                    \(record.campaign?.label), \(record.shortID), \(record.path))
                    ON CONFLICT DO NOTHING RETURNING id
                    """, logger: logger)
                guard try await rows.collect().count == 1 else {
                    if let path = record.path {
                        let holders = try await connection.query(
                            "SELECT id, path FROM links WHERE app = \(record.app) AND lower(path) = \(CustomPath.key(path))",
                            logger: logger)
                        for try await (id, held) in holders.decode((String, String).self) where id != record.id {
                            return .pathTaken(CustomPathTaken(linkID: id, path: held))
                        }
                    }
                    return .conflict
                }
                try await Self.enqueueWebhookEvents(events, on: connection, logger: logger)
                return .inserted
            }
        }
        if case .pathTaken(let taken) = inserted { throw taken }
        // Either unique key may be the one taken: the id, or the short id (the caller retries with a new short id).
        guard inserted == .inserted else { throw LinkStoreError(.conflict, "link \(record.id) or short id \(record.shortID ?? "-") exists") }
    }

    // MARK: Endpoints

    /// Inserts an endpoint with `audit`; `conflict` when its app has `maxPerApp` endpoints.
    public func insertWebhookEndpoint(_ endpoint: WebhookEndpoint, maxPerApp: Int, audit: AuditEntry) async throws {
        let events = WebhookEndpoint.eventsText(endpoint.events)
        let inserted = try await run("create a webhook endpoint") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> Bool in
                // Endpoints of one app are counted under a lock of the app's name, so two instances cannot both pass.
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\("webhooks:" + endpoint.app)))", logger: logger)
                let rows = try await connection.query("""
                    INSERT INTO webhook_endpoints (id, app, url, events, enabled, secret, created, updated, failing_since)
                    SELECT \(endpoint.id), \(endpoint.app), \(endpoint.url), \(events), \(endpoint.enabled),
                      \(endpoint.sealedSecret), \(endpoint.created), \(endpoint.updated), \(endpoint.failingSince)
                    WHERE (SELECT count(*) FROM webhook_endpoints WHERE app = \(endpoint.app)) < \(Int64(maxPerApp))
                    RETURNING id
                    """, logger: logger)
                guard try await rows.collect().count == 1 else { return false }
                try await Self.insertAudit(audit, connection, logger: logger)
                return true
            }
        }
        guard inserted else {
            throw LinkStoreError(.conflict, "app \(endpoint.app) has \(maxPerApp) webhook endpoints, the most it may have")
        }
    }

    /// The endpoints of `app` (all when nil), oldest first.
    public func fetchWebhookEndpoints(app: String?) async throws -> [WebhookEndpoint] {
        try await run("list webhook endpoints") { [client] in
            let rows = if let app {
                try await client.query("SELECT \(unescaped: Self.endpointColumns) FROM webhook_endpoints WHERE app = \(app) ORDER BY created, id")
            } else {
                try await client.query("SELECT \(unescaped: Self.endpointColumns) FROM webhook_endpoints ORDER BY created, id")
            }
            return try await Self.decodeEndpoints(rows)
        }
    }

    /// The endpoint, nil when there is none.
    public func fetchWebhookEndpoint(id: String) async throws -> WebhookEndpoint? {
        try await run("read a webhook endpoint") { [client] in
            try await Self.decodeEndpoints(
                client.query("SELECT \(unescaped: Self.endpointColumns) FROM webhook_endpoints WHERE id = \(id)")).first
        }
    }

    /// Replaces an endpoint's changeable fields with `audit`; false when there is no such endpoint.
    public func updateWebhookEndpoint(_ endpoint: WebhookEndpoint, audit: AuditEntry) async throws -> Bool {
        let events = WebhookEndpoint.eventsText(endpoint.events)
        return try await run("update a webhook endpoint") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> Bool in
                let rows = try await connection.query("""
                    UPDATE webhook_endpoints SET url = \(endpoint.url), events = \(events), enabled = \(endpoint.enabled),
                      updated = \(endpoint.updated), failing_since = \(endpoint.failingSince)
                    WHERE id = \(endpoint.id) RETURNING id
                    """, logger: logger)
                guard try await rows.collect().count == 1 else { return false }
                try await Self.insertAudit(audit, connection, logger: logger)
                return true
            }
        }
    }

    /// Deletes an endpoint, its pending deliveries and its log, with `audit`; false when there is no such endpoint.
    public func deleteWebhookEndpoint(id: String, audit: AuditEntry) async throws -> Bool {
        try await run("delete a webhook endpoint") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> Bool in
                let rows = try await connection.query("DELETE FROM webhook_endpoints WHERE id = \(id) RETURNING id", logger: logger)
                guard try await rows.collect().count == 1 else { return false }
                try await connection.query("DELETE FROM webhook_outbox WHERE endpoint_id = \(id)", logger: logger)
                try await connection.query("DELETE FROM webhook_attempts WHERE endpoint_id = \(id)", logger: logger)
                try await Self.insertAudit(audit, connection, logger: logger)
                return true
            }
        }
    }

    // MARK: Outbox

    /// Leases due rows to `owner`: rows another instance is leasing are skipped (`SKIP LOCKED` while it takes them,
    /// its lease after), so no row is handed to two instances while a lease lasts.
    public func claimWebhookDeliveries(owner: String, limit: Int, now: Date, lease: Duration) async throws -> [WebhookDelivery] {
        let until = now.addingTimeInterval(Double(lease.components.seconds))
        return try await run("claim webhook deliveries") { [client, logger] in
            let rows = try await client.query("""
                WITH due AS (
                  SELECT o.seq FROM webhook_outbox o JOIN webhook_endpoints e ON e.id = o.endpoint_id
                  WHERE o.next_attempt <= \(now) AND (o.lease_until IS NULL OR o.lease_until <= \(now))
                    AND e.enabled AND e.failing_since IS NULL
                  ORDER BY o.next_attempt, o.seq LIMIT \(Int64(limit)) FOR UPDATE OF o SKIP LOCKED)
                UPDATE webhook_outbox o SET lease_owner = \(owner), lease_until = \(until)
                FROM due, webhook_endpoints e WHERE o.seq = due.seq AND e.id = o.endpoint_id
                RETURNING o.seq, o.event_id, o.endpoint_id, e.url, e.secret, o.type, o.payload, o.attempts, o.created
                """, logger: logger)
            var deliveries: [WebhookDelivery] = []
            for try await (seq, eventID, endpointID, url, secret, type, payload, attempts, created) in rows.decode(
                (Int64, String, String, String, Data, String, String, Int32, Date).self)
            {
                deliveries.append(WebhookDelivery(
                    seq: seq, eventID: eventID, endpointID: endpointID, url: url, sealedSecret: secret, type: type,
                    payload: payload, attempts: Int(attempts), created: created))
            }
            return deliveries.sorted { $0.seq < $1.seq }
        }
    }

    /// Logs the attempt and applies `disposition`, if `owner` still holds the row.
    public func finishWebhookDelivery(
        _ delivery: WebhookDelivery, owner: String, attempt: WebhookAttempt, disposition: WebhookDisposition, keepAttempts: Int
    ) async throws {
        try await run("record a webhook delivery") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                let seq = delivery.seq
                switch disposition {
                case .delivered:
                    try await connection.query(
                        "DELETE FROM webhook_outbox WHERE seq = \(seq) AND lease_owner = \(owner)", logger: logger)
                case .retry(let next):
                    try await connection.query("""
                        UPDATE webhook_outbox SET attempts = attempts + 1, next_attempt = \(next), lease_owner = NULL,
                          lease_until = NULL WHERE seq = \(seq) AND lease_owner = \(owner)
                        """, logger: logger)
                case .abandon:
                    let rows = try await connection.query(
                        "DELETE FROM webhook_outbox WHERE seq = \(seq) AND lease_owner = \(owner) RETURNING seq", logger: logger)
                    if try await rows.collect().count == 1 {
                        try await connection.query("""
                            UPDATE webhook_endpoints SET failing_since = \(attempt.at)
                            WHERE id = \(delivery.endpointID) AND failing_since IS NULL
                            """, logger: logger)
                    }
                }
                let status = attempt.status.map(Int32.init)
                try await connection.query("""
                    INSERT INTO webhook_attempts (endpoint_id, event_id, type, attempt, at, status, outcome, duration_ms, error)
                    SELECT \(attempt.endpointID), \(attempt.eventID), \(attempt.type), \(Int32(attempt.attempt)), \(attempt.at),
                      \(status), \(attempt.outcome.rawValue), \(Int32(clamping: attempt.durationMilliseconds)), \(attempt.error)
                    WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = \(attempt.endpointID))
                    """, logger: logger)
                try await connection.query("""
                    DELETE FROM webhook_attempts WHERE endpoint_id = \(attempt.endpointID) AND seq <= (
                      SELECT seq FROM webhook_attempts WHERE endpoint_id = \(attempt.endpointID)
                      ORDER BY seq DESC LIMIT 1 OFFSET \(Int64(keepAttempts)))
                    """, logger: logger)
            }
        }
    }

    /// An endpoint's newest attempts, newest first.
    public func fetchWebhookAttempts(endpointID: String, limit: Int) async throws -> [WebhookAttempt] {
        try await run("read a webhook delivery log") { [client] in
            let rows = try await client.query("""
                SELECT seq, endpoint_id, event_id, type, attempt, at, status, outcome, duration_ms, error FROM webhook_attempts
                WHERE endpoint_id = \(endpointID) ORDER BY seq DESC LIMIT \(Int64(max(0, limit)))
                """)
            var attempts: [WebhookAttempt] = []
            for try await (seq, endpoint, event, type, attempt, at, status, outcome, duration, error) in rows.decode(
                (Int64, String, String, String, Int32, Date, Int32?, String, Int32, String?).self)
            {
                attempts.append(WebhookAttempt(
                    seq: seq, endpointID: endpoint, eventID: event, type: type, attempt: Int(attempt), at: at,
                    status: status.map(Int.init), outcome: WebhookAttempt.Outcome(rawValue: outcome) ?? .failed,
                    durationMilliseconds: Int(duration), error: error))
            }
            return attempts
        }
    }

    /// How many deliveries wait.
    public func countWebhookOutbox() async throws -> Int {
        try await run("count the webhook outbox") { [client] in
            for try await count in try await client.query("SELECT count(*) FROM webhook_outbox").decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    static let endpointColumns = "id, app, url, events, enabled, secret, created, updated, failing_since"

    static func decodeEndpoints(_ rows: PostgresRowSequence) async throws -> [WebhookEndpoint] {
        var endpoints: [WebhookEndpoint] = []
        for try await (id, app, url, events, enabled, secret, created, updated, failing) in rows.decode(
            (String, String, String, String, Bool, Data, Date, Date, Date?).self)
        {
            endpoints.append(WebhookEndpoint(
                id: id, app: app, url: url, events: WebhookEndpoint.events(events), enabled: enabled, sealedSecret: secret,
                created: created, updated: updated, failingSince: failing))
        }
        return endpoints
    }
}
