import Foundation
import LinkdTestSupport
import Testing

/// `linkd serve` on HTTPS as an operator runs it: certificates from PEM files chosen by SNI, re-read when they
/// change without dropping open connections, the plain listener redirecting, HSTS, TLS 1.2+ only, the handshake's
/// time limit; and certificates from a real ACME server (pebble). Clients are curl, openssl and python3's ssl.
@Suite("HTTPS", .serialized)
struct TLSTests {
    static let handz = "links.handz.example", coin = "links.coin.example"

    /// Runs curl against the TLS listener with `host` resolved to `address`, trusting `ca`: status, headers, body.
    static func curl(_ url: String, host: String, port: Int, address: String = "127.0.0.1", ca: String, extra: [String] = [])
        throws -> (status: Int32, output: String)
    {
        let curl = try ExternalTool.path("curl", install: "apt-get install -y curl")
        let result = try ExternalTool.runToEnd(curl, ["-s", "-i", "--max-time", "10", "--resolve", "\(host):\(port):\(address)", "--cacert", ca] + extra + [url])
        return (result.status, String(decoding: result.stdout, as: UTF8.self))
    }

    /// The subject and serial of the certificate the TLS listener shows for `serverName` (nil: no SNI).
    static func peerCertificate(port: Int, serverName: String?) throws -> String {
        let openssl = try ExternalTool.path("openssl", install: "apt-get install -y openssl")
        let sni = serverName.map { ["-servername", $0] } ?? ["-noservername"]
        let shown = try ExternalTool.runToEnd(openssl, ["s_client", "-connect", "127.0.0.1:\(port)"] + sni, input: [])
        let pem = String(decoding: shown.stdout, as: UTF8.self)
        let details = try ExternalTool.runToEnd(openssl, ["x509", "-noout", "-subject", "-serial"], input: Array(pem.utf8))
        return String(decoding: details.stdout, as: UTF8.self)
    }

    /// The running pebble, or the test is cancelled (skipped) with why it could not be started.
    static func pebble() throws -> PebbleServer {
        switch PebbleServer.shared() {
        case .success(let server): return server
        case .failure(let error): try Test.cancel("pebble could not be started, so this test is skipped: \(error)")
        }
    }

