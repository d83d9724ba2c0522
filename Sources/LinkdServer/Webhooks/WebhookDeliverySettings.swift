import Foundation

/// When a failed webhook delivery is tried again: exponential backoff with jitter. After failed attempt `n` the next
/// comes `base × 2^(n−1)` later (at most `maxDelay`), each delay ±20 % at random so that endpoints that failed
/// together are not retried together. With the defaults (5 s, 16 attempts) the delays run 5 s, 10 s, 20 s … 5.7 h,
/// 6 h, 6 h: the last attempt comes about 23 hours after the first.
struct WebhookRetrySchedule: Sendable, Equatable {
    /// The delay after the first failed attempt, seconds.
    let base: Double
    /// Attempts of one event, the first included.
    let maxAttempts: Int
    /// The longest delay between two attempts, seconds.
    static let maxDelay: Double = 6 * 3600

    /// The delay after failed attempt `attempt` (1 is the first), `random` in 0..<1; nil when it was the last.
    func delay(afterAttempt attempt: Int, random: Double = Double.random(in: 0..<1)) -> Double? {
        guard attempt < maxAttempts else { return nil }
        let nominal = min(base * pow(2, Double(min(attempt - 1, 40))), Self.maxDelay)
        return nominal * (0.8 + 0.4 * random)
    }

    /// The time from the first attempt to the last, without jitter, seconds.
    var nominalSpan: Double {
        (1..<max(1, maxAttempts)).reduce(0) { $0 + (delay(afterAttempt: $1, random: 0.5) ?? 0) }
    }
}

/// How webhooks are delivered: the configuration's choices (`ServerConfiguration+Webhooks.swift`) and fixed limits.
struct WebhookDeliverySettings: Sendable, Equatable {
    /// Whether loopback endpoints (and plain `http` to them) are allowed.
    var allowLoopback: Bool
    /// When failed deliveries are retried, and how often.
    var retries: WebhookRetrySchedule
    /// How often the outbox is looked at.
    var pollInterval: Duration
    /// The longest a connection to an endpoint may take.
    var connectTimeout: Duration = .seconds(5)
    /// The longest a whole delivery may take.
    var totalTimeout: Duration = .seconds(10)
    /// The most bytes of an endpoint's answer read (the rest is refused; the status is what counts).
    var maxResponseBytes = 16 * 1024
    /// The most deliveries leased and sent at once by one instance.
    var batchSize = 16
    /// How long a leased delivery belongs to its instance: well over `totalTimeout`, so that a lease runs out only
    /// when its instance died.
    var lease: Duration = .seconds(60)
    /// How many attempts each endpoint's delivery log keeps.
    var keptAttempts = 100
}
