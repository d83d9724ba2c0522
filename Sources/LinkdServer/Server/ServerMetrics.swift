import LinkRouter
import LinkdHTTP
import Prometheus

/// The server's series beside the HTTP ones: resolutions, share-token verdicts, the revocation set and the change
/// feed. It owns the process's `HTTPMetrics` (and through it the one registry), which the edge and the routes record
/// into.
final class ServerMetrics: Sendable {
    /// Requests, fast-path answers and connections: what the HTTP plumbing records.
    let http: HTTPMetrics
    private let resolutions: [Resolution.Outcome: Counter]
    private let verdicts: [String: Counter]

    /// The registry `/metrics` exports.
    var registry: PrometheusCollectorRegistry { http.registry }

    init() {
        http = HTTPMetrics()
        var resolutions: [Resolution.Outcome: Counter] = [:]
        for outcome in [Resolution.Outcome.route, .intercept, .notFound, .linkUnavailable] {
            resolutions[outcome] = http.registry.counter(.resolutions, labels: [("outcome", outcome.rawValue)])
        }
        self.resolutions = resolutions
        var verdicts: [String: Counter] = [:]
        for verdict in ["active", "revoked", "expired", "deleted", "unknown"] {
            verdicts[verdict] = http.registry.counter(.tokenVerdicts, labels: [("verdict", verdict)])
        }
        self.verdicts = verdicts
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

    /// Sets the link cache's gauges: its records and its bytes.
    func setLinkCache(records: Int, bytes: Int) {
        registry.gauge(.linkCacheRecords).set(to: Double(records))
        registry.gauge(.linkCacheBytes).set(to: Double(bytes))
    }

    /// Sets the shared store's change-feed version applied here (comparable across instances: the one behind lags).
    func setChangeFeedVersion(_ version: Int64) {
        registry.gauge(.storeChangeVersion).set(to: Double(version))
    }
}
