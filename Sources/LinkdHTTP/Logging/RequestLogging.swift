package import Logging

extension Logger {
    /// The request log: one debug line per request — method, route pattern (never the raw path, which may carry a
    /// token), status and duration in milliseconds. Nothing is formatted unless debug is on.
    package func logRequest(method: String, route: String, status: Int, duration: Duration) {
        guard logLevel <= .debug else { return }
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        debug("request", metadata: [
            "method": "\(method)", "route": "\(route)", "status": "\(status)", "durationMs": "\(milliseconds)",
        ])
    }
}
