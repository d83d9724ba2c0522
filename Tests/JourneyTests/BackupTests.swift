import Foundation
import LinkdTestSupport
import Synchronization
import Testing

/// `linkd admin backup` against a daemon taking writes, then a restore as docs/deploy.md says: stop, put the copy in
/// place of `linkd.sqlite` beside the same `master.key`, start. What was acknowledged before the backup is there, its
/// share pages open (the signing keys came back), the old admin key still works.
@Suite("Backups", .serialized)
struct BackupTests {
    /// Links created by a client while the test runs; each with when it was acknowledged.
    final class Writes: Sendable {
        let acknowledged = Mutex<[(id: String, token: String, at: ContinuousClock.Instant)]>([])
        let slowest = Mutex<Duration>(.zero)
        let failures = Mutex<[Int]>([])
        let stopped = Mutex(false)
    }

    static func create(_ base: String, key: String) async throws -> (Int, [String: Any]) {
        let reply = try await TestHTTP.send("POST", base + "/v1/links", bearer: key, json: [
            "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()], "owner": "backup",
        ])
        return (reply.status, reply.json)
    }

    @Test("a backup under load keeps every acknowledged write; restored, the links, keys and admin key are there")
    func backupAndRestore() async throws {
        let dir = temporaryDataDir()
        let first = try LinkdDaemon(dataDir: dir)
        let admin = try #require(first.initialAdminKey)
        let made = try await TestHTTP.send("POST", first.baseURL + "/v1/admin/api-keys", bearer: admin,
                                           json: ["kind": "client", "app": "handz", "label": "backup"])
        let client = try #require(made.json["key"] as? String)
        for _ in 0..<200 { _ = try await Self.create(first.baseURL, key: client) }

        // Two writers create links without pause while the backup runs.
        let writes = Writes()
        let clock = ContinuousClock()
        let load = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        while !writes.stopped.withLock({ $0 }) {
                            let started = clock.now
                            let (status, json) = try await Self.create(first.baseURL, key: client)
                            let took = clock.now - started
                            writes.slowest.withLock { $0 = max($0, took) }
                            if status == 201, let id = json["id"] as? String, let token = json["token"] as? String {
                                writes.acknowledged.withLock { $0.append((id, token, clock.now)) }
                            } else {
                                writes.failures.withLock { $0.append(status) }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let backupStarted = clock.now
        let backup = try LinkdProcess.run(
            ["admin", "backup", "--json"], unsetting: ["LINKD_CREDENTIALS"],
            environment: ["LINKD_URL": first.baseURL, "LINKD_ADMIN_KEY": admin])
        try await Task.sleep(for: .milliseconds(300))
        writes.stopped.withLock { $0 = true }
        try await load.value
        #expect(backup.status == 0, "\(backup.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(backup.stdout.utf8)) as? [String: Any])
        let file = try #require(answer["file"] as? String)
        #expect(file.hasPrefix(dir + "/backups/linkd-") && file.hasSuffix(".sqlite"), "\(file)")
        #expect((answer["bytes"] as? Int ?? 0) > 100_000)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(writes.failures.withLock { $0 }.isEmpty, "no write failed during the backup")
        let slowest = writes.slowest.withLock { $0 }
        print("backup: \(answer["bytes"] ?? 0) bytes in \(answer["durationMs"] ?? 0) ms; slowest link creation meanwhile \(slowest)")
        #expect(slowest < .seconds(2), "a write waited \(slowest) during the backup")
        let before = writes.acknowledged.withLock { $0.filter { $0.at < backupStarted } }
        #expect(before.count > 10)
        let audit = try await TestHTTP.send("GET", first.baseURL + "/v1/admin/audit?action=store.backup", bearer: admin)
        #expect((audit.json["entries"] as? [[String: Any]])?.count == 1)
        #expect(first.stop())

        // Restore into a new data directory: the copy as linkd.sqlite, beside the same master key.
        let restored = temporaryDataDir()
        try FileManager.default.createDirectory(atPath: restored, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(atPath: dir + "/master.key", toPath: restored + "/master.key")
        try FileManager.default.copyItem(atPath: file, toPath: restored + "/linkd.sqlite")
        let second = try LinkdDaemon(dataDir: restored)
        defer { second.stop() }
        #expect(second.initialAdminKey == nil, "the admin key came back with the store: no new one is made")
        #expect(try await TestHTTP.send("GET", second.baseURL + "/v1/admin/keys", bearer: admin).status == 200)
        for link in before.suffix(20) {
            #expect(try await TestHTTP.send("GET", second.baseURL + "/v1/links/\(link.id)", bearer: admin).status == 200, "\(link.id)")
            #expect(try await TestHTTP.send("GET", second.baseURL + "/s/\(link.token)").status == 200, "its share page opens")
        }
        #expect(try await Self.create(second.baseURL, key: client).0 == 201, "the client key works on the restored store")
    }

    @Test("on PostgreSQL a backup is 422 naming pg_dump; the CLI exits 1 with the message")
    func postgresRefuses() throws {
        let url = try TestPostgres.shared().freshDatabase()
        let daemon = try LinkdDaemon(dataDir: temporaryDataDir(), environment: ["LINKD_DATABASE_URL": url])
        defer { daemon.stop() }
        let run = try LinkdProcess.run(
            ["admin", "backup"], unsetting: ["LINKD_CREDENTIALS"],
            environment: ["LINKD_URL": daemon.baseURL, "LINKD_ADMIN_KEY": try #require(daemon.initialAdminKey)])
        #expect(run.status == 1)
        #expect(run.stderr.contains("pg_dump") && run.stderr.contains("master key"), "\(run.stderr)")
    }
}
