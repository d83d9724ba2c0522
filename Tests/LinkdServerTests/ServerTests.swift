import Foundation
import Hummingbird
import HummingbirdTesting
import LinkdTestSupport
import Testing

@testable import LinkdServer

private func tempDataDir() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("linkd-e2e-\(UUID().uuidString)").path
}

@Suite("Server")
struct ServerTests {
    @Test("health, readiness and metrics answer on a live server")
    func health() async throws {
        let configuration = ServerConfiguration(port: 0, dataDir: tempDataDir())
        let app = try await buildServer(configuration: configuration).application
        try await app.test(.live) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == #"{"status":"ok"}"#)
            }
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                let text = String(buffer: response.body)
                #expect(text.contains("linkd_http_requests_total"))
                #expect(text.contains("route=\"/healthz\""))
                #expect(text.contains("linkd_revocation_set_size"))
            }
            try await client.execute(uri: "/nope", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: configuration.dataDir)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        #expect(FileManager.default.fileExists(atPath: configuration.dataDir + "/linkd.sqlite"))
    }
}

@Suite("Server metrics")
struct ServerMetricsTests {
    /// Every sample of `/metrics` by its series (name and labels, as written).
    static func samples(_ api: API) async throws -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in try await api.call(.get, "/metrics").text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    @Test("request durations, resolutions by outcome and token verdicts move with known requests, on both paths")
    func countersMove() async throws {
        try await withAPI { api in
            let port = try #require(api.client.port)
            let key = try await api.clientKey(app: "handz")
            let url = try #require(try await api.createHandzLink(key: key)["url"] as? String)
            let revoked = try await api.createHandzLink(key: key)
            #expect(try await api.call(.delete, "/v1/links/\(revoked["id"] as? String ?? "")", key: key).status == 200)
            let revokedURL = try #require(revoked["url"] as? String)
            let forgedURL = String(url.dropLast()) + (url.hasSuffix("A") ? "B" : "A")
            let before = try await Self.samples(api)
            func moved(_ series: String, _ now: [String: Double]) -> Double { (now[series] ?? 0) - (before[series] ?? 0) }

            // Keep-alive: the first resolution reads the link record (router), the second is answered from memory
            // (fast path); `Connection: close` always goes to the router.
            let connection = try RawConnection(port: port)
            let get = "GET /v1/resolve?url=\(FastPathTests.encoded(url))&state=free HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            for request in [get + "\r\n", get + "\r\n", FastPathTests.post("/v1/resolve", json: #"{"url":"\#(url)","state":"free"}"#)] {
                try await connection.send(request)
                #expect(try await connection.read().status == 200)
            }
            let closing = try RawConnection(port: port)
            try await closing.send(get + "Connection: close\r\n\r\n")
            #expect(try await closing.read().status == 200)
            for other in [revokedURL, forgedURL, "handz://library"] {
                #expect(try await api.call(.get, "/v1/resolve?url=\(FastPathTests.encoded(other))&state=free").status == 200)
            }
            let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:1\r\nURL:\(url)\r\nEND:VEVENT\r\n"
                + "BEGIN:VEVENT\r\nUID:2\r\nURL:\(revokedURL)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            let calendar = try await api.call(.post, "/v1/resolve/ics?state=free", raw: ics, contentType: "text/calendar")
            #expect(calendar.status == 200 && (calendar.json["items"] as? [Any])?.count == 2)

            let after = try await Self.samples(api)
            #expect(moved("linkd_fast_path_answers_total", after) >= 2, "both paths were taken")
            // One verdict per token checked: 4 resolutions and 1 calendar item of the live link, 2 of the revoked one.
            #expect(moved(#"linkd_token_verdicts_total{verdict="active"}"#, after) == 5)
            #expect(moved(#"linkd_token_verdicts_total{verdict="revoked"}"#, after) == 2)
            #expect(moved(#"linkd_token_verdicts_total{verdict="unknown"}"#, after) == 1)
            #expect(moved(#"linkd_token_verdicts_total{verdict="expired"}"#, after) == 0)
            // Resolutions, calendar items included: the live link 4 times, handz://library and the calendar's live item;
            // the revoked link and the calendar's revoked item; forged (unknown) resolves to notFound.
            #expect(moved(#"linkd_resolutions_total{outcome="route"}"#, after) == 6)
            #expect(moved(#"linkd_resolutions_total{outcome="linkUnavailable"}"#, after) == 3)
            let labels = #"method="GET",route="/v1/resolve",status="200""#
            #expect(moved("linkd_http_request_duration_seconds_count{\(labels)}", after) == 6)
            #expect(moved("linkd_http_request_duration_seconds_sum{\(labels)}", after) > 0)
            #expect(moved("linkd_http_requests_total{\(labels)}", after) == 6)
            #expect(moved(#"linkd_http_request_duration_seconds_count{method="POST",route="/v1/resolve",status="200"}"#, after) == 1)
            #expect(moved(#"linkd_http_request_duration_seconds_count{method="POST",route="/v1/resolve/ics",status="200"}"#, after) == 1)
            #expect(after.keys.contains { $0.hasPrefix("linkd_http_request_duration_seconds_bucket{\(labels),le=") })
        }
    }
}

