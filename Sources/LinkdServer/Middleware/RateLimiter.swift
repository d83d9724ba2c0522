import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Per-client token buckets: `burst` requests at once, refilled at `perSecond`. Bounded memory: when more than
/// `maxClients` buckets exist, full (idle) buckets are dropped first, then all.
final class RateLimiter: Sendable {
    fileprivate struct Bucket {
        var tokens: Double
        var updated: Double
    }

    fileprivate let buckets = Mutex<[String: Bucket]>([:])
    fileprivate let perSecond: Double
    fileprivate let burst: Double
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

extension RateLimiter {
    /// Whether the client has at least one token left, without taking it.
    func peek(_ client: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Bool {
        buckets.withLock { buckets in
            guard let bucket = buckets[client] else { return true }
            return min(burst, bucket.tokens + max(0, now - bucket.updated) * perSecond) >= 1
        }
    }

    /// Whole seconds until the client's bucket holds `cost` tokens again (rounded up, at least 1): the
    /// `Retry-After` of a refusal. Called only on the refusal path (it takes the lock once more).
    func secondsUntilAvailable(_ client: String, cost: Double = 1, now: Double = ProcessInfo.processInfo.systemUptime) -> Int {
        let tokens = buckets.withLock { buckets -> Double in
            guard let bucket = buckets[client] else { return burst }
            return min(burst, bucket.tokens + max(0, now - bucket.updated) * perSecond)
        }
        guard tokens < cost else { return 1 }
        guard perSecond > 0 else { return Self.maxRetryAfterSeconds }
        let seconds = ((cost - tokens) / perSecond).rounded(.up)
        return seconds >= Double(Self.maxRetryAfterSeconds) ? Self.maxRetryAfterSeconds : max(1, Int(seconds))
    }

    /// The longest `Retry-After` sent (a day): a bucket refilling slower than that is as good as closed.
    static let maxRetryAfterSeconds = 86_400
}
