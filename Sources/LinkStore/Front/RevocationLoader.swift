import Synchronization

/// Takes a backend's revocation rows one at a time and puts them into a `RevocationSet` in batches of
/// `batchSize`: the set's lock is taken once a batch, and the rows are never all in memory as rows.
///
/// A backend calls `reserve` (optionally) and `add` from one task; the front calls `finish` after the stream.
public final class RevocationLoader: Sendable {
    /// How many keys are put into the set at once.
    public static let batchSize = 4096

    private let set: RevocationSet
    private let batch: Mutex<[RevocationKey]>

    /// A loader adding to `set`.
    public init(into set: RevocationSet) {
        self.set = set
        var batch: [RevocationKey] = []
        batch.reserveCapacity(Self.batchSize)
        self.batch = Mutex(batch)
    }

    /// Reserves room in the set for about `count` pairs (a hint from a backend that knows the row count).
    public func reserve(_ count: Int) {
        set.reserve(count)
    }

    /// One revocation row; an id that is not 32 hex digits is skipped.
    public func add(linkID: String, generation: Int64) {
        guard let key = RevocationKey(hex: linkID, generation: UInt32(truncatingIfNeeded: generation)) else { return }
        batch.withLock { batch in
            batch.append(key)
            if batch.count == Self.batchSize {
                set.insert(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Puts the last, partial batch into the set.
    public func finish() {
        batch.withLock { batch in
            set.insert(batch)
            batch.removeAll(keepingCapacity: true)
        }
    }
}
