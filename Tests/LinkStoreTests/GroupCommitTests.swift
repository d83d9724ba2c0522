import Foundation
import GRDB
@testable import LinkStore
import LinkdTestSupport
import Synchronization
import Testing

private func link(_ n: Int) -> LinkRecord {
    LinkRecord(
        id: String(format: "%032x", 0x9000 + n), app: "handz", route: "Library/FlowDetail", params: ["flowId": "f\(n)"],
        owner: "alice", title: nil, created: Date(timeIntervalSince1970: 1_700_000_000),
        expires: Date(timeIntervalSince1970: 1_800_000_000), shortID: String(format: "g%010d", n))
}

/// SQLite's new links are group-committed (`SQLiteGroupCommit`): creations that arrive together share a transaction
/// and its fsync; one that fails rolls back alone.
@Suite("SQLite group commit")
struct GroupCommitTests {
    @Test("200 creations at once: every one stored, in fewer transactions than creations")
    func concurrentCreations() async throws {
        let backend = try SQLiteBackend(path: temporaryDataDir() + ".sqlite")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<200 { group.addTask { try await backend.insertLink(link(n)) } }
            try await group.waitForAll()
        }
        for n in 0..<200 { #expect(try await backend.fetchLink(id: link(n).id) != nil, "link \(n)") }
        let counts = backend.linkCommits
        #expect(counts.writes == 200)
        #expect(counts.transactions < counts.writes, "no two creations shared a transaction: \(counts)")
    }

    @Test("a batch keeps its savepoints' journal in memory; every other write keeps SQLite's default, which spills to disk")
    func journalInMemoryForBatchesOnly() async throws {
        let backend = try SQLiteBackend(path: temporaryDataDir() + ".sqlite")
        // Twice: every batch sets it, not only the first.
        for batch in 1...2 {
            let during = Mutex<Int?>(nil)
            try await backend.groupCommit.write { db in
                let store = try Int.fetchOne(db, sql: "PRAGMA temp_store")
                during.withLock { $0 = store }
            }
            #expect(during.withLock { $0 } == 2, "MEMORY inside batch \(batch)")
            #expect(try await backend.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") } == 0,
                    "DEFAULT for the writes after batch \(batch)")
        }
    }

    @Test("a taken id or short id in a batch is that creation's conflict; the others of its transaction are stored")
    func conflictRollsBackAlone() async throws {
        let backend = try SQLiteBackend(path: temporaryDataDir() + ".sqlite")
        try await backend.insertLink(link(0))
        let sameShortID = {
            var record = link(1000)
            record.shortID = link(0).shortID
            return record
        }()
        let outcomes = await withTaskGroup(of: (Int, LinkStoreError.Code?).self) { group in
            for n in 1...60 {
                group.addTask {
                    let record = n == 30 ? link(0) : n == 31 ? sameShortID : link(n)
                    do { try await backend.insertLink(record); return (n, nil) } catch let error as LinkStoreError {
                        return (n, error.code)
                    } catch { return (n, .storage) }
                }
            }
            return await group.reduce(into: [Int: LinkStoreError.Code?]()) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes[30] == .some(.conflict) && outcomes[31] == .some(.conflict), "\(outcomes)")
        for n in 1...60 where n != 30 && n != 31 {
            #expect(outcomes[n] == .some(nil), "link \(n): \(String(describing: outcomes[n]))")
            #expect(try await backend.fetchLink(id: link(n).id) != nil, "link \(n)")
        }
        #expect(try await backend.fetchLink(id: sameShortID.id) == nil, "the refused creation left nothing")
        #expect(try await backend.fetchLink(id: link(0).id)?.params == link(0).params, "the first holder is unchanged")
    }
}
