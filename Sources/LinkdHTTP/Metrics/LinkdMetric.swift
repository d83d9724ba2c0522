package import Prometheus

/// Every series family linkd exports at `/metrics`: its name and its one-line `# HELP` text, in one place.
///
/// The series are made through the `PrometheusCollectorRegistry` methods below, never by name: the registry stops
/// the process when one name is registered with two help texts, and a family listed here has exactly one.
package enum LinkdMetric: String, CaseIterable {
    // Requests and resolutions (ServerMetrics).
    case httpRequests = "linkd_http_requests_total"
    case httpRequestDuration = "linkd_http_request_duration_seconds"
    case resolutions = "linkd_resolutions_total"
    case tokenVerdicts = "linkd_token_verdicts_total"
    case fastPathAnswers = "linkd_fast_path_answers_total"
    case revocationSetSize = "linkd_revocation_set_size"
    case linkCacheRecords = "linkd_link_cache_records"
    case linkCacheBytes = "linkd_link_cache_bytes"
    case storeChangeVersion = "linkd_store_change_version"
    // Connections (ServerMetrics).
    case connectionsOpen = "linkd_connections_open"
    case connectionsRefused = "linkd_connections_refused_total"
    case connectionsClosed = "linkd_connections_closed_total"
    // Share pages, store redirects and claim codes (AnalyticsMetrics).
    case linkOpens = "linkd_link_opens_total"
    case storeRedirects = "linkd_store_redirects_total"
    case claims = "linkd_claims_total"
    case claimCodesWithheld = "linkd_claim_codes_withheld_total"
    case shareEventsDropped = "linkd_share_events_dropped_total"
    // Webhooks (WebhookMetrics).
    case webhookDeliveries = "linkd_webhook_deliveries_total"
    case webhookOutboxDepth = "linkd_webhook_outbox_depth"
    // ACME and TLS (ACMEStatus).
    case acmeOrders = "linkd_acme_orders_total"
    case tlsCertificateExpiry = "linkd_tls_certificate_expiry_seconds"

    /// The `# HELP` text: one line, what a sample counts and what its labels say.
    var help: String {
        switch self {
        case .httpRequests: "HTTP requests answered, by method, route pattern and status."
        case .httpRequestDuration: "Time to answer an HTTP request in seconds, by method, route pattern and status."
        case .resolutions: "Link resolutions (resolve endpoints and .ics items), by outcome."
        case .tokenVerdicts: "Share tokens checked, by verdict (active, revoked, expired, deleted, unknown)."
        case .fastPathAnswers: "Requests answered on the event loop from memory (the fast path)."
        case .revocationSetSize: "Entries in the in-memory revocation set."
        case .linkCacheRecords: "Link records in the in-memory link cache."
        case .linkCacheBytes: "Bytes the in-memory link cache takes (packed records and their indexes)."
        case .storeChangeVersion: "The shared store's change-feed version this instance has applied."
        case .connectionsOpen: "Client connections open."
        case .connectionsRefused: "Connections refused at a cap, by reason (total, per_client)."
        case .connectionsClosed: "Connections linkd closed at a deadline, by reason."
        case .linkOpens: "Share pages shown, by app and platform (ios, android, desktop; preview: link-preview crawlers)."
        case .storeRedirects: "Redirects to an app store, by app and platform."
        case .claims: "Deferred-link claim codes made, claimed and expired, by app and outcome."
        case .claimCodesWithheld: "Store redirects that went without a claim code, by reason."
        case .shareEventsDropped:
            "Share-page opens, store redirects and claim events left out of the stats: the share-event buffer was full of other links."
        case .webhookDeliveries: "Webhook delivery attempts, by how they ended (delivered, retrying, failed)."
        case .webhookOutboxDepth: "Webhook deliveries waiting in the store's outbox (every instance's)."
        case .acmeOrders: "ACME certificate orders, by outcome (issued, failed)."
        case .tlsCertificateExpiry: "The end of validity of each app's ACME certificate, as Unix time in seconds."
        }
    }

    /// The registry's description of the family: the full name as `metricName` (no unit appended), the help text.
    var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(metricName: rawValue, unitName: "", helpText: help)
    }
}

extension PrometheusCollectorRegistry {
    /// The counter of `metric` with `labels` (the same one for the same labels).
    package func counter(_ metric: LinkdMetric, labels: [(String, String)] = []) -> Counter {
        makeCounter(descriptor: metric.descriptor, labels: labels)
    }

    /// The gauge of `metric` with `labels` (the same one for the same labels).
    package func gauge(_ metric: LinkdMetric, labels: [(String, String)] = []) -> Gauge {
        makeGauge(descriptor: metric.descriptor, labels: labels)
    }

    /// The duration histogram of `metric` with `labels` (the same one for the same labels; the family's buckets are
    /// those of its first series).
    func durationHistogram(_ metric: LinkdMetric, labels: [(String, String)] = [], buckets: [Duration]) -> DurationHistogram {
        makeDurationHistogram(descriptor: metric.descriptor, labels: labels, buckets: buckets)
    }
}
