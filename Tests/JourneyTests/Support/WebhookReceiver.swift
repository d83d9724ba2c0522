import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import TokenSigning

/// A webhook receiver on loopback, in the test process (Hummingbird on a free port): it checks every delivery the
/// way the Standard Webhooks specification tells receivers to — `webhook-id`, `webhook-timestamp` within five
/// minutes, and one of the space-separated `v1,<base64>` signatures equal to the base64 HMAC-SHA256 (OpenSSL's
/// one-shot EVP_MAC, not linkd's signing path) of `id.timestamp.body` under the secret's base64-decoded bytes —
/// records it, and answers 204, or what it is told to fail with.
final class WebhookReceiver: Sendable {
    /// One request the receiver got.
    struct Delivery: Sendable {
        let path: String
        let id: String
        let timestamp: String
        let signature: String
        let contentType: String?
        let body: String
        /// Whether the signature checked out per the specification.
        let verified: Bool
        /// Whether the receiver took it (answered 2xx).
        let accepted: Bool

        /// The body as JSON.
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
        /// The body's `type`.
        var type: String? { json["type"] as? String }
        /// The body's `data`.
        var data: [String: Any] { json["data"] as? [String: Any] ?? [:] }
    }

    private struct State {
        var secrets: [String: String] = [:]
        var failures = 0
        var failStatus = 500
        var deliveries: [Delivery] = []
    }

    private let state = Mutex(State())

    /// Tells the receiver the secret of the endpoint at `path` (`/hook`).
    func setSecret(_ secret: String, path: String = "/hook") { state.withLock { $0.secrets[path] = secret } }
    /// The next `count` requests are answered `status` (Int.max: all of them until told otherwise).
    func fail(_ count: Int, status: Int = 500) { state.withLock { $0.failures = count; $0.failStatus = status } }
    /// Everything received so far, oldest first.
    var deliveries: [Delivery] { state.withLock { $0.deliveries } }
    /// What was received and taken, oldest first.
    var accepted: [Delivery] { deliveries.filter(\.accepted) }

    /// Runs the receiver while `body` runs, with its port.
    func run(_ body: @Sendable (_ port: Int) async throws -> Void) async throws {
        let router = Router()
        router.post("{path}") { request, context -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            return self.receive(request, path: "/" + (context.parameters.get("path") ?? ""), body: String(buffer: bytes))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            guard let port = client.port else { throw ReceiverError() }
            try await body(port)
        }
    }

    private struct ReceiverError: Error {}

    private func receive(_ request: Request, path: String, body: String) -> Response {
        func header(_ name: String) -> String { HTTPField.Name(name).flatMap { request.headers[$0] } ?? "" }
        let id = header("webhook-id"), timestamp = header("webhook-timestamp"), signature = header("webhook-signature")
        return state.withLock { state in
            let verified = state.secrets[path].map {
                Self.verify(secret: $0, id: id, timestamp: timestamp, body: body, signatures: signature)
            } ?? false
            let fails = state.failures > 0
            if fails && state.failures != Int.max { state.failures -= 1 }
            state.deliveries.append(Delivery(
                path: path, id: id, timestamp: timestamp, signature: signature,
                contentType: HTTPField.Name("content-type").flatMap { request.headers[$0] }, body: body, verified: verified,
                accepted: !fails))
            return Response(status: fails ? .init(code: state.failStatus) : .noContent)
        }
    }

    /// The specification's verification.
    static func verify(secret: String, id: String, timestamp: String, body: String, signatures: String) -> Bool {
        guard secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst(6))),
              let seconds = Int64(timestamp), abs(Int64(Date().timeIntervalSince1970) - seconds) <= 300, !id.isEmpty,
              let tag = try? RawCrypto.hmacSHA256(key: Array(key), message: Array("\(id).\(timestamp).\(body)".utf8))
        else { return false }
        let expected = Data(tag).base64EncodedString()
        return signatures.split(separator: " ").contains { candidate in
            let parts = candidate.split(separator: ",", maxSplits: 1)
            return parts.count == 2 && parts[0] == "v1" && parts[1] == expected
        }
    }
}
