import GRDB
import Synchronization

/// Group commit for SQLite: writes that arrive while another batch is being written share the next transaction, and
/// so one WAL fsync (`synchronous=FULL`), instead of one each. Each write runs in a savepoint of its own, so one that
/// throws (a taken id) rolls back alone and its caller gets its error; the others commit. A caller returns only after
/// the commit that holds its write: an acknowledged write survives a crash as a lone transaction would.
///
/// One batch is one job on GRDB's writer queue, at most `maxBatch` writes: other writers (revocations, the stats
/// flush) queue between batches rather than behind a stream of creations.
final class SQLiteGroupCommit: Sendable {
    /// The most writes one transaction holds.
    static let maxBatch = 512

    private struct Pending: Sendable {
        let body: @Sendable (Database) throws -> Void
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var pending: [Pending] = []
        /// A batch job is queued or running: new writes wait for it to take them.
        var scheduled = false
        var counts = GroupCommitCounts()
    }

    /// The transactions committed so far and the writes they held.
    var counts: GroupCommitCounts { state.withLock { $0.counts } }

    private let pool: DatabasePool
    private let state = Mutex(State())

    init(pool: DatabasePool) {
        self.pool = pool
    }

    /// Runs `body` in a savepoint of the next batch's transaction and returns once that transaction is committed.
    /// A database error becomes `storage`; any other error `body` throws (a `LinkStoreError`, a refusal of its own)
    /// reaches the caller as it is.
    func write(_ body: @escaping @Sendable (Database) throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let schedule = state.withLock { state -> Bool in
                state.pending.append(Pending(body: body, continuation: continuation))
                guard !state.scheduled else { return false }
                state.scheduled = true
                return true
            }
            if schedule { scheduleBatch() }
        }
    }

    private func scheduleBatch() {
        pool.asyncWriteWithoutTransaction { [self] db in
            let batch = state.withLock { state -> [Pending] in
                let batch = Array(state.pending.prefix(Self.maxBatch))
                state.pending.removeFirst(batch.count)
                state.counts.transactions += 1
                state.counts.writes += batch.count
                return batch
            }
            commit(batch, in: db)
            let more = state.withLock { state -> Bool in
                state.scheduled = !state.pending.isEmpty
                return state.scheduled
            }
            if more { scheduleBatch() }
        }
    }

    /// One transaction for the batch: each write in its savepoint; then every caller answered.
    ///
    /// The savepoints' journal is kept in memory for the batch (`temp_store`): SQLite journals each page a savepoint
    /// changes, and past 64 KiB in a transaction it writes them to a temporary file — a third of the writer's system
    /// calls under load. A batch is bounded (`maxBatch` creations of a few pages each); every other write keeps the
    /// default, so that a statement changing a million rows (a publish's moves) spills its journal to disk.
    private func commit(_ batch: [Pending], in db: Database) {
        // The setting is read when the transaction begins (below); it drops no prepared statement (no temporary
        // database is open).
        try? db.execute(sql: "PRAGMA temp_store = MEMORY")
        defer { try? db.execute(sql: "PRAGMA temp_store = DEFAULT") }
        var outcomes = [(any Error)?](repeating: nil, count: batch.count)
        do {
            try db.inTransaction {
                for (index, write) in batch.enumerated() {
                    do {
                        try db.inSavepoint {
                            try write.body(db)
                            return .commit
                        }
                    } catch {
                        outcomes[index] = error
                    }
                }
                return .commit
            }
        } catch {
            // The commit itself failed (a full disk, say): nothing of the batch is stored.
            for write in batch { write.continuation.resume(throwing: LinkStoreError(.storage, "write failed: \(error)")) }
            return
        }
        for (write, outcome) in zip(batch, outcomes) {
            switch outcome {
            case nil: write.continuation.resume()
            case let error as DatabaseError: write.continuation.resume(throwing: LinkStoreError(.storage, "write failed: \(error)"))
            case let error?: write.continuation.resume(throwing: error)  // the write's own refusal, as it threw it
            }
        }
    }
}

/// How many transactions a group commit made and how many writes they held (their ratio: the writes per fsync).
public struct GroupCommitCounts: Sendable, Equatable {
    /// Transactions begun (each one fsync when it commits).
    public var transactions = 0
    /// Writes they held.
    public var writes = 0
}
