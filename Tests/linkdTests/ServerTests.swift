import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import linkd

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

@Suite("ServerConfiguration")
struct ServerConfigurationTests {
    @Test("defaults, then file, then environment, then flags")
    func precedence() throws {
        let dir = tempDataDir()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let file = dir + "/linkd.yaml"
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
        let dir = tempDataDir()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let file = dir + "/bad.yaml"
        try "port: [1, 2]\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: file, environment: [:]) }
        try "prot: 1\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: file, environment: [:]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: nil, environment: ["LINKD_PORT": "eighty"]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: nil, environment: ["LINKD_EVENT_LOOP_THREADS": "two"]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: nil, environment: ["LINKD_EVENT_LOOP_THREADS": "999"]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: nil, environment: [:], port: 70000) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: dir + "/missing.yaml", environment: [:]) }
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

    @Test("memory stays bounded by maxClients")
    func bounded() {
        let limiter = RateLimiter(perSecond: 1, burst: 1, maxClients: 10)
        for n in 0..<1000 { _ = limiter.allow("client\(n)", now: 1) }
        #expect(limiter.clientCount <= 10)
        #expect(limiter.allow("fresh", now: 1))
    }
}
