import ACME
import Foundation
import LinkdTestSupport
import Synchronization
import Testing

/// pebble on loopback for the tests (`PebbleServer`, shared with the daemon's TLS tests). A test that needs it is
/// skipped (cancelled, with the script's message) only when pebble cannot be started.
struct TestPebble: Sendable {
    let server: PebbleServer
    /// The ACME directory URL (`https://127.0.0.1:14000/dir`).
    var directoryURL: String { server.directoryURL }
    /// The CA file that signs pebble's own HTTPS listeners.
    var caFile: String { server.caFile }
    /// pebble's management interface (`/roots/0`: the root that issues certificates).
    var managementURL: String { server.managementURL }
    /// The port pebble connects to on 127.0.0.1 to validate HTTP-01 challenges.
    var httpPort: Int { server.httpPort }

    /// The running pebble, or the test is cancelled (skipped) with why it could not be started.
    static func require() throws -> TestPebble {
        switch PebbleServer.shared() {
        case .success(let server): return TestPebble(server: server)
        case .failure(let error): try Test.cancel("pebble could not be started, so this test is skipped: \(error)")
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
