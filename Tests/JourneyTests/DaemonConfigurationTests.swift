import Foundation
import LinkdTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `linkd serve` as a process: where it listens and keeps its data, from flags, from the environment, and with no
/// configuration at all.
@Suite("Daemon configuration", .serialized)
struct DaemonConfigurationTests {
    /// Whether a TCP listener can be bound to `host`:`port` now (port 0: any); the bound port, else nil.
    static func bindable(_ host: String = "127.0.0.1", port: Int) -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = ipv4Address(host: host, port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The port of `http://HOST:PORT`.
    static func port(of baseURL: String) -> Int? { baseURL.split(separator: ":").last.flatMap { Int($0) } }

    /// The permission bits of a file.
    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
    }

    @Test("--host and --data-dir are honoured: it listens on that address only and keeps its data there")
    func hostFlag() async throws {
        let dir = temporaryDataDir()
        let daemon = try LinkdDaemon(dataDir: dir, arguments: ["--host", "127.0.0.2"])
        defer { daemon.stop() }
        #expect(daemon.baseURL.hasPrefix("http://127.0.0.2:"))
        let port = try #require(Self.port(of: daemon.baseURL))
        #expect(try await TestHTTP.send("GET", daemon.baseURL + "/healthz").status == 200)
        #expect(throws: (any Error).self, "nothing listens on 127.0.0.1") { try RawConnection(port: port, host: "127.0.0.1") }
        #expect(FileManager.default.fileExists(atPath: dir + "/linkd.sqlite") && FileManager.default.fileExists(atPath: dir + "/master.key"))
    }

    @Test("LINKD_HOST, LINKD_PORT and LINKD_DATA_DIR are honoured without flags")
    func environment() async throws {
        let dir = temporaryDataDir()
        let port = try #require(Self.bindable(port: 0))
        let daemon = try LinkdDaemon(
            serveArguments: [], workingDirectory: LinkdProcess.repositoryRoot,
            environment: ["LINKD_HOST": "127.0.0.3", "LINKD_PORT": String(port), "LINKD_DATA_DIR": dir, "LINKD_LOG_LEVEL": "warning"])
        defer { daemon.stop() }
        #expect(daemon.baseURL == "http://127.0.0.3:\(port)")
        #expect(try await TestHTTP.send("GET", daemon.baseURL + "/readyz").status == 200)
        #expect(throws: (any Error).self, "nothing listens on 127.0.0.1") { try RawConnection(port: port, host: "127.0.0.1") }
        #expect(Self.mode(dir) == 0o700)
        #expect(Self.mode(dir + "/linkd.sqlite") == 0o600 && Self.mode(dir + "/master.key") == 0o600)
        // A flag beats the environment.
        daemon.stop()
        let flagged = try LinkdDaemon(
            serveArguments: ["--port", "0"], workingDirectory: LinkdProcess.repositoryRoot,
            environment: ["LINKD_HOST": "127.0.0.3", "LINKD_PORT": String(port), "LINKD_DATA_DIR": dir])
        defer { flagged.stop() }
        #expect(flagged.baseURL.hasPrefix("http://127.0.0.3:") && flagged.baseURL != "http://127.0.0.3:\(port)")
        #expect(flagged.initialAdminKey == nil, "the same data directory: no new admin key")
    }

    @Test("no configuration at all: ./data (0700, files 0600), the demo manifests, 127.0.0.1:8080, the admin key printed once")
    func noConfiguration() async throws {
        // An empty working directory: the templates and the demo manifests are found beside the binary (its checkout).
        let cwd = URL(fileURLWithPath: temporaryDataDir())
        try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
        // Port 8080 when it is free; when something else holds it, everything but the port is checked.
        let defaultPortFree = Self.bindable(port: 8080) != nil
        let arguments = defaultPortFree ? [] : ["--port", "0"]
        let first = try LinkdDaemon(serveArguments: arguments, workingDirectory: cwd)
        if defaultPortFree { #expect(first.baseURL == "http://127.0.0.1:8080") } else { #expect(first.baseURL.hasPrefix("http://127.0.0.1:")) }
        let admin = try #require(first.initialAdminKey)
        #expect(admin.hasPrefix("lkd_"))
        #expect(first.output.components(separatedBy: "admin API key").count == 2, "printed once: \(first.output)")
        let keys = try await TestHTTP.send("GET", first.baseURL + "/v1/admin/keys", bearer: admin)
        #expect(keys.status == 200)
        let apps = Set((keys.json["keys"] as? [[String: Any]] ?? []).compactMap { $0["app"] as? String })
        #expect(apps == ["coin", "handz", "ordentus", "story"], "the demo manifests, each with its keys")
        #expect(first.stop(), "linkd did not stop on SIGTERM")

        let data = cwd.appendingPathComponent("data").path
        #expect(Self.mode(data) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: data)
        #expect(files.contains("linkd.sqlite") && files.contains("master.key"), "\(files)")
        for file in files { #expect(Self.mode(data + "/" + file) == 0o600, "\(file)") }

        let second = try LinkdDaemon(serveArguments: ["--port", "0"], workingDirectory: cwd)
        defer { second.stop() }
        #expect(second.initialAdminKey == nil && !second.output.contains("admin API key"), "the admin key is printed on the first start only")
        #expect(try await TestHTTP.send("GET", second.baseURL + "/v1/admin/keys", bearer: admin).status == 200)
    }
}
