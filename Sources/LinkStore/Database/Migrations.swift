import GRDB

/// The versioned schema of the store. Add a migration; never edit a shipped one.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
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
        // Listing links newest first, by app, by owner or all (`LinkListing`): keyset pagination on (created, id).
        migrator.registerMigration("admincli-links-listing") { db in
            try db.create(index: "links_created", on: "links", columns: ["created", "id"])
            try db.create(index: "links_app_created", on: "links", columns: ["app", "created", "id"])
            try db.create(index: "links_owner_created", on: "links", columns: ["owner", "created", "id"])
        }
        migrator.registerMigration("console-v1") { db in
            try ConsoleMigration.apply(db)
        }
        return migrator
    }
}
