/// Every audited action, by the name the audit log and the admin log lines write (`key.rotate`…): the one list, which
/// the console's audit filter offers as it stands.
enum AuditAction: String, Sendable, CaseIterable {
    /// A signing key made active (the old one verifies only).
    case keyRotate = "key.rotate"
    /// A signing key retired (its tokens verify no more).
    case keyRetire = "key.retire"
    /// A link revoked.
    case linkRevoke = "link.revoke"
    /// Every link of an app exported (`GET /v1/links/export`): a read of all of them, so it is on record.
    case linkExport = "link.export"
    /// Links imported into an app (`POST /v1/admin/imports`): one entry per import, with its counts.
    case linkImport = "link.import"
    /// A link deleted (its record kept as deleted).
    case linkDelete = "link.delete"
    /// Every active link of an owner revoked.
    case ownerRevoke = "owner.revoke"
    /// An API key made (the first admin key at first start too).
    case apiKeyCreate = "apikey.create"
    /// An API key revoked.
    case apiKeyRevoke = "apikey.revoke"
    /// A webhook endpoint registered, changed, deleted.
    case webhookCreate = "webhook.create"
    case webhookUpdate = "webhook.update"
    case webhookDelete = "webhook.delete"
    /// A console session opened, ended.
    case consoleSignIn = "console.sign-in"
    case consoleSignOut = "console.sign-out"
    /// A manifest published (through the API, or from a file at start or on `SIGHUP`).
    case manifestPublish = "manifest.publish"
    /// An earlier version of a manifest published again.
    case manifestRollback = "manifest.rollback"
    /// An app retired.
    case appRetire = "app.retire"
    /// A copy of the embedded store made (`POST /v1/admin/backup`).
    case storeBackup = "store.backup"
}
