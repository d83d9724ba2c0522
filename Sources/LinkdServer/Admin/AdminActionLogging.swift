import LinkdHTTP
import Logging

/// The admin-action log line (swift-log), so its wording and keys stay alike wherever an action is done.
extension Logger {
    /// The log line of an admin action (the same `action` names as the audit log), at notice: who did it (`actor`,
    /// an API key id) and what it touched (`metadata`: app, kid, key or link ids — never a secret).
    func logAdminAction(_ action: AuditAction, actor: String, _ metadata: Logger.Metadata) {
        var metadata = metadata
        metadata["action"] = "\(action.rawValue)"
        metadata["actor"] = "\(actor)"
        notice("admin action \(action.rawValue)", metadata: metadata)
    }
}
