import LinkStore
import Logging
import ServiceLifecycle

/// Deletes the claim codes of deferred links whose time is up every `interval`, and once more at shutdown: each is
/// counted as expired on its link's day row (in the store's transaction that deletes it) and in
/// `linkd_claims_total{outcome="expired"}` by the instance that deleted it.
struct ClaimExpiryService: Service {
    let store: StoreFront
    let metrics: AnalyticsMetrics
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await ServiceLoop.repeating(every: interval) { await expire() }
    }

    private func expire() async {
        do {
            for (app, count) in try await store.expireClaims() { metrics.recordClaims(app: app, .expired, count: count) }
        } catch {
            logger.error("claim expiry failed", metadata: ["error": "\(error)"])
        }
    }
}
