import ACME
import Foundation
import LinkdTestSupport
import Synchronization
import Testing

/// pebble on loopback for the tests, through `scripts/test-pebble.sh start` (started once per test process, kept
/// running afterwards: `scripts/test-pebble.sh stop` ends it). A test that needs it is skipped (cancelled, with the
/// script's message) only when pebble cannot be started.
struct TestPebble: Sendable {
    /// The ACME directory URL (`https://127.0.0.1:14000/dir`).
    let directoryURL: String
    /// The CA file that signs pebble's own HTTPS listeners.
    let caFile: String
    /// pebble's management interface (`/roots/0`: the root that issues certificates).
    let managementURL: String
    /// The port pebble connects to on 127.0.0.1 to validate HTTP-01 challenges.
    let httpPort: Int

    /// The running pebble, or the test is cancelled (skipped) with why it could not be started.
    static func require() throws -> TestPebble {
        switch shared() {
        case .success(let pebble): return pebble
        case .failure(let error): try Test.cancel("pebble could not be started, so this test is skipped: \(error)")
        }
    }

    private static let started = Mutex<Result<TestPebble, ExternalTool.Failure>?>(nil)

    private static func shared() -> Result<TestPebble, ExternalTool.Failure> {
        started.withLock { state in
            if let state { return state }
            let result = start()
            state = result
            return result
        }
    }

    private static func start() -> Result<TestPebble, ExternalTool.Failure> {
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
            return .success(TestPebble(directoryURL: directory, caFile: ca, managementURL: management, httpPort: port))
        } catch let failure as ExternalTool.Failure {
            return .failure(failure)
        } catch {
            return .failure(ExternalTool.Failure(description: "\(error)"))
        }
    }

    /// A client of this pebble with test-sized polling.
    func client(limits: ACMEClientConfiguration.Limits = .init(requestTimeoutMilliseconds: 10_000, pollIntervalMilliseconds: 200))
        -> ACMEClient
    {
        ACMEClient(configuration: ACMEClientConfiguration(directoryURL: directoryURL, caCertificatesFile: caFile,
                                                          contactEmail: "ops@links.handz.example", limits: limits))
    }
}
