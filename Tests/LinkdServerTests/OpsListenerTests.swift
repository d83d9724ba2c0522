import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LinkdTestSupport
import LinkStore
import Synchronization
import Testing

@testable import LinkdServer

/// The ops listener (`opsHost`/`opsPort`) and `/readyz`'s one ping a second, on the live server.
@Suite("Ops listener and readiness")
struct OpsListenerTests {
    /// `GET path` (or `method path`) on `port` over a fresh connection.
    static func send(_ path: String, method: String = "GET", port: Int) async throws -> RawConnection.Response {
        let connection = try RawConnection(port: port)
        try await connection.send(HTTPSemanticsTests.request(method, path))
        return method == "HEAD" ? try await connection.readHead() : try await connection.read()
    }

    @Test("with opsPort set, /metrics and /readyz are served there and the public listener answers them 404")
    func opsListener() async throws {
        try await withAPI({ $0.ops.opsPort = 0 }) { api in
            let publicPort = try #require(api.client.port)
            let opsPort = try await api.opsPort()
            #expect(opsPort != publicPort)
            for path in ["/metrics", "/readyz"] {
                let refused = try await Self.send(path, port: publicPort)
                #expect(refused.status == 404 && refused.text.contains(#""code":"not_found""#), "\(path): \(refused.text)")
                #expect(try await api.call(.get, path).status == 404)
            }
            // /healthz stays on the public listener (a load balancer's liveness check), and is on the ops one too.
            #expect(try await Self.send("/healthz", port: publicPort).status == 200)
            #expect(try await Self.send("/healthz", port: opsPort).text == #"{"status":"ok"}"#)
            #expect(try await Self.send("/readyz", port: opsPort).text == #"{"status":"ready"}"#)
            let metrics = try await Self.send("/metrics", port: opsPort)
            #expect(metrics.status == 200 && metrics.header("Content-Type") == "text/plain; version=0.0.4")
            // The public listener's requests are counted, the public 404 for /metrics with them.
            #expect(metrics.text.contains(#"route="/healthz""#) && metrics.text.contains("linkd_revocation_set_size"))
            // The ops listener has the API's other semantics: 405 with Allow, HEAD, JSON 404; nothing else is there.
            let put = try await Self.send("/metrics", method: "PUT", port: opsPort)
            #expect(put.status == 405 && put.header("Allow") == "GET, HEAD")
            let head = try await Self.send("/readyz", method: "HEAD", port: opsPort)
            #expect(head.status == 200 && head.header("Content-Length") == "18")
            let elsewhere = try await Self.send("/v1/resolve?url=handz://library", port: opsPort)
            #expect(elsewhere.status == 404 && elsewhere.text.contains(#""code":"not_found""#))
            #expect(try await Self.send("/s/abc", port: opsPort).status == 404)
        }
    }

