import Foundation
import LinkdTestSupport
import Testing

/// `linkd serve` as a real process: what it acknowledged survives SIGKILL, as do the opens flushed before it; SIGTERM
/// flushes pending clicks.
@Suite("Daemon durability", .serialized)
struct DurabilityTests {
    @Test("every acknowledged link and revocation survives kill -9")
    func survivesSIGKILL() async throws {
        let dir = temporaryDataDir()
        let first = try LinkdDaemon(dataDir: dir)
        let admin = try #require(first.initialAdminKey)
        let keyReply = try await TestHTTP.send("POST", first.baseURL + "/v1/admin/api-keys", bearer: admin,
                                               json: ["kind": "client", "app": "handz", "label": "durability"])
        let client = try #require(keyReply.json["key"] as? String)

        // Create links concurrently; keep only those the server acknowledged (201).
        let acknowledged = try await withThrowingTaskGroup(of: (String, String)?.self) { group in
            for _ in 0..<60 {
                group.addTask {
                    let reply = try await TestHTTP.send("POST", first.baseURL + "/v1/links", bearer: client, json: [
                        "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()], "owner": "u1",
                    ])
                    guard reply.status == 201, let id = reply.json["id"] as? String, let token = reply.json["token"] as? String else { return nil }
                    return (id, token)
                }
            }
            var links: [(String, String)] = []
            for try await link in group { if let link { links.append(link) } }
            return links
        }
        #expect(acknowledged.count == 60)
        let revoked = try #require(acknowledged.first)
        #expect(try await TestHTTP.send("DELETE", first.baseURL + "/v1/links/\(revoked.0)", bearer: client).status == 200)
        first.stop(signal: SIGKILL)

        let second = try LinkdDaemon(dataDir: dir)
        defer { second.stop() }
        #expect(second.initialAdminKey == nil, "the admin key is made on first start only")
        for (id, token) in acknowledged {
            let inspected = try await TestHTTP.send("GET", second.baseURL + "/v1/links/\(id)", bearer: client)
            #expect(inspected.status == 200, "link \(id) lost")
            let open = try await TestHTTP.send("GET", second.baseURL + "/s/\(token)")
            #expect(open.status == (id == revoked.0 ? 410 : 200))
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        for file in files {
            let mode = try FileManager.default.attributesOfItem(atPath: dir + "/" + file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file) is \(String(mode ?? 0, radix: 8)), not 600")
        }
    }

    @Test("SIGTERM finishes in-flight work and flushes counted clicks")
    func gracefulShutdown() async throws {
        let dir = temporaryDataDir()
        // A long flush interval: only the flush at shutdown can write the clicks.
        let first = try LinkdDaemon(dataDir: dir, configuration: "clickFlushSeconds: 3600\n")
        let admin = try #require(first.initialAdminKey)
        let link = try await TestHTTP.send("POST", first.baseURL + "/v1/links", bearer: admin, json: [
            "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()],
        ])
        let id = try #require(link.json["id"] as? String)
        let token = try #require(link.json["token"] as? String)
        for _ in 0..<3 { #expect(try await TestHTTP.send("GET", first.baseURL + "/s/\(token)").status == 200) }
        #expect(first.stop(signal: SIGTERM), "linkd did not stop within 20 s of SIGTERM")
        #expect(first.process.terminationStatus == 0)

        let second = try LinkdDaemon(dataDir: dir, configuration: "clickFlushSeconds: 3600\n")
        defer { second.stop() }
        let inspected = try await TestHTTP.send("GET", second.baseURL + "/v1/links/\(id)", bearer: admin)
        #expect(inspected.json["clicks"] as? Int == 3)
    }

    @Test("kill -9 keeps the opens a flush wrote and loses those counted since: at most one flush interval's worth")
    func sigkillLosesOnlyUnflushedOpens() async throws {
        for (seconds, kept) in [(0.2, 3), (3600, 0)] {
            let dir = temporaryDataDir()
            let config = dir + ".yaml"
            try "clickFlushSeconds: \(seconds)\n".write(toFile: config, atomically: true, encoding: .utf8)
            let first = try LinkdDaemon(dataDir: dir, arguments: ["--config", config])
            let admin = try #require(first.initialAdminKey)
            let link = try await TestHTTP.send("POST", first.baseURL + "/v1/links", bearer: admin, json: [
                "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()],
            ])
            let id = try #require(link.json["id"] as? String)
            let token = try #require(link.json["token"] as? String)
            for _ in 0..<3 { #expect(try await TestHTTP.send("GET", first.baseURL + "/s/\(token)").status == 200) }
            try await Task.sleep(for: .seconds(1))  // five flush intervals of 0.2 s; no flush of 3600 s
            first.stop(signal: SIGKILL)

            let second = try LinkdDaemon(dataDir: dir, arguments: ["--config", config])
            let stats = try await TestHTTP.send("GET", second.baseURL + "/v1/links/\(id)/stats", bearer: admin)
            #expect(stats.json["clicks"] as? Int == kept, "clickFlushSeconds \(seconds)")
            let inspected = try await TestHTTP.send("GET", second.baseURL + "/v1/links/\(id)", bearer: admin)
            #expect(inspected.json["clicks"] as? Int == kept, "clickFlushSeconds \(seconds)")
            second.stop()
        }
    }

    @Test("SIGTERM refuses new connections but lets a request in flight finish, and its write is kept")
    func inFlightRequestFinishes() async throws {
        let dir = temporaryDataDir()
        let daemon = try LinkdDaemon(dataDir: dir)
        let admin = try #require(daemon.initialAdminKey)
        let port = try #require(daemon.baseURL.split(separator: ":").last.flatMap { Int($0) })

        // A POST whose body is still being sent when SIGTERM arrives.
        let body = #"{"app":"handz","route":"ShareLink/FlowView","params":{"flowId":"\#(UUID().uuidString.lowercased())"}}"#
        let slow = try RawConnection(port: port)
        try await slow.send(
            "POST /v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(admin)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body.prefix(20))
        try await Task.sleep(for: .milliseconds(300))
        kill(daemon.process.processIdentifier, SIGTERM)

        // New connections are refused once the listener is closed (within a few seconds of the signal).
        var refused = false
        for _ in 0..<50 where !refused {
            if (try? RawConnection(port: port)) == nil { refused = true } else { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(refused, "a new connection was still accepted 5 s after SIGTERM")
        #expect(daemon.process.isRunning, "the daemon waits for the request in flight")

        try await slow.send(String(body.dropFirst(20)))
        let reply = try await slow.read()
        #expect(reply.status == 201, "\(reply.text)")
        let id = try #require((try? JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])?["id"] as? String)
        for _ in 0..<200 where daemon.process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        #expect(!daemon.process.isRunning, "linkd did not stop within 20 s of answering the request in flight")
        daemon.stop(signal: SIGKILL)
        #expect(daemon.process.terminationStatus == 0)

        let second = try LinkdDaemon(dataDir: dir)
        defer { second.stop() }
        #expect(try await TestHTTP.send("GET", second.baseURL + "/v1/links/\(id)", bearer: admin).status == 200)
    }

    @Test("a bad configuration or manifest stops the daemon with a message naming it")
    func badStart() throws {
        let dir = temporaryDataDir()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "port: 99999\n".write(toFile: dir + "/bad.yaml", atomically: true, encoding: .utf8)
        let badPort = try LinkdProcess.run(["serve", "--config", dir + "/bad.yaml"], workingDirectory: LinkdProcess.repositoryRoot)
        #expect(badPort.status != 0)
        #expect(badPort.stderr.contains("bad.yaml: port 99999"), "\(badPort.stderr)")
        try "app: broken\nroutes: 3\n".write(toFile: dir + "/broken.yaml", atomically: true, encoding: .utf8)
        let broken = try LinkdProcess.run(["serve", "--data-dir", dir + "/data"], workingDirectory: LinkdProcess.repositoryRoot,
                                          environment: ["LINKD_MANIFESTS": dir + "/broken.yaml"])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("broken.yaml"))
    }
}
