import Synchronization

/// Which link holds a custom path of an app, as far as memory knows, and the paths the store lacked (the negative
/// cache). Keyed by app and `CustomPath.key` (case folded, as the store's unique index is); bounded, two generations
/// as `LinkCache` keeps them.
///
/// Unlike a short id, a path changes hands: a revoked or expired link's path may be taken by a new link, here or on
/// another instance. So every entry — a holder or "none" — is believed for `window` only; after it the store is read
/// again. That bounds both the store reads an unknown path costs (one per path and window) and how long another
/// instance's new holder stays unseen here. A link made on this instance replaces the entry at once.
public final class CustomPathIndex: Sendable {
    /// The answer of memory for a path.
    public enum Lookup: Equatable, Sendable {
        /// This link held the path less than `window` ago (its record may or may not be cached).
        case link(String)
        /// No link held the path less than `window` ago.
        case unknown
        /// Memory does not know (or no longer believes what it knew): read the store.
        case miss
    }

    private struct Entry {
        var linkID: String?
        var since: ContinuousClock.Instant
    }

    private struct State {
        var current: [String: Entry] = [:]
        var previous: [String: Entry] = [:]
    }

    private let state = Mutex(State())
    private let half: Int
    /// How long an entry is believed.
    public let window: Duration

    /// - Parameters:
    ///   - capacity: the most entries kept (holders and unknown paths together).
    ///   - window: how long an entry is believed.
    public init(capacity: Int, window: Duration) {
        self.half = max(1, capacity / 2)
        self.window = window
    }

    /// The key of `path` of `app` in this index.
    static func key(app: String, path: String) -> String {
        app + "\u{0}" + CustomPath.key(path)
    }

    /// What memory knows of `path` of `app` now.
    public func lookup(app: String, path: String, now: ContinuousClock.Instant = .now) -> Lookup {
        let key = Self.key(app: app, path: path)
        return state.withLock { state in
            guard let entry = state.current[key] ?? state.previous[key] else { return .miss }
            guard now - entry.since < window else {
                state.current.removeValue(forKey: key)
                state.previous.removeValue(forKey: key)
                return .miss
            }
            return entry.linkID.map { .link($0) } ?? .unknown
        }
    }

    /// Notes that link `linkID` holds `path` of `app` (nil: no link does), as of `now`; the link id noted before, if
    /// another.
    @discardableResult
    public func put(app: String, path: String, linkID: String?, now: ContinuousClock.Instant = .now) -> String? {
        let key = Self.key(app: app, path: path)
        return state.withLock { state in
            let before = (state.current[key] ?? state.previous[key])?.linkID
            state.previous.removeValue(forKey: key)
            if state.current[key] == nil, state.current.count >= half {
                state.previous = state.current
                state.current = [:]
            }
            state.current[key] = Entry(linkID: linkID, since: now)
            return before == linkID ? nil : before
        }
    }

    /// Forgets everything (a full reload of the store's state).
    public func removeAll() {
        state.withLock { $0 = State() }
    }
}
