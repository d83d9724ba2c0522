import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LinkStore
import LinkdTestSupport
import Logging
import NIOCore
import Synchronization

@testable import LinkdHTTP
@testable import LinkdServer

/// One HTTP exchange with the live server.
struct Reply {
    let status: Int
    let headers: HTTPFields
    let text: String

    /// The body as a JSON object (empty when it is not one).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }
    /// `error.code` of an error body.
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    /// A string field.
    func string(_ key: String) -> String? { json[key] as? String }
}

/// A client of a live linkd server in this process (real port, real HTTP) with the first-start admin key.
struct API {
    let client: any TestClientProtocol
    let adminKey: String
    let configuration: ServerConfiguration
    /// The server's store.
    let store: StoreFront
    /// The server's store's backend, through which a test can make it fail (`fault`) or reach the real one (`base`).
    let faults: FaultInjectingBackend
    /// The server's hot-route table.
    let hotRoutes: HotRouteTable
    /// The public listener's routes as registered.
    let routes: RouteCatalog
    /// The server's keys in force (how many token tags it checked: `keys.keyring.tagChecks`).
    let keys: KeysInForce
    /// The ops listener's port once it listens (with `opsPort` set).
    let opsListening: ListeningPort

    /// The ops listener's port, waiting up to 10 s for it to listen.
    func opsPort() async throws -> Int {
        for _ in 0..<200 {
            if let port = opsListening.port { return port }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HarnessError("the ops listener did not start")
    }

    /// Sends a request. `json` is sent as `application/json`; `raw` with `contentType` as is; `headers` are added.
    func call(
        _ method: HTTPRequest.Method, _ path: String, key: String? = nil, json: [String: Any]? = nil,
        raw: String? = nil, contentType: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        var headers = extra
        if let key { headers[.authorization] = "Bearer \(key)" }
        var body: ByteBuffer?
        if let json {
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
            headers[.contentType] = "application/json"
        }
        if let raw { body = ByteBuffer(string: raw) }
        if let contentType { headers[.contentType] = contentType }
        return try await client.execute(uri: path, method: method, headers: headers, body: body) { response in
            Reply(status: Int(response.status.code), headers: response.headers, text: String(buffer: response.body))
        }
    }

    /// `GET path` with `Host: host` (a page or well-known file of an app's host), over libcurl to the live port.
    func get(_ path: String, host: String) async throws -> Reply {
        guard let port = client.port else { throw HarnessError("the test server has no port") }
        let reply = try await TestHTTP.send("GET", "http://127.0.0.1:\(port)\(path)", headers: ["Host": host])
        var headers = HTTPFields()
        for (name, value) in reply.headers { if let field = HTTPField.Name(name) { headers[field] = value } }
        return Reply(status: reply.status, headers: headers, text: String(decoding: reply.body, as: UTF8.self))
    }

    /// Makes a client key for `app` with the admin key.
    func clientKey(app: String) async throws -> String {
        let reply = try await call(.post, "/v1/admin/api-keys", key: adminKey, json: ["kind": "client", "app": app, "label": "test \(app)"])
        guard reply.status == 201, let key = reply.string("key") else { throw HarnessError("cannot make a client key: \(reply.text)") }
        return key
    }

    /// Creates a Handz share link of `ShareLink/FlowView` (seed 001 §7.2: the view-only flow) and returns the answer (`id`, `token`, `url`).
    func createHandzLink(key: String, owner: String = "u1", suite: String? = nil) async throws -> [String: Any] {
        var body: [String: Any] = ["route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()], "owner": owner, "title": "Flow"]
        if let suite { body["suite"] = suite }
        let reply = try await call(.post, "/v1/links", key: key, json: body)
        guard reply.status == 201 else { throw HarnessError("cannot create a link: \(reply.status) \(reply.text)") }
        return reply.json
    }

    /// `POST /v1/resolve` of `url` in `state`; the resolution.
    func resolve(_ url: String, state: String) async throws -> [String: Any] {
        let reply = try await call(.post, "/v1/resolve", json: ["url": url, "state": state])
        guard reply.status == 200 else { throw HarnessError("resolve answered \(reply.status): \(reply.text)") }
        return reply.json
    }
}

/// The two stores (`StoreKind`, LinkdTestSupport) as the in-process server opens them.
extension StoreKind {
    /// Opens the store at `place`.
    func open(_ place: String) async throws -> StoreFront {
        switch self {
        case .sqlite: try await StoreFront.open(.sqlite(path: place))
        case .postgres: try await StoreFront.open(.postgres(url: place, timing: PostgresTiming(syncInterval: .milliseconds(200))))
        }
    }
}

/// Starts a server on the demo manifests in a fresh data directory (and, for `.postgres`, a fresh database) and
/// runs `body` against it once the revocation set is loaded. `logger`: where the server logs (default: swift-log's
/// stderr handler). `holdingRevocations`: the load of the revocation set waits until the test sets
/// `api.faults.holdsRevocations` to false (and `body` runs at once).
func withAPI(
    on backend: StoreKind = .sqlite,
    logger: Logger = Logger(label: "linkd"),
    holdingRevocations: Bool = false,
    _ adjust: (inout ServerConfiguration) -> Void = { _ in },
    _ body: @escaping @Sendable (API) async throws -> Void
) async throws {
    var configuration = ServerConfiguration.forTests(dataDir: temporaryDataDir(), logLevel: "warning")
    if backend == .postgres {
        configuration.store.database = try backend.freshPlace()
        configuration.store.syncIntervalSeconds = 0.2
    }
    adjust(&configuration)
    var wrapped: FaultInjectingBackend?
    let opsListening = ListeningPort()
    let server = try await buildServer(
        configuration: configuration, environment: [:], logger: logger,
        wrapBackend: { backend in
            let faulty = FaultInjectingBackend(backend)
            faulty.holdsRevocations = holdingRevocations
            wrapped = faulty
            return faulty
        },
        onOpsListening: { opsListening.port = $0 })
    guard let file = server.initialAdminKeyFile,
          let adminKey = (try? String(contentsOfFile: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    else { throw HarnessError("no admin key file on first start") }
    guard let faults = wrapped else { throw HarnessError("the store's backend was not wrapped") }
    let frozen = configuration
    let store = server.store, hotRoutes = server.hotRoutes, routes = server.routes, keys = server.keys
    if !holdingRevocations {
        let deadline = ContinuousClock.now + .seconds(30)
        while !store.revocations.isLoaded, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
    }
    try await server.application.test(.live) { client in
        try await body(API(
            client: client, adminKey: adminKey, configuration: frozen, store: store, faults: faults, hotRoutes: hotRoutes,
            routes: routes, keys: keys, opsListening: opsListening))
    }
}

/// A port a listener reports once it is bound.
final class ListeningPort: Sendable {
    private let value = Mutex<Int?>(nil)

    /// The bound port; nil until the listener reports it.
    var port: Int? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

extension ServerConfiguration {
    /// A daemon's configuration for in-process tests: any free port, the example manifests, the repository's
    /// templates, `dataDir` and `logLevel` as given.
    static func forTests(dataDir: String, logLevel: String) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.http.port = 0
        configuration.store.dataDir = dataDir
        configuration.links.manifests = exampleManifests
        configuration.ops.logLevel = logLevel
        configuration.pages.templatesDir = LinkdProcess.repositoryRoot.appendingPathComponent("templates").path
        return configuration
    }
}
