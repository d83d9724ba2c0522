import ACME
import Foundation
import NIOCore
import NIOPosix
import Testing

/// A directory URL that leads nowhere useful fails fast, with a code a caller can act on.
@Suite struct DirectoryFailureTests {
    static let limits = ACMEClientConfiguration.Limits(requestTimeoutMilliseconds: 1_500)

    private func accountError(_ url: String, caFile: String? = nil) async throws -> (ACMEError?, Duration) {
        let client = ACMEClient(configuration: ACMEClientConfiguration(directoryURL: url, caCertificatesFile: caFile, limits: Self.limits))
        let key = try ACMEAccountKey.generate()
        let started = ContinuousClock.now
        do {
            _ = try await client.account(key: key)
            return (nil, ContinuousClock.now - started)
        } catch let error as ACMEError {
            return (error, ContinuousClock.now - started)
        }
    }

    @Test func nothingListeningIsNetwork() async throws {
        let (error, elapsed) = try await accountError("https://127.0.0.1:1/dir")
        #expect(error?.code == .network, "\(String(describing: error))")
        #expect(elapsed < .seconds(3))
    }

    @Test func aServerThatNeverAnswersIsTimeoutWithinTheLimit() async throws {
        // Accepts connections and never sends a byte: the TLS handshake waits until the time limit.
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in channel.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { silent.close(promise: nil) }
        let port = try #require(silent.localAddress?.port)
        let (error, elapsed) = try await accountError("https://127.0.0.1:\(port)/dir")
        #expect(error?.code == .timeout, "\(String(describing: error))")
        #expect(elapsed >= .milliseconds(1_400) && elapsed < .seconds(4), "\(elapsed)")
    }

    @Test func notADirectoryIsDirectory() async throws {
        let pebble = try TestPebble.require()
        let (error, elapsed) = try await accountError("https://127.0.0.1:14000/not-the-directory", caFile: pebble.caFile)
        #expect(error?.code == .directory, "\(String(describing: error))")
        #expect(error?.message.contains("directoryURL") == true)
        #expect(elapsed < .seconds(3))
    }

    @Test func onlyHTTPSDirectoriesAreUsed() async throws {
        let (error, _) = try await accountError("http://127.0.0.1:14000/dir")
        #expect(error?.code == .invalidArgument, "\(String(describing: error))")
    }
}
