/// When a failed call is tried again, and how long the client waits before it does.
///
/// Bounded twice: at most `maxAttempts` attempts, and at most `maxTotalWait` spent waiting between them. A
/// `Retry-After` that would pass the remaining wait is not waited out: the error is thrown at once, carrying it.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (1: never retry).
    public var maxAttempts: Int
    /// The most time spent waiting between attempts, over one call.
    public var maxTotalWait: Duration
    /// The wait before the first retry of a failure that names none (a lost connection, a 503 without
    /// `Retry-After`); doubled for each later one, plus up to a quarter more at random, so that many apps failed by
    /// one outage do not come back at the same instant.
    public var initialBackoff: Duration

    /// - Parameters: see the properties. Defaults: 3 attempts, 10 s of waiting, 250 ms first backoff.
    public init(maxAttempts: Int = 3, maxTotalWait: Duration = .seconds(10), initialBackoff: Duration = .milliseconds(250)) {
        self.maxAttempts = max(1, maxAttempts)
        self.maxTotalWait = maxTotalWait
        self.initialBackoff = initialBackoff
    }

    /// Never retry.
    public static let never = RetryPolicy(maxAttempts: 1, maxTotalWait: .zero)

    /// What a call may safely be retried after.
    enum Safety: Sendable {
        /// Retrying cannot do anything twice (`resolve`, reads, a revocation): any transient failure is retried.
        case idempotent
        /// Retrying could do it twice (creating a link, claiming a code): only answers that say the request was
        /// refused before it was acted on (429, 503 `too_many_connections`) and connections that never opened.
        case refusedOnly
    }

    /// How long to wait before retrying after `error`, or nil when it must not be retried.
    /// - Parameters:
    ///   - attempt: the attempt that failed (1 for the first).
    ///   - waited: the time already spent waiting in this call.
    func delay(after error: LinkdClientError, attempt: Int, waited: Duration, safety: Safety) -> Duration? {
        guard attempt < maxAttempts, Self.isRetryable(error, safety: safety) else { return nil }
        let backoff = initialBackoff * (1 << min(attempt - 1, 16))
        let jitter = Duration.nanoseconds(Int64(Double(backoff.components.seconds * 1_000_000_000 + backoff.components.attoseconds / 1_000_000_000)
                                                * Double.random(in: 0...0.25)))
        let wait = error.serverError?.retryAfter ?? backoff + jitter
        guard waited + wait <= maxTotalWait else { return nil }
        return wait
    }

    /// Whether `error` may be retried for a call of this safety.
    static func isRetryable(_ error: LinkdClientError, safety: Safety) -> Bool {
        switch error {
        case .server(let server):
            switch server.code {
            case .rateLimited, .tooManyConnections: return true
            case .notReady, .storeUnavailable, .requestTimeout: return safety == .idempotent
            default: return safety == .idempotent && [502, 503, 504].contains(server.status)
            }
        case .unexpectedResponse(let status, _):
            // A proxy's 502/503/504 page: the request may or may not have reached linkd.
            return safety == .idempotent && [502, 503, 504].contains(status)
        case .transport(let code, _):
            // cannotConnectToHost (-1004), cannotFindHost (-1003), dnsLookupFailed (-1006): nothing was sent.
            return safety == .idempotent || [-1003, -1004, -1006].contains(code)
        case .timedOut:
            return safety == .idempotent
        case .invalidRequest:
            return false
        }
    }
}
