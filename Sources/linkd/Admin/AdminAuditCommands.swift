import ArgumentParser
import LinkdAdmin

/// `linkd admin revoke-owner`: every active link of an owner revoked ("disable user").
struct AdminRevokeOwner: AdminVerb {
    static let configuration = CommandConfiguration(
        commandName: "revoke-owner", abstract: "Revoke every active link of an owner in an app (disable a user).")
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "The app.") var app: String
    @Option(help: "The owner (the app's user id).") var owner: String

    func request() -> AdminRequest { AdminRequest("POST", ["v1", "admin", "revocations"], json: ["app": app, "owner": owner]) }
    func render(_ answer: [String: Any]) -> String {
        let result = JSONText(answer)
        return "revoked \(result["revoked"] ?? "0") links of owner \(TextTable.printable(result["owner"] ?? owner)) in \(TextTable.printable(result["app"] ?? app))"
    }
}

/// `linkd admin audit`: the newest audit entries.
struct AdminAudit: AdminVerb {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "The newest audit entries (every admin change and link revocation), newest first.")
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "How many entries (1–1000, default 100).") var limit: Int?

    func request() -> AdminRequest { AdminRequest("GET", ["v1", "admin", "audit"], query: [("limit", limit.map(String.init))]) }
    func render(_ answer: [String: Any]) -> String {
        TextTable(JSONText.items("entries", of: answer), columns: [
            "SEQ": "seq", "AT": "at", "ACTOR": "actor", "ACTION": "action", "DETAIL": "detail",
        ]).render()
    }
}

/// `linkd admin backup`: a consistent copy of the daemon's embedded store, made while it serves.
struct AdminBackup: AdminVerb {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the daemon's SQLite store while it serves, into its data directory's backups/ (docs/deploy.md, \"Backups\").",
        discussion: "A PostgreSQL store is backed up with pg_dump instead. Keep the master key with the copies: without it nothing sealed can be opened.")
    @OptionGroup var connection: ConnectionOptions

    func request() -> AdminRequest { AdminRequest("POST", ["v1", "admin", "backup"]) }
    func render(_ answer: [String: Any]) -> String {
        let result = JSONText(answer)
        return FieldList([
            ("backup", result["file"]), ("bytes", result["bytes"]), ("took ms", result["durationMs"]), ("at", result["createdAt"]),
        ]).render()
    }
}
