import HTTPTypes
import Hummingbird
import LinkStore
import Prometheus

/// `/healthz` (the process answers), `/readyz` (the store answers), `/metrics` (Prometheus text).
struct HealthRoutes: Sendable {
    let store: any LinkStorage
    let metrics: ServerMetrics

    func register(on router: Hummingbird.Router<LinkdRequestContext>) {
        router.get("/healthz") { _, _ in
            Self.json(#"{"status":"ok"}"#)
        }
        router.get("/readyz") { _, _ in
            do {
                try await store.ping()
            } catch {
                throw APIError(.serviceUnavailable, .notReady, "the store does not answer")
            }
            return Self.json(#"{"status":"ready"}"#)
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

    static func json(_ text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}
