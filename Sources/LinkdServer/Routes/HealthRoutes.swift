import HTTPTypes
import Hummingbird
import LinkStore
import Prometheus

/// `/readyz` (the store answers) and `/metrics` (Prometheus text); `/healthz` (the process answers) is a hot route
/// (`HotRouteTable.linkdRoutes`) answering `healthy`.
struct HealthRoutes: Sendable {
    let store: StoreFront
    let metrics: ServerMetrics

    func register(on router: Hummingbird.Router<LinkdRequestContext>) {
        router.get("/readyz") { _, _ in
            do {
                try await store.ping()
            } catch {
                throw APIError(.serviceUnavailable, .notReady, "the store does not answer")
            }
            return ReadyResponse.json(Array(#"{"status":"ready"}"#.utf8)).response
        }
        router.get("/metrics") { _, _ in
            metrics.setRevocationSetSize(store.revocations.count)
            if let version = store.changeFeedVersion { metrics.setChangeFeedVersion(version) }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer()))
            )
        }
    }

    /// The answer of `/healthz` (also given by the event-loop fast path).
    static let healthy = ReadyResponse.json(Array(#"{"status":"ok"}"#.utf8))
}
