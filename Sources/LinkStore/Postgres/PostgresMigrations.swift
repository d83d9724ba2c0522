import Logging
import PostgresNIO

/// The versioned schema of the PostgreSQL store: the tables of the SQLite backend (`Migrations`) in PostgreSQL's
/// dialect, plus the change feed (`change_counter`, `changes`) through which instances learn of each other's
/// revocations and key changes. Add a migration; never edit a shipped one.
enum PostgresMigrations {
    /// Migrations in order: a name and its statements (one statement per string: the extended protocol runs one).
    static let all: [(String, [String])] = [
        ("v1", [
            """
            CREATE TABLE links (id text PRIMARY KEY, app text NOT NULL, route text NOT NULL, params text NOT NULL,
              owner text, title text, created timestamptz NOT NULL, expires timestamptz NOT NULL,
              generation bigint NOT NULL, status text NOT NULL)
            """,
            "CREATE INDEX links_owner ON links (app, owner)",
            """
            CREATE TABLE revocations (linkid text NOT NULL, generation bigint NOT NULL, revokedat timestamptz NOT NULL,
              PRIMARY KEY (linkid, generation))
            """,
            "CREATE TABLE key_records (app text NOT NULL, kid bigint NOT NULL, record bytea NOT NULL, PRIMARY KEY (app, kid))",
            """
            CREATE TABLE api_keys (id text PRIMARY KEY, kind text NOT NULL, app text, label text NOT NULL,
              secrethash bytea NOT NULL UNIQUE, created timestamptz NOT NULL, revoked timestamptz)
            """,
            "CREATE TABLE clicks (linkid text PRIMARY KEY, count bigint NOT NULL, lastopened timestamptz)",
            """
            CREATE TABLE audit_log (seq bigserial PRIMARY KEY, at timestamptz NOT NULL, actor text NOT NULL,
              action text NOT NULL, detail text NOT NULL)
            """,
            // One row; every change takes the next version under its row lock, so versions commit in order.
            "CREATE TABLE change_counter (id int PRIMARY KEY, version bigint NOT NULL)",
            "INSERT INTO change_counter (id, version) VALUES (1, 0)",
            """
            CREATE TABLE changes (version bigint NOT NULL, kind text NOT NULL, app text NOT NULL, subject text NOT NULL,
              generation bigint NOT NULL, at timestamptz NOT NULL DEFAULT now())
            """,
            "CREATE INDEX changes_version ON changes (version)",
        ]),
        // Listing links newest first, by app, by owner or all (`LinkListing`): keyset pagination on (created, id).
        ("admincli-links-listing", [
            "CREATE INDEX links_created ON links (created, id)",
            "CREATE INDEX links_app_created ON links (app, created, id)",
            "CREATE INDEX links_owner_created ON links (owner, created, id)",
        ]),
        // Webhook endpoints (secrets sealed with the master key), the outbox (one row per event and endpoint, leased
        // to one instance at a time) and each endpoint's delivery log.
        ("webhooks_v1", [
            """
            CREATE TABLE webhook_endpoints (id text PRIMARY KEY, app text NOT NULL, url text NOT NULL, events text NOT NULL,
              enabled boolean NOT NULL, secret bytea NOT NULL, created timestamptz NOT NULL, updated timestamptz NOT NULL,
              failing_since timestamptz)
            """,
            "CREATE INDEX webhook_endpoints_app ON webhook_endpoints (app)",
            """
            CREATE TABLE webhook_outbox (seq bigserial PRIMARY KEY, event_id text NOT NULL, endpoint_id text NOT NULL,
              type text NOT NULL, payload text NOT NULL, created timestamptz NOT NULL, attempts int NOT NULL,
              next_attempt timestamptz NOT NULL, lease_owner text, lease_until timestamptz)
            """,
            "CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt)",
            "CREATE INDEX webhook_outbox_endpoint ON webhook_outbox (endpoint_id)",
            """
            CREATE TABLE webhook_attempts (seq bigserial PRIMARY KEY, endpoint_id text NOT NULL, event_id text NOT NULL,
              type text NOT NULL, attempt int NOT NULL, at timestamptz NOT NULL, status int, outcome text NOT NULL,
              duration_ms int NOT NULL, error text)
            """,
            "CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, seq)",
        ]),
        ("deferred-v1", DeferredSchema.postgres),
        ("console-v1", PostgresConsoleMigration.statements),
        // Published manifests: every version of every app (`ManifestTable`).
        ("manifests-v1", [
            """
            CREATE TABLE app_manifests (app text NOT NULL, version bigint NOT NULL, hash text NOT NULL, source text NOT NULL,
              published_at timestamptz NOT NULL, published_by text NOT NULL, retired boolean NOT NULL,
              PRIMARY KEY (app, version))
            """,
            "CREATE INDEX links_app_route ON links (app, route, status)",
        ]),
        // A link's live claim codes, counted by the statement that adds one (`insertClaim(maxPerLink:)`).
        ("claims-v2", ["CREATE INDEX claim_codes_link ON claim_codes (linkid, expires)"]),
        // Certificates for the TLS listener and the lease of the instance ordering them (`TLSSecretTable`).
        ("tls-v1", TLSSchema.postgres),
        // The stats rollups, built from the day rows already stored; the `(app, day)` index they replace dropped.
        ("stats-rollups-v1", StatsRollups.postgres),
        // People's openings by campaign and referring host, their app rollup, and a link's own campaign.
        ("sources-v1", SourceSchema.postgres),
        // Each app's top links per day (`TopDaily`), built from the day rows already stored.
        ("top-daily-v1", TopDaily.postgres),
        // Short share URLs: a link's short id, unique (links made before have none: NULL, which a unique index
        // allows many of).
        ("short-ids-v1", [
            "ALTER TABLE links ADD COLUMN short_id text",
            "CREATE UNIQUE INDEX links_short_id ON links (short_id)",
        ]),
        // Custom paths: a link's path on its app's share hosts, unique per app whatever its case (`CustomPath`).
        ("custom-paths-v1", CustomPathSchema.postgres),
        // The listing of an app's custom paths read from an index alone (`CustomPathListingSchema`).
        ("custom-path-listing-v1", CustomPathListingSchema.statements),
        // `links_owner` is a prefix of `links_owner_status` (`RedundantLinkIndexes`).
        ("links-owner-index-v1", RedundantLinkIndexes.statements),
    ]

    /// The advisory lock that serializes migrations of concurrently starting instances.
    static let lockID: Int64 = 0x6C69_6E6B_6400_0001

    /// Applies every migration not yet applied, in one transaction per start.
    static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockID))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS linkd_migrations (name text PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())",
                logger: logger)
            var applied: Set<String> = []
            for try await name in try await connection.query("SELECT name FROM linkd_migrations", logger: logger).decode(String.self) {
                applied.insert(name)
            }
            for (name, statements) in all where !applied.contains(name) {
                logger.notice("applying a database migration (one over a large table can take minutes)", metadata: ["migration": "\(name)"])
                for statement in statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO linkd_migrations (name) VALUES (\(name))", logger: logger)
                logger.notice("applied a database migration", metadata: ["migration": "\(name)"])
            }
        }
    }
}