    static func port(_ url: String?) throws -> Int { try #require(url?.split(separator: ":").last.flatMap { Int($0) }) }

    @Test("certificates by SNI from PEM files, HSTS, TLS 1.2+, the plain listener's 308, the handshake's time limit")
    func filesAndSNI() async throws {
        let ca = try TestCertificates()
        let handz = try ca.issue("handz", hosts: [Self.handz])
        let coin = try ca.issue("coin", hosts: [Self.coin], rsa: true)
        let daemon = try LinkdDaemon(configuration: """
            tls:
              port: 0
              certificates:
                - { certificate: \(handz.certificate), privateKey: \(handz.privateKey) }
                - { certificate: \(coin.certificate), privateKey: \(coin.privateKey) }
              redirectHTTP: true
              hstsMaxAgeSeconds: 600
              handshakeTimeoutSeconds: 0.5
            """)
        defer { daemon.stop() }
        let port = try Self.port(daemon.tlsBaseURL)
        let admin = try #require(daemon.initialAdminKey)

        // The admin API and a share page over HTTPS, HSTS on the router's answers and the fast path's alike.
        let created = try Self.curl("https://\(Self.handz):\(port)/v1/links", host: Self.handz, port: port, ca: ca.caFile, extra: [
            "-H", "Authorization: Bearer \(admin)", "-H", "Content-Type: application/json",
            "-d", #"{"app":"handz","params":{"flowId":"8a6c2f1e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"}}"#,
        ])
        #expect(created.output.hasPrefix("HTTP/1.1 201") && created.output.lowercased().contains("strict-transport-security: max-age=600"), "\(created.output)")
        let token = try #require(created.output.range(of: #""token":"([A-Za-z0-9_-]+)""#, options: .regularExpression)
            .map { String(created.output[$0].dropFirst(9).dropLast()) })
        let page = try Self.curl("https://\(Self.handz):\(port)/s/\(token)", host: Self.handz, port: port, ca: ca.caFile)
        #expect(page.output.hasPrefix("HTTP/1.1 200") && page.output.lowercased().contains("strict-transport-security: max-age=600"))
        let aasa = try Self.curl("https://\(Self.handz):\(port)/.well-known/apple-app-site-association", host: Self.handz, port: port, ca: ca.caFile)
        #expect(aasa.output.hasPrefix("HTTP/1.1 200") && aasa.output.contains("ABCDE12345.com.handz.app"))

        // SNI picks the certificate (an RSA one for coin); no SNI gets the first.
        #expect(try Self.peerCertificate(port: port, serverName: Self.coin).contains("CN = \(Self.coin)"))
        #expect(try Self.peerCertificate(port: port, serverName: Self.handz).contains("CN = \(Self.handz)"))
        #expect(try Self.peerCertificate(port: port, serverName: nil).contains("CN = \(Self.handz)"))
        #expect(try Self.curl("https://\(Self.coin):\(port)/healthz", host: Self.coin, port: port, ca: ca.caFile).output.hasPrefix("HTTP/1.1 200"))
        // TLS 1.1 is refused at the handshake.
        #expect(try Self.curl("https://\(Self.handz):\(port)/healthz", host: Self.handz, port: port, ca: ca.caFile, extra: ["--tls-max", "1.1"]).status != 0)

        // The plain listener: 308 to HTTPS, but health checks and ACME challenges are its own.
        let plain = try #require(URL(string: daemon.baseURL)?.port)
        let redirected = try RawConnection(port: plain)
        try await redirected.send("GET /library?tab=1 HTTP/1.1\r\nHost: \(Self.handz)\r\n\r\n")
        let answer = try await redirected.readHead()
        #expect(answer.status == 308)
        #expect(answer.header("location") == "https://\(Self.handz):\(port)/library?tab=1")
        #expect(try await TestHTTP.send("GET", daemon.baseURL + "/healthz").status == 200)
        #expect(try await TestHTTP.send("GET", daemon.baseURL + "/.well-known/acme-challenge/abc").status == 404)
        // The plain listener sends everything else away, so every fast-path answer (the /healthz over HTTPS above) came
        // from the decrypted bytes.
        let metrics = String(decoding: try await TestHTTP.send("GET", daemon.baseURL + "/metrics").body, as: UTF8.self)
        let fast = metrics.split(separator: "\n").first { $0.hasPrefix("linkd_fast_path_answers_total ") }
        #expect((fast?.split(separator: " ").last.flatMap { Double($0) } ?? 0) >= 1, "\(fast ?? "no fast-path counter")")

        // A client that connects and never says hello is closed at the handshake's time limit.
        let silent = try RawConnection(port: port)
        let started = Date()
        #expect(await silent.isClosedByServer())
        #expect(Date().timeIntervalSince(started) < 5, "closed after \(Date().timeIntervalSince(started)) s")
    }

