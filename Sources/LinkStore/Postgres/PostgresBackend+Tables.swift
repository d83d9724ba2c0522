public import Foundation
import Logging
import PostgresNIO

// The links (with their revocations and clicks), API keys and audit log of the PostgreSQL backend.
extension PostgresBackend {
    // MARK: Links

    /// Inserts a new link. Throws `conflict` if the id exists.
    public func insertLink(_ record: LinkRecord) async throws {
        try await insertLink(record, events: [])
    }

    /// The stored link, nil when there is none.
    public func fetchLink(id: String) async throws -> LinkRecord? {
        try await run("read a link") { [client] in
            let rows = try await client.query("SELECT \(unescaped: Self.linkColumns) FROM links WHERE id = \(id)")
            return try await Self.decodeLinks(rows).first
        }
    }

    /// The stored link with this short id, nil when there is none.
    public func fetchLink(shortID: String) async throws -> LinkRecord? {
        try await run("read a link by short id") { [client] in
            let rows = try await client.query("SELECT \(unescaped: Self.linkColumns) FROM links WHERE short_id = \(shortID)")
            return try await Self.decodeLinks(rows).first
        }
    }

    /// The link of `app` holding `path` in any case (the `links_app_path` index).
    public func fetchLink(app: String, path: String) async throws -> LinkRecord? {
        try await run("read a link by path") { [client] in
            let rows = try await client.query(
                "SELECT \(unescaped: Self.linkColumns) FROM links WHERE app = \(app) AND lower(path) = \(CustomPath.key(path))")
            return try await Self.decodeLinks(rows).first
        }
    }

    /// The custom paths of `app`'s live links but those of the `outside` shapes, newest first, at most `limit`.
    public func liveCustomPaths(app: String, now: Date, limit: Int, outside: CustomPathShapes) async throws -> [String] {
        try await run("read an app's custom paths") { [client] in
            let rows = try await client.query("""
                SELECT path FROM links WHERE app = \(app) AND path IS NOT NULL AND status = 'active' AND expires > \(now)
                AND \(unescaped: outside.sqlOutside(like: true))
                ORDER BY created DESC, id DESC LIMIT \(Int64(limit))
                """)
            var paths: [String] = []
            for try await path in rows.decode(String.self) { paths.append(path) }
            return paths
        }
    }

