import Foundation
import LinkdTestSupport
import Testing

/// The HTTP edge holds under hostile clients (docs/operating.md, "Limits"). Each client is played against the real
/// daemon (`linkd serve`, a child process, so its memory is its own) on loopback, with limits set low by a
/// configuration file so that every test ends in seconds.
@Suite("Hostile clients", .serialized)
struct HostileClientTests {
    static func port(_ daemon: LinkdDaemon) -> Int { Int(daemon.baseURL.split(separator: ":").last!)! }

    /// The daemon's resident memory in bytes (`VmRSS`).
    static func residentBytes(_ daemon: LinkdDaemon) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }!
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])! * 1024
    }

    /// A metric's value (the sum over series whose line starts with `series`).
    static func metric(_ daemon: LinkdDaemon, _ series: String) async throws -> Double {
        let reply = try await TestHTTP.send("GET", daemon.baseURL + "/metrics")
        return String(decoding: reply.body, as: UTF8.self).split(separator: "\n")
            .filter { series.contains("{") ? $0.hasPrefix(series) : $0.hasPrefix(series + " ") || $0.hasPrefix(series + "{") }
            .compactMap { Double($0.split(separator: " ").last!) }.reduce(0, +)
    }

    static let healthz = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    @Test("a client that pipelines requests and never reads the answers: memory stays bounded, the connection is dropped, others are served",
          arguments: [true, false])
    func nonReadingPipeliner(fastPath: Bool) async throws {
        let daemon = try LinkdDaemon(configuration: "fastPath: \(fastPath)\nwriteTimeoutSeconds: 3")
        defer { _ = daemon.stop() }
        let port = Self.port(daemon)
        // Warm up, then take the baseline.
        for _ in 0..<3 { _ = try await TestHTTP.send("GET", daemon.baseURL + "/healthz") }
        let before = try Self.residentBytes(daemon)
        let batch = Array(String(repeating: Self.healthz, count: 2000).utf8)  // 82 KB: 2,000 requests
        // A small receive window: the answers back up into the daemon after a few KB, however fast it is.
        let clients = try (0..<4).map { _ in try RawConnection(port: port, sendTimeout: 1, receiveBuffer: 4096) }
        var sent = 0
        let started = ContinuousClock.now
        await withTaskGroup(of: Int.self) { group in
            for client in clients {
                group.addTask {
                    var total = 0
                    // Write until the server stops taking bytes (a send blocked for 1 s), at most 8 s.
                    while ContinuousClock.now - started < .seconds(8) {
                        let count = await client.sendSome(batch)
                        total += count
                        if count < batch.count { break }
                    }
                    return total
                }
            }
            for await count in group { sent += count }
        }
        let after = try Self.residentBytes(daemon)
        let requests = sent / Self.healthz.utf8.count
        let growth = after - before
        // Without backpressure the daemon answered every request into memory (2.7 GB in 11 s); with it, each
        // connection holds at most a few hundred KB (docs/operating.md, "Limits"). The resident size still moves with
        // malloc's reuse of what half a million requests freed: 2–9 MB on the fast path, 16–43 MB through NIO's
        // decoder over ten runs of the debug build, so the bound is 64 MB — still a fortieth of the unbounded case.
        #expect(growth < 64 << 20, "grew \(growth >> 20) MB after \(requests) pipelined requests on 4 connections")
        #expect(sent < 64 << 20, "the server kept reading: \(sent >> 20) MB taken")
        // Other clients are served meanwhile.
        #expect(try await TestHTTP.send("GET", daemon.baseURL + "/healthz").status == 200)
        // The blocked connections are dropped after writeTimeoutSeconds.
        var closed = 0.0
        let waited = ContinuousClock.now
        while closed < 4, ContinuousClock.now - waited < .seconds(30) {  // the debug build may still be answering the backlog
            try await Task.sleep(for: .seconds(1))
            closed = try await Self.metric(daemon, "linkd_connections_closed_total{reason=\"write_timeout\"}")
        }
        let lines = String(decoding: try await TestHTTP.send("GET", daemon.baseURL + "/metrics").body, as: UTF8.self)
            .split(separator: "\n").filter { $0.hasPrefix("linkd_connections") }
        #expect(closed == 4, "\(lines)")
        for client in clients { #expect(await client.isClosedByServer()) }
    }

    @Test("slow request heads are answered 408 and dropped after headTimeoutSeconds; a trickle of bytes does not extend it")
    func slowHeads() async throws {
        let daemon = try LinkdDaemon(configuration: "headTimeoutSeconds: 1\nmaxConnectionsPerClient: 500")
        defer { _ = daemon.stop() }
        let port = Self.port(daemon)
        let slow = try (0..<200).map { _ in try RawConnection(port: port) }
        for client in slow { try await client.send("GET /healthz HTTP/1.1\r\nHo") }
        let trickler = try RawConnection(port: port)
        let trickle = Task {
            for byte in "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1234567890".map(String.init) {
                try await trickler.send(byte)
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let started = ContinuousClock.now
        for client in slow {
            let reply = try await client.read()
            #expect(reply.status == 408)
            #expect(reply.text.contains("\"request_timeout\""))
            #expect(reply.header("Connection") == "close")
            #expect(await client.isClosedByServer())
        }
        #expect(ContinuousClock.now - started < .seconds(4))
        let trickled = try await trickler.read()
        #expect(trickled.status == 408, "bytes kept coming, the head did not: still cut at the head timeout")
        trickle.cancel()
        #expect(try await Self.metric(daemon, "linkd_connections_closed_total{reason=\"head_timeout\"}") == 201)
        // A prompt client is unaffected.
        let prompt = try RawConnection(port: port)
        try await prompt.send(Self.healthz)
        #expect(try await prompt.read().status == 200)
    }

    @Test("an idle keep-alive connection is closed after idleTimeoutSeconds; a busy one is not")
    func idleConnections() async throws {
        let daemon = try LinkdDaemon(configuration: "idleTimeoutSeconds: 2")
        defer { _ = daemon.stop() }
        let port = Self.port(daemon)
        let idle = try RawConnection(port: port)
        try await idle.send(Self.healthz)
        #expect(try await idle.read().status == 200)
        let busy = try RawConnection(port: port)
        for _ in 0..<16 {  // 4 s of a request every quarter second, on both paths (healthz: fast path; /metrics: Hummingbird)
            try await busy.send(Self.healthz + "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(try await busy.read().status == 200)
            #expect(try await busy.read().status == 200)
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(await idle.isClosedByServer())
        try await busy.send(Self.healthz)
        #expect(try await busy.read().status == 200, "a connection in use is never idle")
        #expect(try await Self.metric(daemon, "linkd_connections_closed_total{reason=\"idle\"}") >= 1)
    }

    @Test("connection caps: per client address and in all, refused with 503 too_many_connections; a freed slot admits again")
    func connectionCaps() async throws {
        let daemon = try LinkdDaemon(configuration: "maxConnections: 4\nmaxConnectionsPerClient: 3")
        defer { _ = daemon.stop() }
        let port = Self.port(daemon)
        func open(from source: String) async throws -> (RawConnection, RawConnection.Response) {
            let connection = try RawConnection(port: port, from: source)
            try await connection.send(Self.healthz)
            return (connection, try await connection.read())
        }
        var kept: [RawConnection] = []
        for _ in 0..<3 {
            let (connection, reply) = try await open(from: "127.0.0.1")
            #expect(reply.status == 200)
            kept.append(connection)
        }
        let (_, perClient) = try await open(from: "127.0.0.1")
        #expect(perClient.status == 503)
        #expect(perClient.text.contains("\"too_many_connections\"") && perClient.text.contains("from this address"))
        #expect(perClient.header("Retry-After") == "1")
        let (other, admitted) = try await open(from: "127.0.0.2")
        #expect(admitted.status == 200, "another address has its own allowance")
        let (_, total) = try await open(from: "127.0.0.3")
        #expect(total.status == 503)
        #expect(total.text.contains("as many connections open as it takes"))
        kept.removeLast()  // closes one of 127.0.0.1's
        try await Task.sleep(for: .milliseconds(200))
        let (third, again) = try await open(from: "127.0.0.3")
        #expect(again.status == 200, "a freed slot admits a new connection")
        kept = []
        _ = (other, third)
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await Self.metric(daemon, "linkd_connections_refused_total{reason=\"per_client\"}") == 1)
        #expect(try await Self.metric(daemon, "linkd_connections_refused_total{reason=\"total\"}") == 1)
    }

    @Test("trusted proxies: their X-Forwarded-For names the client (rate limits, lockout); nobody else's is believed",
          arguments: [true, false])
    func trustedProxies(fastPath: Bool) async throws {
        let daemon = try LinkdDaemon(configuration: "fastPath: \(fastPath)\ntrustedProxies: [127.0.0.1]\nrateLimitPerSecond: 0.001\nrateLimitBurst: 3")
        defer { _ = daemon.stop() }
        let port = Self.port(daemon)
        let resolve = "/v1/resolve?url=handz%3A%2F%2Flibrary&state=free"
        // Through the proxy (127.0.0.1): each forwarded client has its own bucket.
        var alice: [Int] = []
        for _ in 0..<4 { alice.append(try await RawConnection.get(port, resolve, from: "127.0.0.1", forwardedFor: "203.0.113.9, 198.51.100.1")) }
        #expect(alice == [200, 200, 200, 429])
        #expect(try await RawConnection.get(port, resolve, from: "127.0.0.1", forwardedFor: "198.51.100.2") == 200, "another client behind the proxy")
        // Not through the proxy (127.0.0.2 is not trusted): the header is ignored, the peer is the client.
        var mallory: [Int] = []
        for n in 0..<4 { mallory.append(try await RawConnection.get(port, resolve, from: "127.0.0.2", forwardedFor: "198.51.100.\(100 + n)")) }
        #expect(mallory == [200, 200, 200, 429], "a spoofed X-Forwarded-For does not buy a fresh bucket")

        // The auth-failure lockout, behind the proxy: a prankster locks out only themselves, and not a valid key.
        let admin = try #require(daemon.initialAdminKey)
        var prank: [Int] = []
        for _ in 0..<11 { prank.append(try await RawConnection.get(port, "/v1/admin/keys", from: "127.0.0.1", forwardedFor: "198.51.100.66", key: "lkd_wrong")) }
        #expect(prank.first == 401 && prank.last == 429, "\(prank)")
        #expect(try await RawConnection.get(port, "/v1/admin/keys", from: "127.0.0.1", forwardedFor: "198.51.100.66", key: admin) == 200,
                "the prankster's address with a valid key is served")
        #expect(try await RawConnection.get(port, "/v1/admin/keys", from: "127.0.0.1", forwardedFor: "198.51.100.7", key: "lkd_wrong") == 401,
                "another admin behind the same proxy is not locked out")
        #expect(try await RawConnection.get(port, "/v1/admin/keys", from: "127.0.0.1", forwardedFor: "198.51.100.7", key: admin) == 200)
    }

    @Test("a head arriving a byte at a time is read whole once it has come, on the fast path and in pass-through; an oversized head is refused")
    func trickledHeads() async throws {
        let daemon = try LinkdDaemon(configuration: "logLevel: warning")
        defer { _ = daemon.stop() }
        let port = Self.port(daemon)
        let pad = String(repeating: "a", count: 3000)
        for (request, expected) in [
            ("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: \(pad)\r\n\r\n", #"{"status":"ok"}"#),  // the fast path
            ("GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\nX-Pad: \(pad)\r\n\r\n", #"{"status":"ok"}"#),  // pass-through
        ] {
            let connection = try RawConnection(port: port)
            for byte in request { try await connection.send(String(byte)) }
            let reply = try await connection.read()
            #expect(reply.status == 200 && reply.text == expected, "\(reply.statusLine)")
        }
        // Over 16 KiB the scanner leaves the head to NIO's decoder, which reads up to 32 KiB.
        let big = try RawConnection(port: port)
        try await big.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: \(String(repeating: "b", count: 20_000))\r\n\r\n")
        #expect(try await big.read().status == 200)
        let huge = try RawConnection(port: port)
        try await huge.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: \(String(repeating: "c", count: 40_000))\r\n\r\n")
        if let refused = try? await huge.read() {
            #expect((400...499).contains(refused.status), "\(refused.statusLine)")
        }
        #expect(await huge.isClosedByServer())
        #expect(try await TestHTTP.send("GET", daemon.baseURL + "/healthz").status == 200)
    }
}
