import Foundation
import LinkdTestSupport
import Synchronization
import Testing

@testable import LinkStore

private func link(_ n: Int, owner: String = "u1") -> LinkRecord {
    LinkRecord(
        id: String(format: "%032x", n), app: "handz", route: "Library/FlowDetail", params: ["flowId": "f\(n)"], owner: owner,
        title: nil, created: Date(timeIntervalSince1970: 1_700_000_000), expires: Date(timeIntervalSince1970: 1_800_000_000))
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass; true when it held.
private func eventually(within seconds: Double, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}

@Suite("PostgreSQL store")
struct PostgresStoreTests {
    @Test("database URLs: what is accepted, and what is refused with a reason")
    func locations() throws {
        let full = try PostgresLocation(url: "postgres://app:s%40cret@db.internal:6543/links?sslmode=require")
        #expect(full.host == "db.internal" && full.port == 6543 && full.username == "app" && full.password == "s@cret")
        #expect(full.database == "links" && full.tls == .require)
        #expect(!full.description.contains("cret"))
        let short = try PostgresLocation(url: "postgresql://linkd@localhost")
        #expect(short.port == 5432 && short.database == "linkd" && short.tls == .prefer && short.password == nil)
        #expect(try PostgresLocation(url: "postgresql://linkd@db.internal").tls == .require, "no sslmode, not loopback: require")
        for bad in ["mysql://u@h/db", "postgres://h/db", "postgres://u@/db", "postgres://u@h/a/b", "postgres://u@h/db?sslmode=maybe",
                    "postgres://u@h/db?pool=3", "postgres://u@h/" + String(repeating: "x", count: 3000)] {
            #expect(throws: LinkStoreError.self, "\(bad.prefix(40))") { try PostgresLocation(url: bad) }
        }
    }

    @Test("sslmode: require unless given, or the host is loopback; a weaker mode to another host warns, naming the risk")
    func sslmodeDefaults() throws {
        for host in ["localhost", "LocalHost", "127.0.0.1", "127.255.0.9", "[::1]", "[0:0:0:0:0:0:0:1]"] {
            let location = try PostgresLocation(url: "postgres://u@\(host):5432/db")
            #expect(location.tls == .prefer && location.sslmode == nil && location.tlsWarning == nil, "\(host)")
            #expect(try PostgresLocation(url: "postgres://u@\(host)/db?sslmode=disable").tlsWarning == nil, "\(host): loopback never warns")
        }
        for host in ["db.internal", "10.0.0.5", "128.0.0.1", "localhost.example", "[::2]", "[2001:db8::1]", "127.0.0.1.nip.io"] {
            let location = try PostgresLocation(url: "postgres://u@\(host)/db")
            #expect(location.tls == .require && location.tlsWarning == nil, "\(host)")
        }
        #expect(PostgresLocation.isLoopback(host: "::1") && !PostgresLocation.isLoopback(host: "0177.0.0.1"))
        for (mode, tls) in [("disable", PostgresLocation.TLSMode.disable), ("allow", .prefer), ("prefer", .prefer)] {
            let location = try PostgresLocation(url: "postgres://u:pw@db.internal/db?sslmode=\(mode)")
            #expect(location.tls == tls && location.sslmode == mode)
            let warning = try #require(location.tlsWarning, "\(mode)")
            #expect(warning.contains("sslmode=\(mode) to db.internal") && warning.contains("not a loopback host"))
            #expect(warning.contains(mode == "disable" ? "plain text" : "can make the connection plain text") && warning.contains("use sslmode=require"))
            #expect(!warning.contains("pw"))
        }
        for mode in ["require", "verify-ca", "verify-full"] {
            let location = try PostgresLocation(url: "postgres://u@db.internal/db?sslmode=\(mode)")
            #expect(location.tls == .require && location.tlsWarning == nil)
        }
    }

    @Test("instances starting together on an empty database migrate it once")
    func concurrentMigration() async throws {
        let url = try TestPostgres.shared().freshDatabase()
        let stores = try await withThrowingTaskGroup(of: StoreFront.self) { group in
            for _ in 0..<4 { group.addTask { try await StoreFront.open(.postgres(url: url)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stores.count == 4)
        try await stores[0].createLink(link(1))
        #expect(try await stores[3].link(id: link(1).id) == link(1))
        // Each migration applied once: as many rows as migrations (v1, deferred-v1, …), whoever ran them.
        let database = String(url.split(separator: "/").last!.split(separator: "?")[0])
        #expect(try TestPostgres.shared().psql("SELECT count(*) FROM linkd_migrations", database: database)
            == String(PostgresMigrations.all.count))
        for store in stores { await store.close() }
    }

    @Test("a revocation, an owner-wide revocation and a key change on one instance reach another through the feed")
    func changeFeed() async throws {
        let url = try TestPostgres.shared().freshDatabase()
        let a = try await StoreFront.open(.postgres(url: url, timing: PostgresTiming(syncInterval: .seconds(30))))
        let b = try await StoreFront.open(.postgres(url: url, timing: PostgresTiming(syncInterval: .seconds(30))))
        let keyChanges = Mutex(0)
        let following = Task { try await b.synchronize { keyChanges.withLock { $0 += 1 } } }
        defer { following.cancel() }
        // The listener's first full reload reports keys once; wait for it so later counts are the feed's.
        #expect(await eventually(within: 5) { keyChanges.withLock { $0 } >= 1 })
        let startCount = keyChanges.withLock { $0 }

        for n in 1...3 { try await a.createLink(link(n, owner: n == 3 ? "bob" : "alice")) }
        #expect(try await b.link(id: link(1).id)?.status == .active)  // now cached on b
        try await a.revokeLink(id: link(1).id)
        // The poll is 30 s away: only the notification can make this pass in time.
        #expect(await eventually(within: 2) { b.isRevoked(linkID: link(1).id, generation: 1) })
        #expect(b.cachedLink(id: link(1).id) == nil)
        #expect(try await b.link(id: link(1).id)?.status == .revoked)

        #expect(try await a.revokeLinks(app: "handz", owner: "bob") == 1)
        #expect(await eventually(within: 2) { b.isRevoked(linkID: link(3).id, generation: 1) })
        #expect(!b.isRevoked(linkID: link(2).id, generation: 1))

        try await a.saveKeyRecords([StoredKeyRecord(app: "handz", kid: 7, record: Data([1]))])
        #expect(await eventually(within: 2) { keyChanges.withLock { $0 } > startCount })
        #expect(try await b.keyRecords().map(\.kid) == [7])
        await a.close()
        await b.close()
    }

    @Test("a link marked deleted on one instance is deleted on another that had it cached as active, and only once")
    func deletionReachesOtherInstances() async throws {
        let url = try TestPostgres.shared().freshDatabase()
        let a = try await StoreFront.open(.postgres(url: url, timing: PostgresTiming(syncInterval: .seconds(30))))
        let b = try await StoreFront.open(.postgres(url: url, timing: PostgresTiming(syncInterval: .seconds(30))))
        let reloads = Mutex(0)
        let following = Task { try await b.synchronize { reloads.withLock { $0 += 1 } } }
        defer { following.cancel() }
        // b listens once its first full reload (which reports keys) is done.
        #expect(await eventually(within: 5) { reloads.withLock { $0 } >= 1 })
        try await a.createLink(link(1))
        #expect(try await b.link(id: link(1).id)?.status == .active)  // now cached on b
        #expect(try await a.markLinkDeleted(id: link(1).id)?.status == .deleted)
        // The poll is 30 s away: the notification drops b's cached record.
        #expect(await eventually(within: 2) { b.cachedLink(id: link(1).id) == nil })
        #expect(try await b.link(id: link(1).id)?.status == .deleted)
        #expect(try await b.markLinkDeleted(id: link(1).id) == nil, "the two instances change it once between them")
        await a.close()
        await b.close()
    }

    @Test("the poll finds what no notification announced")
    func pollSafetyNet() async throws {
        let url = try TestPostgres.shared().freshDatabase()
        let a = try await StoreFront.open(.postgres(url: url))
        let b = try await StoreFront.open(.postgres(url: url, timing: PostgresTiming(syncInterval: .milliseconds(300))))
        try await a.createLink(link(1))
        let following = Task { try await b.synchronize {} }
        defer { following.cancel() }
        try await Task.sleep(for: .milliseconds(500))
        // A change written the way an instance would, but without the NOTIFY: only the poll can see it.
        let database = String(url.split(separator: "/").last!.split(separator: "?")[0])
        try TestPostgres.shared().psql("""
            BEGIN; UPDATE links SET status = 'revoked' WHERE id = '\(link(1).id)';
            INSERT INTO revocations VALUES ('\(link(1).id)', 1, now());
            UPDATE change_counter SET version = version + 1;
            INSERT INTO changes (version, kind, app, subject, generation)
              SELECT version, 'revocation', 'handz', '\(link(1).id)', 1 FROM change_counter; COMMIT;
            """, database: database)
        #expect(await eventually(within: 3) { b.isRevoked(linkID: link(1).id, generation: 1) })
        await a.close()
        await b.close()
    }

    @Test("click counts from many instances add up exactly")
    func clicksAddUp() async throws {
        let url = try TestPostgres.shared().freshDatabase()
        let stores = [try await StoreFront.open(.postgres(url: url)), try await StoreFront.open(.postgres(url: url))]
        try await stores[0].createLink(link(1))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<40 {
                let store = stores[round % 2]
                group.addTask {
                    let clicks = LinkClicks(count: round + 1, lastOpened: Date(timeIntervalSince1970: 1_750_000_000 + Double(round)))
                    try await store.addShareEvents(ShareEventBatch(links: [link(1).id: LinkEvents(app: "handz", clicks: clicks)]))
                }
            }
            try await group.waitForAll()
        }
        let clicks = try await stores[1].clicks(linkID: link(1).id)
        #expect(clicks.count == (1...40).reduce(0, +))
        #expect(clicks.lastOpened == Date(timeIntervalSince1970: 1_750_000_039))
        for store in stores { await store.close() }
    }

    @Test("with the database down calls fail fast with a storage error, and the store reconnects by itself")
    func databaseDown() async throws {
        let cluster = TestPostgres(port: 25441)
        try cluster.start()
        let url = try cluster.freshDatabase()
        let store = try await StoreFront.open(.postgres(url: url, timing: PostgresTiming(operationTimeout: .seconds(2))))
        try await store.createLink(link(1))
        _ = try await store.link(id: link(1).id)
        try cluster.stop()
        let started = ContinuousClock.now
        await #expect(throws: LinkStoreError.self) { try await store.createLink(link(2)) }
        await #expect(throws: LinkStoreError.self) { try await store.ping() }
        #expect(ContinuousClock.now - started < .seconds(6))
        // What memory holds goes on.
        #expect(store.cachedLink(id: link(1).id) != nil)
        try cluster.start()
        let back = await eventually(within: 20) { (try? await store.ping()) != nil }
        #expect(back)
        try await store.createLink(link(2))
        #expect(try await store.linkCount() == 2)
        await store.close()
        try cluster.stop()
    }
}
