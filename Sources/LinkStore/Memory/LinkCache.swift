import Synchronization

/// A bounded cache of link records: two generations of at most `capacity / 2` entries each.
///
/// A hit in the older generation moves the entry to the newer one; when the newer one is full, the older one is
/// dropped. Recently used records stay, memory stays bounded — an LRU approximation with no per-entry list.
public final class LinkCache: Sendable {
    private struct Generations {
        var current: [String: LinkRecord] = [:]
        var previous: [String: LinkRecord] = [:]
    }

    private let generations = Mutex(Generations())
    private let half: Int

    /// Creates a cache holding at most `capacity` records.
    public init(capacity: Int) {
        self.half = max(1, capacity / 2)
    }

    /// The cached record, if any.
    public func get(_ id: String) -> LinkRecord? {
        generations.withLock { state in
            if let record = state.current[id] { return record }
            guard let record = state.previous.removeValue(forKey: id) else { return nil }
            Self.insert(record, into: &state, half: half)
            return record
        }
    }

    /// Stores or replaces a record.
    public func put(_ record: LinkRecord) {
        generations.withLock { state in
            state.previous.removeValue(forKey: record.id)
            Self.insert(record, into: &state, half: half)
        }
    }

    /// Drops one record (another instance changed it).
    public func remove(_ id: String) {
        generations.withLock { state in
            state.current.removeValue(forKey: id)
            state.previous.removeValue(forKey: id)
        }
    }

    /// Drops every record (after a bulk update).
    public func removeAll() {
        generations.withLock { $0 = Generations() }
    }

    /// How many records are cached.
    public var count: Int {
        generations.withLock { $0.current.count + $0.previous.count }
    }

    private static func insert(_ record: LinkRecord, into state: inout Generations, half: Int) {
        if state.current[record.id] == nil, state.current.count >= half {
            state.previous = state.current
            state.current = [:]
        }
        state.current[record.id] = record
    }
}