@Suite("ServerConfiguration")
struct ServerConfigurationTests {
    /// The path of `NAME.yaml` in a fresh directory (not yet written).
    static func configFile(_ name: String) throws -> String {
        let dir = tempDataDir()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir + "/\(name).yaml"
    }

    @Test("defaults, then file, then environment, then flags")
    func precedence() throws {
        let file = try Self.configFile("linkd")
        try "host: 0.0.0.0\nport: 9000\nmaxBodyBytes: 1024\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try ServerConfiguration.load(file: nil, environment: [:]) == ServerConfiguration())
        let fromFile = try ServerConfiguration.load(file: file, environment: [:])
        #expect(fromFile.host == "0.0.0.0" && fromFile.port == 9000 && fromFile.maxBodyBytes == 1024)
        let fromEnv = try ServerConfiguration.load(file: nil, environment: ["LINKD_CONFIG": file, "LINKD_PORT": "9100"])
        #expect(fromEnv.port == 9100 && fromEnv.host == "0.0.0.0")
        let fromFlags = try ServerConfiguration.load(file: file, environment: ["LINKD_PORT": "9100"], port: 9200, dataDir: "/tmp/x")
        #expect(fromFlags.port == 9200 && fromFlags.dataDir == "/tmp/x")
        let manifests = try ServerConfiguration.load(file: nil, environment: ["LINKD_MANIFESTS": "a.yaml, b.yaml"])
        #expect(manifests.manifests == ["a.yaml", "b.yaml"])
        try "fastPath: false\neventLoopThreads: 1\n".write(toFile: file, atomically: true, encoding: .utf8)
        let serving = try ServerConfiguration.load(file: file, environment: ["LINKD_EVENT_LOOP_THREADS": "3"])
        #expect(serving.fastPath == false && serving.eventLoopThreads == 3)
    }

    @Test("bad values are refused with a message naming the culprit")
    func badValues() throws {
        let file = try Self.configFile("bad")
        try "port: [1, 2]\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: file, environment: [:]) }
        try "prot: 1\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: file, environment: [:]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: nil, environment: ["LINKD_PORT": "eighty"]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: nil, environment: ["LINKD_EVENT_LOOP_THREADS": "two"]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: nil, environment: ["LINKD_EVENT_LOOP_THREADS": "999"]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: nil, environment: [:], port: 70000) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: file + ".missing", environment: [:]) }
    }
}

extension ServerConfigurationTests {
    @Test("a file sets every key, each read as its key's type; plain and quoted scalars read alike")
    func everyKeyFromAFile() throws {
        let file = try Self.configFile("all")
        try """
            host: "0.0.0.0"
            port: '9000'
            dataDir: /var/lib/linkd
            manifests: [/etc/linkd/a.yaml, "/etc/linkd/b.yaml"]
            linkCacheCapacity: 500
            maxTTLSeconds: 86400
            defaultTTLSeconds: 3600
            maxBodyBytes: 4096
            clickFlushSeconds: 0.5
            logLevel: debug
            rateLimitPerSecond: 0
            rateLimitBurst: 1e2
            authFailuresPerMinute: 5
            templatesDir: /usr/share/linkd/templates
            appTemplates: {handz: /etc/linkd/handz}
            previewWaitMilliseconds: 150
            maxOriginFetches: 8
            database: postgres://linkd@db.internal:5432/linkd
            syncIntervalSeconds: 1.5
            eventLoopThreads: 2
            fastPath: false
            opsHost: 127.0.0.2
            opsPort: 9100

            """.write(toFile: file, atomically: true, encoding: .utf8)
        let read = try ServerConfiguration.load(file: file, environment: [:])
        var expected = ServerConfiguration(
            host: "0.0.0.0", port: 9000, dataDir: "/var/lib/linkd", manifests: ["/etc/linkd/a.yaml", "/etc/linkd/b.yaml"],
            linkCacheCapacity: 500, maxTTLSeconds: 86400, defaultTTLSeconds: 3600, maxBodyBytes: 4096, clickFlushSeconds: 0.5,
            logLevel: "debug", rateLimitPerSecond: 0, rateLimitBurst: 100, authFailuresPerMinute: 5,
            templatesDir: "/usr/share/linkd/templates", appTemplates: ["handz": "/etc/linkd/handz"], previewWaitMilliseconds: 150,
            maxOriginFetches: 8, database: "postgres://linkd@db.internal:5432/linkd", syncIntervalSeconds: 1.5, eventLoopThreads: 2,
            fastPath: false)
        expected.opsHost = "127.0.0.2"
        expected.opsPort = 9100
        #expect(read == expected)
        // Every key of the configuration is one the file can set.
        #expect(Set(ServerConfiguration.Key.allCases.map(\.rawValue)).count == 23)
        try "database: null\n# only a comment\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try ServerConfiguration.load(file: file, environment: [:]).database == nil)
        try "\n# nothing but comments\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try ServerConfiguration.load(file: file, environment: [:]) == ServerConfiguration())
    }

