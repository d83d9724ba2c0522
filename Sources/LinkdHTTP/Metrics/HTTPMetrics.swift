package import Prometheus
import Synchronization

/// The Prometheus registry of one server and the HTTP-level series every listener records: requests by route pattern
/// and status, fast-path answers, connections. The server's own series (`ServerMetrics` and the feature metrics) are
/// made in the same registry.
///
/// Series are made once and kept (`Mutex`-guarded map for the request series, fixed sets for the rest), so
/// recording a request costs a dictionary lookup, not a registry lookup with label arrays.
package final class HTTPMetrics: Sendable {
    /// The registry `/metrics` exports; every series of the process is made in it.
    package let registry = PrometheusCollectorRegistry()
    private let requestSeries = Mutex<[RequestKey: RequestSeries]>([:])
    private let fastPathAnswers: Counter
    private let connectionsOpen: Gauge
    private let connectionRefusals: [ConnectionCounter.Refusal: Counter]
    private let connectionExpiries: [ConnectionExpiry: Counter]

    private struct RequestKey: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    private struct RequestSeries: Sendable {
        let count: Counter
        let duration: DurationHistogram
    }

    /// Makes the registry and the fixed series.
    package init() {
        fastPathAnswers = registry.counter(.fastPathAnswers)
        connectionsOpen = registry.gauge(.connectionsOpen)
        var refusals: [ConnectionCounter.Refusal: Counter] = [:]
        for reason in ConnectionCounter.Refusal.allCases {
            refusals[reason] = registry.counter(.connectionsRefused, labels: [("reason", reason.rawValue)])
        }
        connectionRefusals = refusals
        var expiries: [ConnectionExpiry: Counter] = [:]
        for reason in ConnectionExpiry.allCases {
            expiries[reason] = registry.counter(.connectionsClosed, labels: [("reason", reason.rawValue)])
        }
        connectionExpiries = expiries
    }

    /// Sets the open-connections gauge.
    func setOpenConnections(_ count: Int) {
        connectionsOpen.set(to: Double(count))
    }

    /// Counts a connection refused at a cap.
    func recordConnectionRefused(_ reason: ConnectionCounter.Refusal) {
        connectionRefusals[reason]?.increment()
    }

    /// Counts a connection linkd closed at a deadline.
    func recordConnectionClosed(_ reason: ConnectionExpiry) {
        connectionExpiries[reason]?.increment()
    }

    /// Counts a request and records its latency, by route pattern and status.
    package func recordRequest(method: String, route: String, status: Int, duration: Duration) {
        let key = RequestKey(method: method, route: route, status: status)
        let series = requestSeries.withLock { map in
            if let existing = map[key] { return existing }
            let labels = [("method", method), ("route", route), ("status", String(status))]
            let made = RequestSeries(
                count: registry.counter(.httpRequests, labels: labels),
                duration: registry.durationHistogram(
                    .httpRequestDuration, labels: labels,
                    buckets: [.microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
                              .milliseconds(10), .milliseconds(50), .milliseconds(250), .seconds(1)]))
            map[key] = made
            return made
        }
        series.count.increment()
        series.duration.record(duration)
    }

    /// Counts a request answered on the event loop from memory (`EdgeHandler`); the rest go through Hummingbird.
    func recordFastPathAnswer() {
        fastPathAnswers.increment()
    }
}
