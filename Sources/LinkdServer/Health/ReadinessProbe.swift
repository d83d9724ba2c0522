/// Whether the store answers, as `/readyz` reports it: one database ping serves every readiness check for
/// `maxAge` (1 s). Checks that come while a ping is under way wait for that ping rather than start another, so
/// a load balancer polling many times a second costs the database one ping a second; and a store that stops
/// answering is reported unready within `maxAge` of the first ping to fail (plus the ping's own time limit).
actor ReadinessProbe {
    /// How long a ping's answer stands, from when the ping started.
    static let maxAge: Duration = .seconds(1)

    private let ping: @Sendable () async throws -> Void
    private let maxAge: Duration
    /// The last ping's answer and when that ping started.
    private var last: (ready: Bool, started: ContinuousClock.Instant)?
    /// The ping under way, if one is.
    private var running: Task<Bool, Never>?

    /// A probe asking `ping` (which throws when the store does not answer) at most once per `maxAge`.
    init(maxAge: Duration = ReadinessProbe.maxAge, ping: @escaping @Sendable () async throws -> Void) {
        self.maxAge = maxAge
        self.ping = ping
    }

    /// Whether the store answered the latest ping, pinging it first when that answer is older than `maxAge`.
    func isReady() async -> Bool {
        if let last, ContinuousClock.now - last.started < maxAge { return last.ready }
        if let running { return await running.value }
        let started = ContinuousClock.now
        let task = Task { [ping] in
            do {
                try await ping()
                return true
            } catch {
                return false
            }
        }
        running = task
        let ready = await task.value
        last = (ready, started)
        running = nil
        return ready
    }
}