    @Test("a wrong type, an unknown or repeated key names the file, the line and the key")
    func fileMessages() throws {
        let file = try Self.configFile("bad")
        let cases: [(String, String)] = [
            ("host: 127.0.0.1\nport: eighty\n", "\(file):2: 'port' must be an integer"),
            ("fastPath: yes\n", "\(file):1: 'fastPath' must be true or false"),
            ("clickFlushSeconds: .inf\n", "\(file):1: 'clickFlushSeconds' must be a number"),
            ("manifests: a.yaml\n", "\(file):1: 'manifests' must be a list of strings"),
            ("appTemplates: [a]\n", "\(file):1: 'appTemplates' must be a mapping of strings"),
            ("host: [a]\n", "\(file):1: 'host' must be a string"),
            ("port: 1\nport: 2\n", "\(file): Parser: expected all keys to be unique"),
            ("\nprot: 1\n", "\(file):2: unknown key 'prot'"),
            ("- port\n", "\(file): the top level must be a mapping of keys"),
            ("port: [1\n", "\(file): "),
        ]
        for (text, message) in cases {
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            do {
                _ = try ServerConfiguration.load(file: file, environment: [:])
                Issue.record("accepted: \(text)")
            } catch let error as ConfigurationError {
                #expect(error.message.hasPrefix(message), "\(error.message)")
            }
        }
    }
}

@Suite("RateLimiter")
struct RateLimiterTests {
    @Test("a burst passes, the next request is refused, tokens refill with time, clients are separate")
    func buckets() {
        let limiter = RateLimiter(perSecond: 2, burst: 3)
        #expect((0..<3).allSatisfy { _ in limiter.allow("a", now: 100) })
        #expect(!limiter.allow("a", now: 100))
        #expect(limiter.allow("b", now: 100))
        #expect(limiter.allow("a", now: 100.5))
        #expect(!limiter.allow("a", now: 100.5))
        #expect(!limiter.allow("a", cost: 5, now: 200))
    }

    @Test("Retry-After: whole seconds until the bucket that refused has a token again, at least 1")
    func secondsUntilAvailable() {
        let limiter = RateLimiter(perSecond: 0.25, burst: 2)
        #expect(limiter.secondsUntilAvailable("a", now: 10) == 1, "a client with no bucket is not waiting")
        #expect(limiter.allow("a", now: 10) && limiter.allow("a", now: 10) && !limiter.allow("a", now: 10))
        #expect(limiter.secondsUntilAvailable("a", now: 10) == 4)
        #expect(limiter.secondsUntilAvailable("a", now: 12) == 2)
        #expect(limiter.secondsUntilAvailable("a", now: 13.5) == 1, "0.375 s rounds up to 1")
        #expect(limiter.secondsUntilAvailable("a", cost: 2, now: 10) == 8)
        // The auth-failure bucket: 10 a minute, burst 10: a token every 6 s once it is empty.
        let failures = RateLimiter(perSecond: 10.0 / 60, burst: APIKeyAuthenticator.failureBurst)
        for _ in 0..<10 { _ = failures.allow("b", now: 0) }
        #expect(!failures.peek("b", now: 0))
        #expect(failures.secondsUntilAvailable("b", now: 0) == 6)
        #expect(failures.peek("b", now: 6.01))
        #expect(RateLimiter(perSecond: 1e-9, burst: 1).secondsUntilAvailable("c", cost: 2, now: 0) == RateLimiter.maxRetryAfterSeconds)
    }

    @Test("memory stays bounded by maxClients")
    func bounded() {
        let limiter = RateLimiter(perSecond: 1, burst: 1, maxClients: 10)
        for n in 0..<1000 { _ = limiter.allow("client\(n)", now: 1) }
        #expect(limiter.clientCount <= 10)
        #expect(limiter.allow("fresh", now: 1))
    }
}