    @Test("a renewed certificate file is served to new connections without a restart; open connections carry on; a broken one is refused")
    func reload() async throws {
        let ca = try TestCertificates()
        let files = try ca.issue("handz", hosts: [Self.handz])
        let daemon = try LinkdDaemon(dataDir: temporaryDataDir(), environment: [
            "LINKD_TLS_PORT": "0", "LINKD_TLS_CERTIFICATES": "\(files.certificate):\(files.privateKey)", "LINKD_LOG_LEVEL": "notice",
        ])
        defer { daemon.stop() }
        let port = try Self.port(daemon.tlsBaseURL)
        let before = try Self.peerCertificate(port: port, serverName: Self.handz)

        // A keep-alive connection opened before the renewal (python3's ssl), asked again after it.
        let script = """
            import socket, ssl, sys
            context = ssl.create_default_context(cafile=sys.argv[1])
            conn = context.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[2]))), server_hostname=sys.argv[3])
            def ask():
                conn.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
                data = b""
                while b"\\r\\n\\r\\n" not in data or len(data.split(b"\\r\\n\\r\\n", 1)[1]) < 15:
                    data += conn.recv(4096)
                return data.split(b"\\r\\n", 1)[0].decode()
            print(ask(), flush=True)
            sys.stdin.readline()
            print(ask(), flush=True)
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", script, ca.caFile, String(port), Self.handz]
        let input = Pipe(), output = Pipe()
        python.standardInput = input
        python.standardOutput = output
        try python.run()
        var first = Data()
        while !first.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { break }
            first += more
        }
        #expect(String(decoding: first, as: UTF8.self).hasPrefix("HTTP/1.1 200"))

        // A new certificate for the same name written over the files, as a renewal tool does.
        let renewed = try ca.issue("renewed", hosts: [Self.handz])
        try FileManager.default.removeItem(atPath: files.privateKey)
        try FileManager.default.copyItem(atPath: renewed.privateKey, toPath: files.privateKey)
        try FileManager.default.removeItem(atPath: files.certificate)
        try FileManager.default.copyItem(atPath: renewed.certificate, toPath: files.certificate)
        var after = before
        for _ in 0..<50 where after == before {
            try await Task.sleep(for: .milliseconds(200))
            after = try Self.peerCertificate(port: port, serverName: Self.handz)
        }
        #expect(after != before && after.contains("CN = \(Self.handz)"), "the renewed certificate is served: \(after)")
        input.fileHandleForWriting.write(Data("\n".utf8))
        python.waitUntilExit()
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)  // the first read may have stopped before its newline
        #expect(python.terminationStatus == 0 && rest.hasPrefix("HTTP/1.1 200"), "the open connection carried on: \(rest)")

        // A key that is not the chain's (half a renewal) is refused whole; the certificate in use stays.
        let other = try ca.issue("other", hosts: ["other.example"])
        try FileManager.default.removeItem(atPath: files.privateKey)
        try FileManager.default.copyItem(atPath: other.privateKey, toPath: files.privateKey)
        kill(daemon.process.processIdentifier, SIGHUP)
        try await Task.sleep(for: .seconds(3))
        #expect(daemon.errorOutput.contains("TLS certificates not read; the ones in use stay"), "\(daemon.errorOutput)")
        #expect(try Self.peerCertificate(port: port, serverName: Self.handz) == after)
    }

    @Test("acme: a certificate from pebble (HTTP-01 on the plain listener) for every host, stored sealed, kept across a restart")
    func acmeWithPebble() async throws {
        let pebble = try Self.pebble()
        // pebble validates links.handz.example at 127.0.0.2 on its HTTP-01 port: linkd's plain listener.
        try pebble.point(Self.handz, to: "127.0.0.2")
        let dataDir = temporaryDataDir()
        let environment = [
            "LINKD_MANIFESTS": LinkdProcess.repositoryRoot.appendingPathComponent("examples/handz.yaml").path,
            "LINKD_TLS_PORT": "0", "LINKD_TLS_REDIRECT": "true", "LINKD_ACME_DIRECTORY": pebble.directoryURL,
            "LINKD_ACME_CA_CERTIFICATES": pebble.caFile, "LINKD_ACME_EMAIL": "ops@links.handz.example", "LINKD_LOG_LEVEL": "notice",
        ]
        let arguments = ["--port", String(pebble.httpPort), "--data-dir", dataDir, "--host", "127.0.0.2"]
        let first = try LinkdDaemon(serveArguments: arguments, workingDirectory: LinkdProcess.repositoryRoot, environment: environment)
        let port = try Self.port(first.tlsBaseURL)
        let issuer = try pebble.issuerFile()
        var aasa = (status: Int32(-1), output: "")
        for _ in 0..<100 where !aasa.output.hasPrefix("HTTP/1.1 200") {
            try await Task.sleep(for: .milliseconds(200))
            aasa = try Self.curl("https://\(Self.handz):\(port)/.well-known/apple-app-site-association",
                                 host: Self.handz, port: port, address: "127.0.0.2", ca: issuer)
        }
        #expect(aasa.output.hasPrefix("HTTP/1.1 200") && aasa.output.contains("ABCDE12345.com.handz.app"), "\(aasa)\n\(first.errorOutput)")
        let metrics = try await TestHTTP.send("GET", first.baseURL + "/metrics")
        #expect(String(decoding: metrics.body, as: UTF8.self).contains("linkd_acme_orders_total{outcome=\"issued\"} 1"))
        #expect(first.stop())

        // Restarted: the stored certificate is served at once, nothing is ordered again.
        let second = try LinkdDaemon(serveArguments: arguments, workingDirectory: LinkdProcess.repositoryRoot, environment: environment)
        defer { second.stop() }
        let again = try Self.port(second.tlsBaseURL)
        var served = (status: Int32(-1), output: "")
        for _ in 0..<25 where !served.output.hasPrefix("HTTP/1.1 200") {
            try await Task.sleep(for: .milliseconds(200))
            served = try Self.curl("https://\(Self.handz):\(again)/healthz", host: Self.handz, port: again, address: "127.0.0.2", ca: issuer)
        }
        #expect(served.output.hasPrefix("HTTP/1.1 200"), "\(served)")
        #expect(!second.errorOutput.contains("ordering a TLS certificate"), "\(second.errorOutput)")
    }

    @Test("acme: a host a manifest publish adds gets a certificate without a restart")
    func acmePicksUpPublishedHosts() async throws {
        let pebble = try Self.pebble()
        let added = "go.handz.example"
        for host in [Self.handz, added] { try pebble.point(host, to: "127.0.0.2") }
        let dataDir = temporaryDataDir()
        let config = try LinkdDaemon.configurationFile("acme:\n  checkIntervalSeconds: 1\n", in: dataDir)
        let manifest = LinkdProcess.repositoryRoot.appendingPathComponent("examples/handz.yaml").path
        let daemon = try LinkdDaemon(
            serveArguments: ["--host", "127.0.0.2", "--port", String(pebble.httpPort), "--data-dir", dataDir, "--config", config],
            workingDirectory: LinkdProcess.repositoryRoot,
            environment: ["LINKD_MANIFESTS": manifest, "LINKD_TLS_PORT": "0", "LINKD_ACME_DIRECTORY": pebble.directoryURL,
                          "LINKD_ACME_CA_CERTIFICATES": pebble.caFile, "LINKD_LOG_LEVEL": "notice"])
        defer { daemon.stop() }
        let port = try Self.port(daemon.tlsBaseURL)
        let issuer = try pebble.issuerFile()
        func served(_ host: String) async throws -> Bool {
            for _ in 0..<150 {
                if try Self.curl("https://\(host):\(port)/healthz", host: host, port: port, address: "127.0.0.2", ca: issuer)
                    .output.hasPrefix("HTTP/1.1 200") { return true }
                try await Task.sleep(for: .milliseconds(200))
            }
            return false
        }
        #expect(try await served(Self.handz), "\(daemon.errorOutput)")
        // The new host is not covered yet: its name does not verify against the certificate served.
        #expect(try Self.curl("https://\(added):\(port)/healthz", host: added, port: port, address: "127.0.0.2", ca: issuer).status != 0)
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
            .replacingOccurrences(of: "hosts: [links.handz.example]\n", with: "hosts: [links.handz.example, \(added)]\n")
        let admin = try #require(daemon.initialAdminKey)
        let published = try await TestHTTP.send(
            "PUT", daemon.baseURL + "/v1/admin/apps/handz/manifest", bearer: admin, json: ["manifest": text])
        #expect(published.status == 200, "\(String(decoding: published.body, as: UTF8.self))")
        #expect(try await served(added), "the published host got a certificate: \(daemon.errorOutput)")
    }

    @Test("acme on two instances sharing PostgreSQL: one certificate issued under the lease, both serve it")
    func acmeAcrossInstances() async throws {
        let pebble = try Self.pebble()
        // The CA reaches links.handz.example at 127.0.0.2 only: when the instance on 127.0.0.3 holds the lease and
        // orders, the one on 127.0.0.2 answers the challenge from the store.
        try pebble.point(Self.handz, to: "127.0.0.2")
        let database = try TestPostgres.shared().freshDatabase()
        let masterKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let environment = [
            "LINKD_MANIFESTS": LinkdProcess.repositoryRoot.appendingPathComponent("examples/handz.yaml").path,
            "LINKD_DATABASE_URL": database, "LINKD_MASTER_KEY": masterKey, "LINKD_TLS_PORT": "0",
            "LINKD_ACME_DIRECTORY": pebble.directoryURL, "LINKD_ACME_CA_CERTIFICATES": pebble.caFile, "LINKD_LOG_LEVEL": "notice",
        ]
        let daemons = try ["127.0.0.3", "127.0.0.2"].map { address in
            let dataDir = temporaryDataDir()
            let config = try LinkdDaemon.configurationFile("acme:\n  checkIntervalSeconds: 1\n  retryBaseSeconds: 1\n", in: dataDir)
            return try LinkdDaemon(
                serveArguments: ["--host", address, "--port", String(pebble.httpPort), "--data-dir", dataDir, "--config", config],
                workingDirectory: LinkdProcess.repositoryRoot, environment: environment)
        }
        defer { for daemon in daemons { daemon.stop() } }
        let issuer = try pebble.issuerFile()
        for (daemon, address) in zip(daemons, ["127.0.0.3", "127.0.0.2"]) {
            let port = try Self.port(daemon.tlsBaseURL)
            var reply = (status: Int32(-1), output: "")
            for _ in 0..<150 where !reply.output.hasPrefix("HTTP/1.1 200") {
                try await Task.sleep(for: .milliseconds(200))
                reply = try Self.curl("https://\(Self.handz):\(port)/healthz", host: Self.handz, port: port, address: address, ca: issuer)
            }
            #expect(reply.output.hasPrefix("HTTP/1.1 200"), "\(address): \(reply)\n\(daemon.errorOutput)")
        }
        let issued = daemons.map { $0.errorOutput.components(separatedBy: "TLS certificate issued").count - 1 }
        #expect(issued.reduce(0, +) == 1, "one order succeeded in all: \(issued)")
    }
}
