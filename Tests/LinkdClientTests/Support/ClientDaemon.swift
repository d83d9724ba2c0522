import Foundation
import LinkdClient
import LinkdTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real `linkd serve` process (`LinkdDaemon`, with the demo manifests and a configuration of `configuration`'s lines)
/// and what the client tests need of it: its address, its admin key, client keys per app, clients.
final class ClientDaemon: Sendable {
    let daemon: LinkdDaemon
    let baseURL: URL
    let adminKey: String

    /// Starts the daemon (`LinkdDaemon.start`, off Swift's cooperative pool); `configuration` is YAML
    /// (`rateLimitPerSecond: 0`).
    static func start(configuration: String = "rateLimitPerSecond: 0\n") async throws -> ClientDaemon {
        try ClientDaemon(daemon: await LinkdDaemon.start(configuration: configuration))
    }

    private init(daemon: LinkdDaemon) throws {
        self.daemon = daemon
        guard let url = URL(string: daemon.baseURL), let key = daemon.initialAdminKey else {
            daemon.stop()
            throw HarnessError("the daemon gave no address or admin key: \(daemon.output)")
        }
        baseURL = url
        adminKey = key
    }

    /// The port it listens on.
    var port: Int { baseURL.port ?? 0 }

    /// A new client key of `app`, made with the admin key.
    func clientKey(app: String) async throws -> String {
        let reply = try await TestHTTP.send("POST", daemon.baseURL + "/v1/admin/api-keys", bearer: adminKey,
                                            json: ["kind": "client", "app": app, "label": "client tests"])
        guard reply.status == 201, let key = reply.json["key"] as? String else {
            throw HarnessError("cannot make a client key: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return key
    }

    /// A client of this daemon (its own `URLSession`, so that tests do not share connections).
    func client(apiKey: String? = nil, configuration: LinkdClient.Configuration = .init()) -> LinkdClient {
        LinkdClient(baseURL: baseURL, apiKey: apiKey, session: URLSession(configuration: .ephemeral), configuration: configuration)
    }

    /// `POST /v1/resolve` as raw bytes, sent by the test's own HTTP client: what the server says, untouched.
    func rawResolve(_ url: String, state: String) async throws -> TestHTTP.Reply {
        try await TestHTTP.send("POST", daemon.baseURL + "/v1/resolve", json: ["url": url, "state": state])
    }

    /// Stops the daemon: SIGTERM at once (so it stops even when the test process ends first), then, on a Dispatch
    /// thread, not waiting for it, SIGKILL if it lingers.
    func stop() {
        let daemon = self.daemon
        if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGTERM) }
        DispatchQueue.global().async { daemon.stop() }
    }
}
