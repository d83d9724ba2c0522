import Foundation
import LinkStore
import Synchronization

/// The store's live claim codes against `maxLiveClaimCodes`, counted by a read of the store at most once per
/// `interval` (never inside the store's one writer: at a million rows a count takes about 20 ms), with the codes
/// this instance added since the last count added to it. Other instances' codes show at the next count, so the cap
/// may be passed by what all instances add in one interval: it bounds the table, it is not a quota.
final class LiveClaimGauge: Sendable {
    private struct State {
        var counted = 0
        var countedAt: Date?
        var addedSince = 0
        var counting = false
    }

    private let store: StoreFront
    private let limit: Int
    private let interval: TimeInterval
    private let state = Mutex(State())

    /// A gauge over `store`'s codes, against `limit`, re-counted every `interval` seconds.
    init(store: StoreFront, limit: Int, interval: TimeInterval = 1) {
        self.store = store
        self.limit = limit
        self.interval = interval
    }

    /// Whether another code may be made now: counts first when the last count is older than `interval` (one caller
    /// counts; the others use the last figure meanwhile).
    func hasRoom(now: Date) async throws -> Bool {
        let due = state.withLock { state -> Bool in
            guard !state.counting, state.countedAt.map({ now.timeIntervalSince($0) >= interval }) ?? true else { return false }
            state.counting = true
            return true
        }
        if due {
            do {
                let counted = try await store.liveClaimCount(now: now)
                state.withLock { state in
                    state = State(counted: counted, countedAt: now, addedSince: 0, counting: false)
                }
            } catch {
                state.withLock { $0.counting = false }
                throw error
            }
        }
        return state.withLock { $0.counted + $0.addedSince < limit }
    }

    /// One code was added by this instance.
    func added() {
        state.withLock { $0.addedSince += 1 }
    }

    /// One code was claimed on this instance (it no longer counts until the next count says otherwise).
    func removed() {
        state.withLock { $0.addedSince -= 1 }
    }
}
