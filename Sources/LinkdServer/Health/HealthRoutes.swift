import HTTPTypes
import Hummingbird
import LinkdHTTP
import LinkStore
import Prometheus

/// `/readyz` (the store answers; one database ping a second at most, `ReadinessProbe`) and `/metrics` (Prometheus
/// text); `/healthz` (the process answers) is a hot route on the public listener (`HotRouteTable.linkdRoutes`)
/// answering `healthy`, and registered here, by `registerLiveness`, on the ops listener.
struct HealthRoutes: Sendable {
    let store: StoreFront
    let metrics: ServerMetrics
    let readiness: ReadinessProbe

    /// Routes of `store` and `metrics`, readiness pinging `store` at most once per `ReadinessProbe.maxAge`.
    init(store: StoreFront, metrics: ServerMetrics) {
        self.store = store
        self.metrics = metrics
        readiness = ReadinessProbe { try await store.ping() }
    }

    /// Registers `/readyz` and `/metrics`.
    func register(on router: some RouterMethods<LinkdRequestContext>) {
        router.get("/readyz") { _, _ in
            // Ready once every revocation is in memory: a load balancer sends no traffic to an instance still
            // judging tokens by store reads alone (correct, but every share page a store read).
            guard store.revocations.isLoaded else {
                throw APIError(.serviceUnavailable, .notReady, "the revocation set is still loading")
            }
            guard await readiness.isReady() else { throw APIError(.serviceUnavailable, .notReady, "the store does not answer") }
            return ReadyResponse.json(Array(#"{"status":"ready"}"#.utf8)).response
        }
        router.get("/metrics") { _, _ in
            metrics.setRevocationSetSize(store.revocations.count)
            metrics.setLinkCache(records: store.cachedLinkCount, bytes: store.cachedLinkBytes)
            if let version = store.changeFeedVersion { metrics.setChangeFeedVersion(version) }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer()))
            )
        }
    }

    /// Registers `/healthz` (the ops listener's; the public listener has it as a hot route).
    static func registerLiveness(on router: some RouterMethods<LinkdRequestContext>) {
        router.get("/healthz") { _, _ in healthy.response }
    }

    /// The answer of `/healthz` (also given by the event-loop fast path).
    static let healthy = ReadyResponse.json(Array(#"{"status":"ok"}"#.utf8))
}
