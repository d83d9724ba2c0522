import Foundation
import Synchronization

/// Per-client token buckets: `burst` requests at once, refilled at `perSecond`. Bounded memory: when more than
/// `maxClients` buckets exist, full (idle) buckets are dropped first, then all.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private let buckets = Mutex<[String: Bucket]>([:])
    private let perSecond: Double
    private let burst: Double
    private let maxClients: Int

    /// Creates a limiter.
    init(perSecond: Double, burst: Double, maxClients: Int = 100_000) {
        self.perSecond = perSecond
        self.burst = burst
        self.maxClients = maxClients
    }

    /// Takes `cost` tokens from the client's bucket; false when it is empty (the caller answers 429).
    func allow(_ client: String, cost: Double = 1, now: Double = ProcessInfo.processInfo.systemUptime) -> Bool {
        buckets.withLock { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * perSecond)
            bucket.updated = now
            let allowed = bucket.tokens >= cost
            if allowed { bucket.tokens -= cost }
            if buckets[client] == nil, buckets.count >= maxClients {
                Self.evict(&buckets, now: now, perSecond: perSecond, burst: burst, maxClients: maxClients)
            }
            buckets[client] = bucket
            return allowed
        }
    }

    /// How many clients have a bucket.
    var clientCount: Int { buckets.withLock { $0.count } }

    private static func evict(_ buckets: inout [String: Bucket], now: Double, perSecond: Double, burst: Double, maxClients: Int) {
        buckets = buckets.filter { _, bucket in bucket.tokens + (now - bucket.updated) * perSecond < burst }
        if buckets.count >= maxClients { buckets.removeAll(keepingCapacity: true) }
    }
}
