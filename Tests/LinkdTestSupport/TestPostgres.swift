import Foundation
import Synchronization

/// Real PostgreSQL clusters for the tests, through `scripts/test-postgres.sh` (Debian's postgresql on loopback).
///
/// There is no skipping: when a cluster cannot be started, every test that needs one fails with the script's
/// message, so a CI machine without PostgreSQL goes red rather than green-by-omission.
public struct TestPostgres: Sendable {
    /// The cluster's port on 127.0.0.1.
    public let port: Int

    /// The cluster most tests share (port 25432), started once per test process.
    public static func shared() throws -> TestPostgres {
        try sharedStart.withLock { state in
            if let cluster = state { return try cluster.get() }
            let result = Result { () -> TestPostgres in
                let cluster = TestPostgres(port: 25432)
                try cluster.start()
                return cluster
            }
            state = result
            return try result.get()
        }
    }

    private static let sharedStart = Mutex<Result<TestPostgres, any Error>?>(nil)

    /// A cluster of its own on `port`, for tests that stop or restart it; call `start()`.
    public init(port: Int) {
        self.port = port
    }

    /// The URL of `database` on this cluster.
    public func url(database: String = "postgres") -> String {
        "postgres://postgres@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// Makes an empty database with a fresh name and returns its URL.
    public func freshDatabase() throws -> String {
        let name = "linkd_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try psql("CREATE DATABASE \(name)")
        return url(database: String(name))
    }

    /// Runs one SQL command with psql on the `postgres` database; returns its unaligned output.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let psql = try ExternalTool.path("psql", install: "apt-get install postgresql-client")
        let output = try ExternalTool.run(psql, ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", url(database: database), "-c", sql])
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts the cluster (creating it on first use); idempotent.
    public func start() throws { try script("start") }
    /// Stops the cluster (fast shutdown: connections are cut).
    public func stop() throws { try script("stop") }
    /// Restarts the cluster.
    public func restart() throws { try script("restart") }

    private func script(_ command: String) throws {
        let path = LinkdProcess.repositoryRoot.appendingPathComponent("scripts/test-postgres.sh").path
        do {
            try ExternalTool.run("/bin/bash", [path, command, String(port)])
        } catch {
            throw ExternalTool.Failure(description: "PostgreSQL for the tests: \(error) — run scripts/ensure-deps.sh test")
        }
    }
}
