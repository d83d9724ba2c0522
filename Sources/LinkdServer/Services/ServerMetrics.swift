import Hummingbird
import LinkRouter
import Prometheus
import Synchronization

/// The Prometheus registry of one server and the metrics it records.
///
/// Series are made once and kept (`Mutex`-guarded map for the request series, fixed sets for the rest), so
/// recording a request costs a dictionary lookup, not a registry lookup with label arrays.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let requestSeries = Mutex<[RequestKey: RequestSeries]>([:])
    private let resolutions: [Resolution.Outcome: Counter]
    private let verdicts: [String: Counter]
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

    init() {
        var resolutions: [Resolution.Outcome: Counter] = [:]
        for outcome in [Resolution.Outcome.route, .intercept, .notFound, .linkUnavailable] {
            resolutions[outcome] = registry.counter(.resolutions, labels: [("outcome", outcome.rawValue)])
        }
        self.resolutions = resolutions
        var verdicts: [String: Counter] = [:]
        for verdict in ["active", "revoked", "expired", "deleted", "unknown"] {
            verdicts[verdict] = registry.counter(.tokenVerdicts, labels: [("verdict", verdict)])
        }
        self.verdicts = verdicts
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
    func recordRequest(method: String, route: String, status: Int, duration: Duration) {
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

    /// Counts a resolution by outcome.
    func recordResolution(_ resolution: Resolution) {
        resolutions[resolution.outcome]?.increment()
    }

    /// Counts a share-token verdict (`active`, `revoked`, `expired`, `deleted`, `unknown`).
    func recordTokenVerdict(_ status: LinkStatus) {
        let name = switch status {
        case .active: "active"
        case .unavailable(_, let reason): reason.rawValue
        case .unknown: "unknown"
        }
        verdicts[name]?.increment()
    }

    /// Counts the verdict of the share token a resolution checked (its `link.status`: `active`, `revoked`,
    /// `expired`, `deleted`, `unknown`); nothing for a resolution without a share token.
    func recordTokenVerdict(of resolution: Resolution?) {
        guard let status = resolution?.link?.status else { return }
        verdicts[status]?.increment()
    }

    /// Sets the revocation-set size gauge.
    func setRevocationSetSize(_ count: Int) {
        registry.gauge(.revocationSetSize).set(to: Double(count))
    }

    /// Sets the shared store's change-feed version applied here (comparable across instances: the one behind lags).
    func setChangeFeedVersion(_ version: Int64) {
        registry.gauge(.storeChangeVersion).set(to: Double(version))
    }
}
