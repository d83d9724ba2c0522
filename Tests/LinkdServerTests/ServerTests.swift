import Foundation
import Hummingbird
import HummingbirdTesting
import LinkdTestSupport
import Testing

@testable import LinkdHTTP
@testable import LinkdServer

private func tempDataDir() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("linkd-e2e-\(UUID().uuidString)").path
}

@Suite("Server")
struct ServerTests {
    @Test("health, readiness and metrics answer on a live server")
    func health() async throws {
        var configuration = ServerConfiguration()
        configuration.http.port = 0
        configuration.store.dataDir = tempDataDir()
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
        let attributes = try FileManager.default.attributesOfItem(atPath: configuration.store.dataDir)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        #expect(FileManager.default.fileExists(atPath: configuration.store.dataDir + "/linkd.sqlite"))
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
            let forgedURL = ForgedToken.badTag(url)
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
        #expect(fromFile.http.host == "0.0.0.0" && fromFile.http.port == 9000 && fromFile.http.maxBodyBytes == 1024)
        let fromEnv = try ServerConfiguration.load(file: nil, environment: ["LINKD_CONFIG": file, "LINKD_PORT": "9100"])
        #expect(fromEnv.http.port == 9100 && fromEnv.http.host == "0.0.0.0")
        let fromFlags = try ServerConfiguration.load(file: file, environment: ["LINKD_PORT": "9100"], port: 9200, dataDir: "/tmp/x")
        #expect(fromFlags.http.port == 9200 && fromFlags.store.dataDir == "/tmp/x")
        let manifests = try ServerConfiguration.load(file: nil, environment: ["LINKD_MANIFESTS": "a.yaml, b.yaml"])
        #expect(manifests.links.manifests == ["a.yaml", "b.yaml"])
        try "fastPath: false\neventLoopThreads: 1\n".write(toFile: file, atomically: true, encoding: .utf8)
        let serving = try ServerConfiguration.load(file: file, environment: ["LINKD_EVENT_LOOP_THREADS": "3"])
        #expect(serving.http.fastPath == false && serving.http.eventLoopThreads == 3)
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
        for (text, message) in [
            ("headTimeoutSeconds: 0\n", "headTimeoutSeconds must be"), ("idleTimeoutSeconds: 99999\n", "idleTimeoutSeconds must be"),
            ("maxConnections: 10\nmaxConnectionsPerClient: 11\n", "maxConnections must be"),
            ("trustedProxies: [10.0.0.0/33]\n", "trustedProxies: '10.0.0.0/33' is not"),
            ("shareEventBufferCapacity: 0\n", "shareEventBufferCapacity must be 1–10000000"),
            ("shareEventBufferCapacity: 10000001\n", "shareEventBufferCapacity must be 1–10000000"),
            ("linkCacheMegabytes: 0\n", "linkCacheMegabytes must be 1–65536"),
            ("fullResyncSeconds: 5\n", "fullResyncSeconds must be 10–86400"),
            ("linkCacheWarmup: maybe\n", "linkCacheWarmup"),
        ] {
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            #expect(throws: ConfigurationError.self, "\(text)") { try ServerConfiguration.load(file: file, environment: [:]) }
            do { _ = try ServerConfiguration.load(file: file, environment: [:]) } catch let error as ConfigurationError {
                #expect(error.message.contains(message), "\(error.message)")
            }
        }
        let proxies = try ServerConfiguration.load(file: nil, environment: ["LINKD_TRUSTED_PROXIES": "10.0.0.1, 192.168.0.0/16"])
        #expect(proxies.http.trustedProxies == ["10.0.0.1", "192.168.0.0/16"])
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: nil, environment: ["LINKD_TRUSTED_PROXIES": "proxy.local"]) }
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
            linkCacheMegabytes: 64
            linkCacheWarmup: false
            maxTTLSeconds: 86400
            defaultTTLSeconds: 3600
            importMaxBytes: 1048576
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
            fullResyncSeconds: 120
            eventLoopThreads: 2
            fastPath: false
            headTimeoutSeconds: 5
            bodyTimeoutSeconds: 20
            idleTimeoutSeconds: 60
            writeTimeoutSeconds: 15
            maxConnections: 2000
            maxConnectionsPerClient: 64
            trustedProxies: [10.0.0.0/8, "2001:db8::1"]
            opsHost: 127.0.0.2
            opsPort: 9100
            maxLiveClaimCodesPerLink: 50
            shareEventBufferCapacity: 5000
            tls:
              port: 8443
              host: 0.0.0.0
              certificates:
                - { certificate: /etc/linkd/a.pem, privateKey: /etc/linkd/a.key }
              redirectHTTP: true
              hstsMaxAgeSeconds: 600
              handshakeTimeoutSeconds: 5
            acme:
              directory: https://acme.example/dir
              email: ops@example.com
              caCertificates: /etc/linkd/ca.pem
              checkIntervalSeconds: 30
              retryBaseSeconds: 10

            """.write(toFile: file, atomically: true, encoding: .utf8)
        let read = try ServerConfiguration.load(file: file, environment: [:])
        var expected = ServerConfiguration()
        (expected.http.host, expected.http.port, expected.http.eventLoopThreads, expected.http.fastPath) = ("0.0.0.0", 9000, 2, false)
        (expected.http.trustedProxies, expected.http.maxBodyBytes) = (["10.0.0.0/8", "2001:db8::1"], 4096)
        (expected.store.dataDir, expected.store.database) = ("/var/lib/linkd", "postgres://linkd@db.internal:5432/linkd")
        (expected.store.syncIntervalSeconds, expected.store.linkCacheCapacity, expected.store.clickFlushSeconds) = (1.5, 500, 0.5)
        (expected.store.linkCacheMegabytes, expected.store.linkCacheWarmup) = (64, false)
        expected.links.manifests = ["/etc/linkd/a.yaml", "/etc/linkd/b.yaml"]
        (expected.links.maxTTLSeconds, expected.links.defaultTTLSeconds) = (86400, 3600)
        expected.links.importMaxBytes = 1 << 20
        expected.ops.logLevel = "debug"
        (expected.limits.rateLimitPerSecond, expected.limits.rateLimitBurst, expected.limits.authFailuresPerMinute) = (0, 100, 5)
        (expected.pages.templatesDir, expected.pages.appTemplates) = ("/usr/share/linkd/templates", ["handz": "/etc/linkd/handz"])
        (expected.pages.previewWaitMilliseconds, expected.pages.maxOriginFetches) = (150, 8)
        (expected.edge.headTimeoutSeconds, expected.edge.bodyTimeoutSeconds) = (5, 20)
        (expected.edge.idleTimeoutSeconds, expected.edge.writeTimeoutSeconds) = (60, 15)
        (expected.edge.maxConnections, expected.edge.maxConnectionsPerClient) = (2000, 64)
        expected.ops.opsHost = "127.0.0.2"
        expected.ops.opsPort = 9100
        expected.claims.maxLiveClaimCodesPerLink = 50
        expected.store.shareEventBufferCapacity = 5000
        expected.store.fullResyncSeconds = 120
        expected.tls.port = 8443
        expected.tls.host = "0.0.0.0"
        expected.tls.certificates = [CertificateFiles(certificate: "/etc/linkd/a.pem", privateKey: "/etc/linkd/a.key")]
        expected.tls.redirectHTTP = true
        expected.tls.hstsMaxAgeSeconds = 600
        expected.tls.handshakeTimeoutSeconds = 5
        expected.acme.directory = "https://acme.example/dir"
        expected.acme.email = "ops@example.com"
        expected.acme.caCertificates = "/etc/linkd/ca.pem"
        expected.acme.checkIntervalSeconds = 30
        expected.acme.retryBaseSeconds = 10
        #expect(read == expected)
        // Every key of the configuration is one the file can set.
        #expect(Set(ServerConfiguration.fileKeyNames).count == 49)
        try "database: null\n# only a comment\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try ServerConfiguration.load(file: file, environment: [:]).store.database == nil)
        try "\n# nothing but comments\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try ServerConfiguration.load(file: file, environment: [:]) == ServerConfiguration())
    }

    @Test("docs/configuration.md names every key of every section and every environment variable")
    func everyKeyDocumented() throws {
        let docs = try String(
            contentsOf: LinkdProcess.repositoryRoot.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let nested = ServerConfiguration.nestedKeys
        let names = ServerConfiguration.fileKeyNames + TLSSettings.keys.map { "tls.\($0.name)" }
            + ACMESettings.keys.map { "acme.\($0.name)" }
        let variables = (ServerConfiguration.flatKeys + nested).compactMap(\.variable)
        #expect(names.count == 60 && variables.count >= 20)
        // A key is named in backticks, nested ones by their own name in their table.
        let missing = names.filter { name in !docs.contains("`\(name)`") && !docs.contains("`\(name.split(separator: ".").last!)`") }
        #expect(missing.isEmpty, "keys docs/configuration.md does not name: \(missing)")
        let unnamed = variables.filter { !docs.contains($0) }
        #expect(unnamed.isEmpty, "variables docs/configuration.md does not name: \(unnamed)")
        // Each key is declared once: no name twice in the flat keys, none twice in a nested mapping.
        #expect(Set(ServerConfiguration.fileKeyNames).count == ServerConfiguration.fileKeyNames.count)
        #expect(Set(variables).count == variables.count)
    }

    @Test("a wrong type, an unknown or repeated key names the file, the line and the key")
    func fileMessages() throws {
        let file = try Self.configFile("bad")
        let cases: [(String, String)] = [
            ("host: 127.0.0.1\nport: eighty\n", "\(file):2: 'port' must be an integer"),
            ("fastPath: yes\n", "\(file):1: 'fastPath' must be true or false"),
            ("clickFlushSeconds: .inf\n", "\(file):1: 'clickFlushSeconds' must be a number"),
            ("manifests: a.yaml\n", "\(file):1: 'manifests' must be a list of strings"),
            ("tls:\n  prot: 443\n", "\(file):2: unknown key 'tls.prot'"),
            ("tls:\n  port: https\n", "\(file):2: 'tls.port' must be an integer"),
            ("tls:\n  port: 443\n  certificates: [a.pem]\n", "\(file):3: each of 'tls.certificates' is {certificate: PEM file, privateKey: PEM file}"),
            ("tls:\n  port: 443\n", "\(file): tls.port is set but there are no certificates"),
            ("acme:\n  directory: http://acme.example/dir\n", "\(file): acme.directory must be an https:// URL"),
            ("acme:\n  directory: https://acme.example/dir\n", "\(file): acme needs tls.port"),
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
    }

    @Test("a costly request passes on one token and leaves the bucket in debt, which later requests wait out")
    func costs() {
        let limiter = RateLimiter(perSecond: 1, burst: 4)
        #expect(limiter.allow("a", cost: 10, now: 0), "a full bucket lets a costly request through")
        #expect(!limiter.allow("a", now: 0))
        #expect(limiter.secondsUntilAvailable("a", now: 0) == 5, "debt floors at -burst: -4 → 1 takes 5 s")
        #expect(!limiter.allow("a", now: 4.9))
        #expect(limiter.allow("a", now: 5))
        // A cheap client beside it is not charged for the other's cost.
        #expect((0..<4).allSatisfy { _ in limiter.allow("b", now: 0) })
    }

    @Test("Retry-After: whole seconds until the bucket that refused has a token again, at least 1")
    func secondsUntilAvailable() {
        let limiter = RateLimiter(perSecond: 0.25, burst: 2)
        #expect(limiter.secondsUntilAvailable("a", now: 10) == 1, "a client with no bucket is not waiting")
        #expect(limiter.allow("a", now: 10) && limiter.allow("a", now: 10) && !limiter.allow("a", now: 10))
        #expect(limiter.secondsUntilAvailable("a", now: 10) == 4)
        #expect(limiter.secondsUntilAvailable("a", now: 12) == 2)
        #expect(limiter.secondsUntilAvailable("a", now: 13.5) == 1, "0.375 s rounds up to 1")
        // The auth-failure bucket: 10 a minute, burst 10: a token every 6 s once it is empty.
        let failures = RateLimiter(perSecond: 10.0 / 60, burst: APIKeyAuthenticator.failureBurst)
        for _ in 0..<10 { _ = failures.allow("b", now: 0) }
        #expect(!failures.peek("b", now: 0))
        #expect(failures.secondsUntilAvailable("b", now: 0) == 6)
        #expect(failures.peek("b", now: 6.01))
        let closed = RateLimiter(perSecond: 1e-9, burst: 1)
        _ = closed.allow("c", now: 0)
        #expect(closed.secondsUntilAvailable("c", now: 0) == RateLimiter.maxRetryAfterSeconds)
    }

    @Test("memory stays bounded by maxClients; a flood of new addresses evicts the least recently used, not all")
    func leastRecentlyUsed() {
        let limiter = RateLimiter(perSecond: 0.001, burst: 2, maxClients: 10)
        // An abuser empties its bucket and keeps it in use.
        #expect(limiter.allow("abuser", now: 1) && limiter.allow("abuser", now: 1) && !limiter.allow("abuser", now: 1))
        for n in 0..<1000 {
            _ = limiter.allow("flood\(n)", now: 1)
            if n % 5 == 0 { #expect(!limiter.allow("abuser", now: 1), "the abuser's bucket survived \(n) new clients") }
        }
        #expect(limiter.clientCount == 10)
        #expect(!limiter.peek("abuser", now: 1), "still empty: the flood did not clear it")
        #expect(limiter.peek("flood0", now: 1), "the oldest flood entries were evicted (a new bucket is full)")
        #expect(limiter.allow("fresh", now: 1))
    }
}

@Suite("Client addresses")
struct ClientAddressTests {
    @Test("IPv4 keys by address, IPv6 by its /64, IPv4-mapped IPv6 as IPv4; garbage is refused")
    func keys() {
        #expect(IPAddress("192.0.2.7")?.clientKey == "192.0.2.7")
        #expect(IPAddress("2001:db8:1:2:aaaa::1")?.clientKey == "2001:db8:1:2::/64")
        #expect(IPAddress("2001:db8:1:2:ffff:ffff:ffff:ffff")?.clientKey == "2001:db8:1:2::/64")
        #expect(IPAddress("2001:db8:1:3::1")?.clientKey == "2001:db8:1:3::/64")
        #expect(IPAddress("::ffff:192.0.2.7")?.clientKey == "192.0.2.7")
        for bad in ["", "unknown", "192.0.2", "192.0.2.7:80", "[::1]", "1.2.3.4.5", "fe80::1%eth0", String(repeating: "1", count: 100)] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
    }

    @Test("networks: CIDR of either family; a v4 network never holds a v6 address")
    func networks() throws {
        let ten = try #require(IPNetwork("10.0.0.0/8"))
        #expect(ten.contains(IPAddress("10.200.3.4")!))
        #expect(!ten.contains(IPAddress("11.0.0.1")!))
        #expect(!ten.contains(IPAddress("::a00:1")!))
        let v6 = try #require(IPNetwork("2001:db8::/32"))
        #expect(v6.contains(IPAddress("2001:db8:ffff::1")!))
        #expect(!v6.contains(IPAddress("2001:db9::1")!))
        #expect(IPNetwork("127.0.0.1")?.contains(IPAddress("127.0.0.1")!) == true)
        #expect(IPNetwork("127.0.0.1")?.contains(IPAddress("127.0.0.2")!) == false)
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "nope/8", "10.0.0.0/-1"] { #expect(IPNetwork(bad) == nil, "\(bad)") }
    }

    @Test("forwarding headers are believed from trusted proxies only, read from the right past every trusted hop")
    func forwarded() {
        let clients = ClientAddresses(trustedProxies: [IPNetwork("10.0.0.0/8")!, IPNetwork("2001:db8:ffff::/48")!])
        func client(_ peer: String, forwarded: String? = nil, xff: String? = nil) -> String {
            let (key, trusted) = (IPAddress(peer)!.clientKey, clients.isTrusted(IPAddress(peer)!))
            return clients.client(peerKey: key, peerIsTrusted: trusted, forwarded: forwarded, xForwardedFor: xff)
        }
        #expect(client("203.0.113.9", xff: "198.51.100.1") == "203.0.113.9", "an untrusted peer's header is ignored")
        #expect(client("10.1.1.1", xff: "198.51.100.1") == "198.51.100.1")
        #expect(client("10.1.1.1", xff: "6.6.6.6, 198.51.100.1, 10.2.2.2") == "198.51.100.1",
                "a client-written entry left of the real client is not believed")
        #expect(client("10.1.1.1", xff: "10.3.3.3, 10.2.2.2") == "10.3.3.3", "all trusted: the farthest hop")
        #expect(client("10.1.1.1") == "10.1.1.1", "no header: the proxy itself")
        #expect(client("10.1.1.1", xff: "garbage") == "10.1.1.1")
        #expect(client("10.1.1.1", forwarded: "for=192.0.2.60;proto=https, for=\"[2001:db8:cafe::17]:4711\"") == "2001:db8:cafe:0::/64")
        #expect(client("10.1.1.1", forwarded: "for=\"192.0.2.60:1234\"", xff: "6.6.6.6") == "192.0.2.60", "Forwarded wins")
        #expect(client("10.1.1.1", forwarded: "for=unknown") == "10.1.1.1")
        #expect(client("10.1.1.1", xff: String(repeating: "1.1.1.1,", count: 200)) == "10.1.1.1", "over the size cap: ignored")
    }
}
