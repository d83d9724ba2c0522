import Synchronization

/// Which link a short id names, as far as memory knows beside the link cache (which finds a cached record by its
/// short id itself): the short ids of links made or imported here (short id → link id, two generations: recently
/// used ones stay, memory stays bounded), and the short ids the store did not have (the negative cache: bounded,
/// each entry good for `unknownWindow`).
///
/// A short id names one link for ever (links are never removed, their short id never changes), so a known entry is
/// never stale: what changes — revocation, deletion, expiry — is in the link's record (`LinkCache`, dropped or
/// updated by writes and the change feed) and the revocation set. Only an unknown entry can be wrong later: when a
/// link with that very short id is made afterwards, here or on another instance. Short ids are random (2^65 of
/// them), so that takes someone asking for an id before it exists; the window bounds how long the link stays hidden
/// then. A link made on this instance drops its short id's unknown entry at once.
public final class ShortIDIndex: Sendable {
    /// The answer of memory for a short id.
    public enum Lookup: Equatable, Sendable {
        /// The short id names this link (its record may or may not be cached).
        case link(String)
        /// The store had no such short id less than `unknownWindow` ago.
        case unknown
        /// Memory does not know: read the store.
        case miss
    }

    private struct State {
        var current: [String: String] = [:]
        var previous: [String: String] = [:]
        var unknownCurrent: [String: ContinuousClock.Instant] = [:]
        var unknownPrevious: [String: ContinuousClock.Instant] = [:]
    }

    private let state = Mutex(State())
    private let half: Int
    private let unknownHalf: Int
    /// How long an unknown short id is answered from memory before the store is asked again.
    public let unknownWindow: Duration

    /// - Parameters:
    ///   - capacity: the most known short ids kept.
    ///   - unknownCapacity: the most unknown short ids kept.
    ///   - unknownWindow: how long an unknown short id is believed.
    public init(capacity: Int, unknownCapacity: Int, unknownWindow: Duration) {
        self.half = max(1, capacity / 2)
        self.unknownHalf = max(1, unknownCapacity / 2)
        self.unknownWindow = unknownWindow
    }

    /// What memory knows of `shortID` now.
    public func lookup(_ shortID: String, now: ContinuousClock.Instant = .now) -> Lookup {
        state.withLock { state in
            if let id = state.current[shortID] { return .link(id) }
            if let id = state.previous.removeValue(forKey: shortID) {
                Self.insert(shortID, id, into: &state.current, previous: &state.previous, half: half)
                return .link(id)
            }
            if let since = state.unknownCurrent[shortID] ?? state.unknownPrevious[shortID] {
                if now - since < unknownWindow { return .unknown }
                state.unknownCurrent.removeValue(forKey: shortID)
                state.unknownPrevious.removeValue(forKey: shortID)
            }
            return .miss
        }
    }

    /// Notes that `shortID` names link `linkID` (and is no longer unknown).
    public func put(_ shortID: String, linkID: String) {
        state.withLock { state in
            state.unknownCurrent.removeValue(forKey: shortID)
            state.unknownPrevious.removeValue(forKey: shortID)
            state.previous.removeValue(forKey: shortID)
            Self.insert(shortID, linkID, into: &state.current, previous: &state.previous, half: half)
        }
    }

    /// Notes that the store has no link with `shortID`, as of `now`.
    public func putUnknown(_ shortID: String, now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state.unknownPrevious.removeValue(forKey: shortID)
            Self.insert(shortID, now, into: &state.unknownCurrent, previous: &state.unknownPrevious, half: unknownHalf)
        }
    }

    /// Forgets every unknown short id (a full reload of the store's state).
    public func removeUnknown() {
        state.withLock { state in
            state.unknownCurrent = [:]
            state.unknownPrevious = [:]
        }
    }

    /// How many unknown short ids are held.
    public var unknownCount: Int {
        state.withLock { $0.unknownCurrent.count + $0.unknownPrevious.count }
    }

    private static func insert<Value>(
        _ key: String, _ value: Value, into current: inout [String: Value], previous: inout [String: Value], half: Int
    ) {
        if current[key] == nil, current.count >= half {
            previous = current
            current = [:]
        }
        current[key] = value
    }
}
