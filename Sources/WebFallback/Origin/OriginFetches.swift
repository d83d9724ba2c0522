import Synchronization

/// The origin fetches in flight: at most `limit` at once, none started after `close()`, and a way to wait until
/// the last one has ended (graceful shutdown: no curl transfer outlives the server's orderly stop).
public final class OriginFetches: Sendable {
    private struct State {
        var inFlight = 0
        var closed = false
    }

    private let state = Mutex(State())
    /// The most fetches in flight at once.
    public let limit: Int

    /// At most `limit` (at least 1) fetches at once.
    public init(limit: Int) { self.limit = max(1, limit) }

    /// Takes a slot; false when all are taken or the fetches are closed.
    public func enter() -> Bool {
        state.withLock { state in
            guard !state.closed, state.inFlight < limit else { return false }
            state.inFlight += 1
            return true
        }
    }

    /// Gives a slot back.
    public func leave() { state.withLock { $0.inFlight -= 1 } }

    /// How many fetches are in flight.
    public var inFlight: Int { state.withLock { $0.inFlight } }

    /// Starts no more fetches (pages go out without a fresh preview from now on).
    public func close() { state.withLock { $0.closed = true } }

    /// Waits until no fetch is in flight, or `limit` has passed; true when none is.
    public func drained(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while inFlight > 0 {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}