    /// Revokes a link and announces it, with `audit` in the same transaction. The updated row, or nil if there is
    /// no such link.
    public func revokeLink(id: String, at date: Date, audit: AuditEntry?) async throws -> LinkRecord? {
        try await run("revoke a link") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> LinkRecord? in
                let rows = try await connection.query(
                    "UPDATE links SET status = 'revoked' WHERE id = \(id) RETURNING \(unescaped: Self.linkColumns)",
                    logger: logger)
                guard let record = try await Self.decodeLinks(rows).first else { return nil }
                try await connection.query("""
                    INSERT INTO revocations (linkid, generation, revokedat) VALUES (\(record.id), \(Int64(record.generation)), \(date))
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
                try await Self.recordChange("revocation", of: record, connection, logger: logger)
                try await Self.insertAudit(audit, connection, logger: logger)
                return record
            }
        }
    }

    /// Revokes every active link of an owner in an app and announces it, with `audit` of the count in the same
    /// transaction; the (link id, generation) of each.
    public func revokeLinks(
        app: String, owner: String, at date: Date, audit: (@Sendable (_ revoked: Int) -> AuditEntry)?
    ) async throws -> [(String, Int)] {
        try await run("revoke an owner's links") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> [(String, Int)] in
                let version = try await Self.nextVersion(connection, logger: logger)
                let rows = try await connection.query("""
                    WITH revoked AS (
                      UPDATE links SET status = 'revoked' WHERE app = \(app) AND owner = \(owner) AND status = 'active'
                      RETURNING id, generation),
                    listed AS (
                      INSERT INTO revocations (linkid, generation, revokedat) SELECT id, generation, \(date) FROM revoked
                      ON CONFLICT DO NOTHING)
                    INSERT INTO changes (version, kind, app, subject, generation)
                    SELECT \(version), 'revocation', \(app), id, generation FROM revoked RETURNING subject, generation
                    """, logger: logger)
                var pairs: [(String, Int)] = []
                for try await (id, generation) in rows.decode((String, Int64).self) { pairs.append((id, Int(generation))) }
                if !pairs.isEmpty { try await Self.announce(version, connection, logger: logger) }
                try await Self.insertAudit(audit?(pairs.count), connection, logger: logger)
                return pairs
            }
        }
    }

    /// Marks an active link deleted and announces it (other instances drop their cached record), with the entry
    /// `audit` makes of it in the same transaction. The updated row, or nil (and no audit entry) when there is no
    /// such link or it is not active.
    public func markLinkDeleted(id: String, audit: (@Sendable (LinkRecord) -> AuditEntry)?) async throws -> LinkRecord? {
        try await run("mark a link deleted") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> LinkRecord? in
                let rows = try await connection.query(
                    "UPDATE links SET status = 'deleted' WHERE id = \(id) AND status = 'active' RETURNING \(unescaped: Self.linkColumns)",
                    logger: logger)
                guard let record = try await Self.decodeLinks(rows).first else { return nil }
                try await Self.recordChange("deletion", of: record, connection, logger: logger)
                try await Self.insertAudit(audit?(record), connection, logger: logger)
                return record
            }
        }
    }

    /// How many links are stored.
    public func countLinks() async throws -> Int {
        try await run("count links") { [client] in
            for try await count in try await client.query("SELECT count(*) FROM links").decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    /// Streams the revocations table into `loader` (within 120 s).
    public func streamRevocations(into loader: RevocationLoader) async throws {
        try await run("load revocations", timeout: .seconds(120)) { [client] in
            for try await (id, generation) in try await client.query("SELECT linkid, generation FROM revocations").decode((String, Int64).self) {
                loader.add(linkID: id, generation: generation)
            }
        }
    }

    // MARK: Clicks

    /// The click statistics of a link (zero if never opened).
    public func fetchClicks(linkID: String) async throws -> LinkClicks {
        try await run("read clicks") { [client] in
            let rows = try await client.query("SELECT count, lastopened FROM clicks WHERE linkid = \(linkID)")
            for try await (count, last) in rows.decode((Int64, Date?).self) { return LinkClicks(count: Int(count), lastOpened: last) }
            return LinkClicks(count: 0, lastOpened: nil)
        }
    }

    // MARK: API keys

    /// Inserts a new API key (its hash only), with `audit` in the same transaction. Other instances read keys from
    /// the database, so it is in force everywhere once this returns.
    public func insertAPIKey(_ key: APIKeyRecord, audit: AuditEntry?) async throws {
        try await run("create an API key") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("""
                    INSERT INTO api_keys (id, kind, app, label, secrethash, created, revoked)
                    VALUES (\(key.id), \(key.kind.rawValue), \(key.app), \(key.label), \(key.secretHash), \(key.created), \(key.revoked))
                    """, logger: logger)
                try await Self.insertAudit(audit, connection, logger: logger)
            }
        }
    }

    /// The API key with this secret hash (revoked keys included; the caller checks).
    public func fetchAPIKey(secretHash: Data) async throws -> APIKeyRecord? {
        try await run("read an API key") { [client] in
            try await Self.decodeAPIKeys(client.query("SELECT \(unescaped: Self.apiKeyColumns) FROM api_keys WHERE secrethash = \(secretHash)")).first
        }
    }

    /// Revokes an API key, with `audit` in the same transaction. Returns false (and writes no audit entry) when
    /// there is no such key.
    public func revokeAPIKey(id: String, at date: Date, audit: AuditEntry?) async throws -> Bool {
        try await run("revoke an API key") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection -> Bool in
                let rows = try await connection.query(
                    "UPDATE api_keys SET revoked = COALESCE(revoked, \(date)) WHERE id = \(id) RETURNING id", logger: logger)
                guard try await rows.collect().count == 1 else { return false }
                try await Self.insertAudit(audit, connection, logger: logger)
                return true
            }
        }
    }

    /// All API keys of a kind, oldest first.
    public func fetchAPIKeys(kind: APIKeyKind) async throws -> [APIKeyRecord] {
        try await run("list API keys") { [client] in
            try await Self.decodeAPIKeys(client.query(
                "SELECT \(unescaped: Self.apiKeyColumns) FROM api_keys WHERE kind = \(kind.rawValue) ORDER BY created, id"))
        }
    }

    // MARK: Audit log

    /// Appends an audit entry.
    public func appendAudit(_ entry: AuditEntry) async throws {
        try await run("append to the audit log") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.insertAudit(entry, connection, logger: logger)
            }
        }
    }

    /// Appends `entry`, when there is one, on `connection` (inside the transaction of the action it records).
    static func insertAudit(_ entry: AuditEntry?, _ connection: PostgresConnection, logger: Logger) async throws {
        guard let entry else { return }
        try await connection.query("""
            INSERT INTO audit_log (at, actor, action, detail, app)
            VALUES (\(entry.at), \(entry.actor), \(entry.action), \(entry.detail), \(entry.app))
            """, logger: logger)
        try await enqueueWebhookEvents(entry.events, on: connection, logger: logger)
    }

    /// The newest audit entries, newest first.
    public func fetchAuditLog(limit: Int) async throws -> [AuditEntry] {
        try await run("read the audit log") { [client] in
            let rows = try await client.query(
                "SELECT \(unescaped: Self.auditColumns) FROM audit_log ORDER BY seq DESC LIMIT \(Int64(max(0, limit)))")
            return try await Self.decodeAudit(rows)
        }
    }

    // MARK: Rows

    static let linkColumns = "id, app, route, params, owner, title, created, expires, generation, status, campaign, short_id, path"
    static let apiKeyColumns = "id, kind, app, label, secrethash, created, revoked"

    static func decodeLinks(_ rows: PostgresRowSequence) async throws -> [LinkRecord] {
        var records: [LinkRecord] = []
        for try await row in rows {
            let (id, app, route, params, owner, title, created, expires, generation, status, campaign, shortID, path) = try row.decode(
                (String, String, String, String, String?, String?, Date, Date, Int64, String, String?, String?, String?).self)
            guard let status = LinkRecordStatus(rawValue: status) else {
                throw LinkStoreError(.storage, "link \(id) has an unknown status \(status)")
            }
            records.append(LinkRecord(
                id: id, app: app, route: route, params: try LinkParamsText.decode(params, id: id), owner: owner, title: title,
                created: created, expires: expires, generation: Int(generation), status: status,
                campaign: campaign.flatMap(Campaign.init(label:)), shortID: shortID, path: path))
        }
        return records
    }

    static func decodeAPIKeys(_ rows: PostgresRowSequence) async throws -> [APIKeyRecord] {
        var records: [APIKeyRecord] = []
        for try await (id, kind, app, label, hash, created, revoked) in rows.decode((String, String, String?, String, Data, Date, Date?).self) {
            guard let kind = APIKeyKind(rawValue: kind) else { throw LinkStoreError(.storage, "API key \(id) has an unknown kind") }
            records.append(APIKeyRecord(id: id, kind: kind, app: app, label: label, secretHash: hash, created: created, revoked: revoked))
        }
        return records
    }

}
