import Foundation
import Synchronization

/// Per-client token buckets: `burst` tokens at once, refilled at `perSecond`.
///
/// A request is let through while its client's bucket holds at least one token, and then charged its cost (1 for
/// most; more for expensive ones, `RequestCost`): a costly request may take the bucket into debt (down to
/// `-burst`), which later requests wait out. Memory is bounded: at most `maxClients` buckets, the least recently
/// used one giving way to a new client (a flood of new addresses evicts the oldest buckets only, never all).
package final class RateLimiter: Sendable {
    /// One client's bucket, in a list from most to least recently used (indices into `State.entries`).
    private struct Entry {
        var client: String
        var tokens: Double
        var updated: Double
        var newer = -1
        var older = -1

        /// The tokens at `now`: what was left, refilled at `perSecond` since `updated`, at most `burst`.
        func tokens(at now: Double, perSecond: Double, burst: Double) -> Double {
            min(burst, tokens + max(0, now - updated) * perSecond)
        }
    }

    private struct State {
        var index: [String: Int] = [:]
        var entries: [Entry] = []
        var newest = -1
        var oldest = -1
    }

    private let state = Mutex(State())
    private let perSecond: Double
    private let burst: Double
    private let maxClients: Int

    /// Creates a limiter.
    package init(perSecond: Double, burst: Double, maxClients: Int = 100_000) {
        self.perSecond = perSecond
        self.burst = burst
        self.maxClients = max(1, maxClients)
    }

    /// Lets a request of `client` through when its bucket holds a token, charging `cost`; false (nothing charged)
    /// when it does not (the caller answers 429).
    package func allow(_ client: String, cost: Double = 1, now: Double = ProcessInfo.processInfo.systemUptime) -> Bool {
        state.withLock { state in
            let slot = Self.touch(&state, client, now: now, perSecond: perSecond, burst: burst, maxClients: maxClients)
            guard state.entries[slot].tokens >= 1 else { return false }
            state.entries[slot].tokens = max(-burst, state.entries[slot].tokens - cost)
            return true
        }
    }

    /// Charges `cost` to the client's bucket, whatever it holds (down to `-burst`): for a request let through by
    /// `peek` whose cost is known once it is read.
    package func charge(_ client: String, cost: Double, now: Double = ProcessInfo.processInfo.systemUptime) {
        state.withLock { state in
            let slot = Self.touch(&state, client, now: now, perSecond: perSecond, burst: burst, maxClients: maxClients)
            state.entries[slot].tokens = max(-burst, state.entries[slot].tokens - cost)
        }
    }

    /// Whether the client's bucket holds a token, without taking it (nor making a bucket).
    package func peek(_ client: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Bool {
        tokens(client, now: now) >= 1
    }

    /// Whole seconds until the client's bucket holds a token again (rounded up, at least 1): the `Retry-After` of a
    /// refusal.
    package func secondsUntilAvailable(_ client: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Int {
        let tokens = tokens(client, now: now)
        guard tokens < 1 else { return 1 }
        guard perSecond > 0 else { return Self.maxRetryAfterSeconds }
        let seconds = ((1 - tokens) / perSecond).rounded(.up)
        return seconds >= Double(Self.maxRetryAfterSeconds) ? Self.maxRetryAfterSeconds : max(1, Int(seconds))
    }

    /// How many clients have a bucket.
    var clientCount: Int { state.withLock { $0.index.count } }

    /// The longest `Retry-After` sent (a day): a bucket refilling slower than that is as good as closed.
    static let maxRetryAfterSeconds = 86_400

    private func tokens(_ client: String, now: Double) -> Double {
        state.withLock { state in
            guard let slot = state.index[client] else { return burst }
            return state.entries[slot].tokens(at: now, perSecond: perSecond, burst: burst)
        }
    }

    /// The client's slot, refilled to `now` and made the most recently used; a new client takes a fresh slot or,
    /// at `maxClients`, the least recently used one's.
    private static func touch(
        _ state: inout State, _ client: String, now: Double, perSecond: Double, burst: Double, maxClients: Int
    ) -> Int {
        if let slot = state.index[client] {
            state.entries[slot].tokens = state.entries[slot].tokens(at: now, perSecond: perSecond, burst: burst)
            state.entries[slot].updated = now
            if state.newest != slot {
                unlink(&state, slot)
                pushNewest(&state, slot)
            }
            return slot
        }
        let fresh = Entry(client: client, tokens: burst, updated: now)
        let slot: Int
        if state.entries.count < maxClients {
            slot = state.entries.count
            state.entries.append(fresh)
        } else {
            slot = state.oldest
            unlink(&state, slot)
            state.index[state.entries[slot].client] = nil
            state.entries[slot] = fresh
        }
        state.index[client] = slot
        pushNewest(&state, slot)
        return slot
    }

    private static func unlink(_ state: inout State, _ slot: Int) {
        let (newer, older) = (state.entries[slot].newer, state.entries[slot].older)
        if newer >= 0 { state.entries[newer].older = older } else { state.newest = older }
        if older >= 0 { state.entries[older].newer = newer } else { state.oldest = newer }
        state.entries[slot].newer = -1
        state.entries[slot].older = -1
    }

    private static func pushNewest(_ state: inout State, _ slot: Int) {
        state.entries[slot].older = state.newest
        state.entries[slot].newer = -1
        if state.newest >= 0 { state.entries[state.newest].newer = slot }
        state.newest = slot
        if state.oldest < 0 { state.oldest = slot }
    }
}
