/// The names of audited actions of the apps' manifests and of the store, as the audit log and the admin log lines
/// write them.
enum AuditAction: String, Sendable {
    /// A copy of the embedded store made (`POST /v1/admin/backup`).
    case storeBackup = "store.backup"
    /// A manifest published (through the API, or from a file at start or on `SIGHUP`).
    case manifestPublish = "manifest.publish"
    /// An earlier version of a manifest published again.
    case manifestRollback = "manifest.rollback"
    /// An app retired.
    case appRetire = "app.retire"
}