    @Test("without opsPort, everything is on the public listener as before")
    func noOpsListener() async throws {
        try await withAPI { api in
            for path in ["/metrics", "/readyz", "/healthz"] { #expect(try await api.call(.get, path).status == 200, "\(path)") }
            try await Task.sleep(for: .milliseconds(200))
            #expect(api.opsListening.port == nil)
        }
    }

    @Test("the ops listener's configuration: env and file keys, refused values")
    func configuration() throws {
        let set = try ServerConfiguration.load(file: nil, environment: ["LINKD_OPS_PORT": "9090", "LINKD_OPS_HOST": "0.0.0.0"])
        #expect(set.ops.opsPort == 9090 && set.resolvedOpsHost == "0.0.0.0" && set.hasOpsListener)
        let hostDefault = try ServerConfiguration.load(file: nil, environment: ["LINKD_OPS_PORT": "9090", "LINKD_HOST": "10.0.0.1"])
        #expect(hostDefault.resolvedOpsHost == "10.0.0.1")
        #expect(try !ServerConfiguration.load(file: nil, environment: [:]).hasOpsListener)
        let refused: [[String: String]] = [
            ["LINKD_OPS_PORT": "8080"],  // the public port
            ["LINKD_OPS_PORT": "70000"],
            ["LINKD_OPS_PORT": "-1"],
            ["LINKD_OPS_PORT": "metrics"],
            ["LINKD_OPS_HOST": "127.0.0.1"],  // a host without a port
        ]
        for environment in refused {
            #expect(throws: ConfigurationError.self, "\(environment)") { try ServerConfiguration.load(file: nil, environment: environment) }
        }
        // Both on port 0 (tests): each picks its own.
        #expect(throws: Never.self) { try ServerConfiguration.load(file: nil, environment: ["LINKD_OPS_PORT": "0"], port: 0) }
        let file = temporaryDataDir() + "-ops.yaml"
        try "opsHost: 127.0.0.2\nopsPort: 9091\n".write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try ServerConfiguration.load(file: file, environment: [:])
        #expect(fromFile.ops.opsHost == "127.0.0.2" && fromFile.ops.opsPort == 9091)
        try "opsPort: 8080\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: file, environment: [:]) }
    }

    @Test("/readyz pings the store at most once a second: concurrent and repeated checks share a ping")
    func readinessPingsOnceASecond() async throws {
        try await withAPI { api in
            #expect(api.faults.pings == 0)
            // At most one ping per started second (on a loaded machine the burst itself may take over a second).
            let start = ContinuousClock.now
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await api.call(.get, "/readyz").status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            for _ in 0..<5 { #expect(try await api.call(.get, "/readyz").status == 200) }
            let elapsed = ContinuousClock.now - start
            #expect(statuses == Array(repeating: 200, count: 20))
            let bound = 1 + Int(elapsed / .seconds(1))
            #expect((1...bound).contains(api.faults.pings), "\(api.faults.pings) pings in \(elapsed)")
            let before = api.faults.pings
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await api.call(.get, "/readyz").status == 200)
            #expect(api.faults.pings == before + 1)
        }
    }

    @Test("/readyz turns unready about a second after the store fails, and ready again as soon after it is back")
    func readinessFollowsTheStore() async throws {
        try await withAPI { api in
            #expect(try await api.call(.get, "/readyz").status == 200)
            /// How long after `since` the first check that started then got `status` (checks every 50 ms).
            func turns(to status: Int, since: ContinuousClock.Instant) async throws -> Duration? {
                while ContinuousClock.now - since < .seconds(5) {
                    let asked = ContinuousClock.now
                    if try await api.call(.get, "/readyz").status == status { return asked - since }
                    try await Task.sleep(for: .milliseconds(50))
                }
                return nil
            }
            api.faults.fault = .unavailable
            let failed = try #require(try await turns(to: 503, since: .now), "never unready")
            #expect(try await api.call(.get, "/readyz").errorCode == "not_ready")
            api.faults.fault = .none
            let back = try #require(try await turns(to: 200, since: .now), "never ready again")
            // The bound is a second (the cached answer's age) and the time of a check; loaded machines are slow.
            #expect(failed < .milliseconds(2000) && back < .milliseconds(2000), "unready after \(failed), ready after \(back)")
        }
    }

    @Test("ReadinessProbe: one ping for concurrent checks, the answer kept for maxAge, then a fresh ping")
    func probe() async throws {
        let pings = Mutex(0)
        let failing = Mutex(false)
        let ping: @Sendable () async throws -> Void = {
            pings.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(50))
            if failing.withLock({ $0 }) { throw HarnessError("down") }
        }
        // A long maxAge: what is checked is sharing, not timing.
        let probe = ReadinessProbe(maxAge: .seconds(30), ping: ping)
        let answers = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 { group.addTask { await probe.isReady() } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0 } && pings.withLock { $0 } == 1)
        failing.withLock { $0 = true }
        #expect(await probe.isReady())  // the kept answer
        #expect(pings.withLock { $0 } == 1)
        // A short maxAge: once it has passed, the next check pings again and reports the failure.
        let short = ReadinessProbe(maxAge: .milliseconds(100), ping: ping)
        #expect(await !short.isReady())
        failing.withLock { $0 = false }
        try await Task.sleep(for: .milliseconds(150))
        #expect(await short.isReady())
        #expect(pings.withLock { $0 } == 3)
    }

    @Test("until the revocation set is loaded: /healthz answers, /readyz is 503, a link revoked in the store is refused")
    func revocationSetLoadingInBackground() async throws {
        try await withAPI(holdingRevocations: true) { api in
            #expect(!api.store.revocations.isLoaded)
            #expect(try await api.call(.get, "/healthz").status == 200, "the listener opens without waiting for the load")
            let loading = try await api.call(.get, "/readyz")
            #expect(loading.status == 503 && loading.errorCode == "not_ready" && loading.text.contains("revocation set"), "\(loading.text)")
            // A link revoked in the store (as before this start, or by another instance), not in memory: until the
            // set holds it, the token is judged by its record, read from the store — refused, never served.
            let client = try await api.clientKey(app: "handz")
            let link = try await api.createHandzLink(key: client)
            let id = try #require(link["id"] as? String), token = try #require(link["token"] as? String)
            let url = try #require(link["url"] as? String)
            let revoked = try #require(try await api.faults.base.revokeLink(id: id, at: Date(), audit: nil))
            let generation = UInt32(revoked.generation)
            #expect(!api.store.isRevoked(linkID: id, generation: generation))
            #expect(try await api.call(.get, "/s/\(token)").status == 410)
            let resolution = try await api.resolve(url, state: "free")
            #expect(resolution["outcome"] as? String == "linkUnavailable", "\(resolution)")
            // The load finishes: ready, and the set holds the revocation.
            api.faults.holdsRevocations = false
            var ready = false
            for _ in 0..<500 where !ready {
                ready = try await api.call(.get, "/readyz").status == 200
                if !ready { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(ready && api.store.revocations.isLoaded)
            #expect(api.store.isRevoked(linkID: id, generation: generation))
            #expect(try await api.call(.get, "/s/\(token)").status == 410)
        }
    }
}
