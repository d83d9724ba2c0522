import Hummingbird
import Prometheus

/// The Prometheus registry of one server and the metrics it records.
struct ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()

    /// Counts a request and records its latency, by route pattern and status.
    func recordRequest(method: String, route: String, status: Int, duration: Duration) {
        let labels = [("method", method), ("route", route), ("status", String(status))]
        registry.makeCounter(name: "linkd_http_requests_total", labels: labels).increment()
        registry.makeDurationHistogram(
            name: "linkd_http_request_duration_seconds", labels: labels,
            buckets: [.microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
                      .milliseconds(10), .milliseconds(50), .milliseconds(250), .seconds(1)]
        ).record(duration)
    }

    /// Sets the revocation-set size gauge.
    func setRevocationSetSize(_ count: Int) {
        registry.makeGauge(name: "linkd_revocation_set_size").set(to: Double(count))
    }
}

/// Records every request into `ServerMetrics`, with the matched route pattern (not the raw path) as label.
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: response.status.code, start: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, context, status: status, start: start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, start: ContinuousClock.Instant) {
        metrics.recordRequest(
            method: request.method.rawValue, route: context.endpointPath ?? "unmatched", status: status,
            duration: ContinuousClock.now - start
        )
    }
}
