/// The names of audited actions of the apps' manifests, as the audit log and the admin log lines write them.
enum AuditAction: String, Sendable {
    /// A manifest published (through the API, or from a file at start or on `SIGHUP`).
    case manifestPublish = "manifest.publish"
    /// An earlier version of a manifest published again.
    case manifestRollback = "manifest.rollback"
    /// An app retired.
    case appRetire = "app.retire"
}
