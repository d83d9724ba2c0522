import Foundation
import Synchronization

/// pebble (Let's Encrypt's test ACME server) on loopback for the tests, through `scripts/test-pebble.sh start`:
/// started once per test process and kept running afterwards (`scripts/test-pebble.sh stop` ends it).
public struct PebbleServer: Sendable {
    /// The ACME directory URL (`https://127.0.0.1:14000/dir`).
    public let directoryURL: String
    /// The CA file that signs pebble's own HTTPS listeners.
    public let caFile: String
    /// pebble's management interface (`/roots/0`: the root that issues certificates).
    public let managementURL: String
    /// The port pebble connects to to validate HTTP-01 challenges.
    public let httpPort: Int
    /// The management port of pebble's DNS server (`pebble-challtestsrv`): where a host is pointed at an address.
    public let dnsManagementURL: String

    private static let started = Mutex<Result<PebbleServer, ExternalTool.Failure>?>(nil)

    /// The running pebble (started on first use), or why it could not be started.
    public static func shared() -> Result<PebbleServer, ExternalTool.Failure> {
        started.withLock { state in
            if let state { return state }
            let result = start()
            state = result
            return result
        }
    }

    private static func start() -> Result<PebbleServer, ExternalTool.Failure> {
        let script = LinkdProcess.repositoryRoot.appendingPathComponent("scripts/test-pebble.sh").path
        do {
            let output = String(decoding: try ExternalTool.run("/bin/bash", [script, "start"]), as: UTF8.self)
            var values: [String: String] = [:]
            for line in output.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                values[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            guard let directory = values["PEBBLE_DIRECTORY_URL"], let ca = values["PEBBLE_CA_FILE"],
                  let management = values["PEBBLE_MANAGEMENT_URL"], let port = values["PEBBLE_HTTP_PORT"].flatMap({ Int($0) })
            else { return .failure(ExternalTool.Failure(description: "scripts/test-pebble.sh printed \(output.debugDescription)")) }
            let dns = values["PEBBLE_DNS_MANAGEMENT_URL"] ?? "http://127.0.0.1:8055"
            return .success(PebbleServer(directoryURL: directory, caFile: ca, managementURL: management, httpPort: port, dnsManagementURL: dns))
        } catch let failure as ExternalTool.Failure {
            return .failure(failure)
        } catch {
            return .failure(ExternalTool.Failure(description: "\(error)"))
        }
    }

    /// Points `host` at `address` in pebble's DNS (validation requests for it go there), replacing what it pointed at:
    /// the DNS server outlives a test run and adds to a host's addresses, and past a few dozen its answers no longer
    /// fit the CA's resolver ("dns: buffer size too small"), so every run on one machine after the first would fail.
    public func point(_ host: String, to address: String) throws {
        let curl = try ExternalTool.path("curl", install: "apt-get install -y curl")
        try ExternalTool.run(curl, ["-sf", "-X", "POST", "-d", #"{"host":"\#(host)."}"#, dnsManagementURL + "/clear-a"])
        try ExternalTool.run(curl, ["-sf", "-X", "POST", "-d", #"{"host":"\#(host).","addresses":["\#(address)"]}"#, dnsManagementURL + "/add-a"])
    }

    /// The root and intermediate pebble issues under, as one PEM file (what a client of an issued certificate trusts).
    public func issuerFile() throws -> String {
        let curl = try ExternalTool.path("curl", install: "apt-get install -y curl")
        var text = ""
        for path in ["/roots/0", "/intermediates/0"] {
            text += String(decoding: try ExternalTool.run(curl, ["-sf", "--cacert", caFile, managementURL + path]), as: UTF8.self)
        }
        let file = temporaryDataDir() + "-pebble-issuer.pem"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}
