import LinkdHTTP
import LinkStore
import Prometheus

/// The webhook series of the server's registry: `linkd_webhook_deliveries_total{outcome}` (attempts by how they
/// ended: `delivered`, `retrying`, `failed`) and `linkd_webhook_outbox_depth` (deliveries waiting, read from the
/// store at each look at the outbox: on a shared store, every instance's).
final class WebhookMetrics: Sendable {
    private let attempts: [WebhookAttempt.Outcome: Counter]
    private let depth: Gauge

    /// Registers the series in `metrics`' registry.
    init(metrics: ServerMetrics) {
        var attempts: [WebhookAttempt.Outcome: Counter] = [:]
        for outcome in [WebhookAttempt.Outcome.delivered, .retrying, .failed] {
            attempts[outcome] = metrics.registry.counter(
                .webhookDeliveries, labels: [("outcome", outcome.rawValue)])
        }
        self.attempts = attempts
        depth = metrics.registry.gauge(.webhookOutboxDepth)
    }

    /// Counts one attempt.
    func record(_ outcome: WebhookAttempt.Outcome) {
        attempts[outcome]?.increment()
    }

    /// Sets the outbox depth.
    func setOutboxDepth(_ count: Int) {
        depth.set(to: Double(count))
    }
}
