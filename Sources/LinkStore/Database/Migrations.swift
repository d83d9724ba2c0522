import GRDB
import Logging

/// The versioned schema of the store. Add a migration; never edit a shipped one.
enum Migrations {
    /// Every migration in order; with a `logger`, each notes when it begins and when its statements have run (as
    /// `PostgresMigrations` does: one over a large table takes seconds to minutes, and the start waits for it).
    static func migrator(logging logger: Logger?) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        func register(_ name: String, _ migrate: @escaping @Sendable (Database) throws -> Void) {
            migrator.registerMigration(name) { db in
                logger?.notice("applying a database migration (one over a large table can take minutes)", metadata: ["migration": "\(name)"])
                try migrate(db)
                logger?.notice("applied a database migration", metadata: ["migration": "\(name)"])
            }
        }
        register("v1", createFirstTables)
        // Listing links newest first, by app, by owner or all (`LinkListing`): keyset pagination on (created, id).
        register("admincli-links-listing") { db in
            try db.create(index: "links_created", on: "links", columns: ["created", "id"])
            try db.create(index: "links_app_created", on: "links", columns: ["app", "created", "id"])
            try db.create(index: "links_owner_created", on: "links", columns: ["owner", "created", "id"])
        }
        register("webhooks_v1", createWebhookTables)
        // Deferred deep links (live claim codes) and per-link daily analytics (`DeferredSchema`).
        register("deferred-v1") { db in
            for statement in DeferredSchema.sqlite { try db.execute(sql: statement) }
        }
        register("console-v1") { db in
            try ConsoleMigration.apply(db)
        }
        // Published manifests: every version of every app (`ManifestTable`).
        register("manifests-v1") { db in
            try db.execute(sql: """
                CREATE TABLE app_manifests (app TEXT NOT NULL, version INTEGER NOT NULL, hash TEXT NOT NULL,
                  source TEXT NOT NULL, publishedAt DATETIME NOT NULL, publishedBy TEXT NOT NULL, retired BOOLEAN NOT NULL,
                  PRIMARY KEY (app, version))
                """)
            try db.execute(sql: "CREATE INDEX links_app_route ON links (app, route, status)")
        }
        // A link's live claim codes, counted inside the write that adds one (`insertClaim(maxPerLink:)`).
        register("claims-v2") { db in
            try db.execute(sql: "CREATE INDEX claim_codes_link ON claim_codes (linkId, expires)")
        }
        // Certificates for the TLS listener and the lease of the instance ordering them (`TLSSecretTable`).
        register("tls-v1") { db in
            for statement in TLSSchema.sqlite { try db.execute(sql: statement) }
        }
        // The stats rollups, built from the day rows already stored; the `(app, day)` index they replace dropped.
        register("stats-rollups-v1") { db in
            for statement in StatsRollups.sqlite { try db.execute(sql: statement) }
        }
        // People's openings by campaign and referring host, their app rollup, and a link's own campaign.
        register("sources-v1") { db in
            for statement in SourceSchema.sqlite { try db.execute(sql: statement) }
        }
        // Each app's top links per day (`TopDaily`), built from the day rows already stored.
        register("top-daily-v1") { db in
            for statement in TopDaily.sqlite { try db.execute(sql: statement) }
        }
        // Short share URLs: a link's short id, unique (links made before have none: NULL, which a unique index
        // allows many of).
        register("short-ids-v1") { db in
            try db.execute(sql: "ALTER TABLE links ADD COLUMN short_id TEXT")
            try db.execute(sql: "CREATE UNIQUE INDEX links_short_id ON links (short_id)")
        }
        // Custom paths: a link's path on its app's share hosts, unique per app whatever its case (`CustomPath`).
        register("custom-paths-v1") { db in
            for statement in CustomPathSchema.sqlite { try db.execute(sql: statement) }
        }
        // The listing of an app's custom paths read from an index alone (`CustomPathListingSchema`).
        register("custom-path-listing-v1") { db in
            for statement in CustomPathListingSchema.statements { try db.execute(sql: statement) }
        }
        // `links_owner` (app, owner) is a prefix of `links_owner_status`, which serves every lookup by owner: one
        // B-tree fewer for each new link to write.
        register("links-owner-index-v1") { db in
            for statement in RedundantLinkIndexes.statements { try db.execute(sql: statement) }
        }
        // The click totals in one B-tree instead of two (`ClickTotalsSchema`): a rewrite of the table, once.
        register("clicks-without-rowid-v1") { db in
            for statement in ClickTotalsSchema.statements { try db.execute(sql: statement) }
        }
        return migrator
    }

    /// The first schema: links, revocations, key records, API keys, clicks, the audit log.
    private static func createFirstTables(_ db: Database) throws {
        try db.create(table: "links") { t in
            t.primaryKey("id", .text)
            t.column("app", .text).notNull()
            t.column("route", .text).notNull()
            t.column("params", .text).notNull()
            t.column("owner", .text)
            t.column("title", .text)
            t.column("created", .datetime).notNull()
            t.column("expires", .datetime).notNull()
            t.column("generation", .integer).notNull()
            t.column("status", .text).notNull()
        }
        try db.create(index: "links_owner", on: "links", columns: ["app", "owner"])
        try db.create(table: "revocations") { t in
            t.column("linkId", .text).notNull()
            t.column("generation", .integer).notNull()
            t.column("revokedAt", .datetime).notNull()
            t.primaryKey(["linkId", "generation"])
        }
        try db.create(table: "key_records") { t in
            t.column("app", .text).notNull()
            t.column("kid", .integer).notNull()
            t.column("record", .blob).notNull()
            t.primaryKey(["app", "kid"])
        }
        try db.create(table: "api_keys") { t in
            t.primaryKey("id", .text)
            t.column("kind", .text).notNull()
            t.column("app", .text)
            t.column("label", .text).notNull()
            t.column("secretHash", .blob).notNull().unique()
            t.column("created", .datetime).notNull()
            t.column("revoked", .datetime)
        }
        try db.create(table: "clicks") { t in
            t.primaryKey("linkId", .text)
            t.column("count", .integer).notNull()
            t.column("lastOpened", .datetime)
        }
        try db.create(table: "audit_log") { t in
            t.autoIncrementedPrimaryKey("seq")
            t.column("at", .datetime).notNull()
            t.column("actor", .text).notNull()
            t.column("action", .text).notNull()
            t.column("detail", .text).notNull()
        }
    }

    /// Webhook endpoints (secrets sealed with the master key), the outbox (one row per event and endpoint, until
    /// delivered or given up) and each endpoint's delivery log (its newest attempts).
    private static func createWebhookTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE webhook_endpoints (id TEXT PRIMARY KEY, app TEXT NOT NULL, url TEXT NOT NULL,
              events TEXT NOT NULL, enabled BOOLEAN NOT NULL, secret BLOB NOT NULL, created DATETIME NOT NULL,
              updated DATETIME NOT NULL, failingSince DATETIME)
            """)
        try db.execute(sql: "CREATE INDEX webhook_endpoints_app ON webhook_endpoints (app)")
        try db.execute(sql: """
            CREATE TABLE webhook_outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, eventId TEXT NOT NULL,
              endpointId TEXT NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL, created DATETIME NOT NULL,
              attempts INTEGER NOT NULL, nextAttempt DATETIME NOT NULL, leaseOwner TEXT, leaseUntil DATETIME)
            """)
        try db.execute(sql: "CREATE INDEX webhook_outbox_due ON webhook_outbox (nextAttempt)")
        try db.execute(sql: "CREATE INDEX webhook_outbox_endpoint ON webhook_outbox (endpointId)")
        try db.execute(sql: """
            CREATE TABLE webhook_attempts (seq INTEGER PRIMARY KEY AUTOINCREMENT, endpointId TEXT NOT NULL,
              eventId TEXT NOT NULL, type TEXT NOT NULL, attempt INTEGER NOT NULL, at DATETIME NOT NULL,
              status INTEGER, outcome TEXT NOT NULL, durationMs INTEGER NOT NULL, error TEXT)
            """)
        try db.execute(sql: "CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpointId, seq)")
    }
}
