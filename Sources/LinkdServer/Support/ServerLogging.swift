import Logging

/// The server's structured log lines (swift-log), one function per kind, so their wording and keys stay alike.
extension Logger {
    /// The request log: one debug line per request — method, route pattern (never the raw path, which may carry a
    /// token), status and duration in milliseconds. Nothing is formatted unless debug is on.
    func logRequest(method: String, route: String, status: Int, duration: Duration) {
        guard logLevel <= .debug else { return }
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        debug("request", metadata: [
            "method": "\(method)", "route": "\(route)", "status": "\(status)", "durationMs": "\(milliseconds)",
        ])
    }

    /// The log line of an admin action (the same `action` names as the audit log), at notice: who did it (`actor`,
    /// an API key id) and what it touched (`metadata`: app, kid, key or link ids — never a secret).
    func logAdminAction(_ action: AuditAction, actor: String, _ metadata: Logger.Metadata) {
        var metadata = metadata
        metadata["action"] = "\(action.rawValue)"
        metadata["actor"] = "\(actor)"
        notice("admin action \(action.rawValue)", metadata: metadata)
    }
}
