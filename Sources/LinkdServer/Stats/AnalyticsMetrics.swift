import LinkdHTTP
import Prometheus

/// The analytics' Prometheus counters, by app and platform, made once at start for every loaded app (so counting
/// is a dictionary lookup and an atomic add; an app not loaded counts nothing):
/// - `linkd_link_opens_total{app, platform}` — share pages shown to people (`ios`, `android`, `desktop`) and to
///   link-preview crawlers (`preview`);
/// - `linkd_store_redirects_total{app, platform}` — store redirects (`ios`, `android`);
/// - `linkd_claims_total{app, outcome}` — claim codes `made`, `claimed`, `expired` (expired: counted by the
///   instance whose sweep deleted them);
/// - `linkd_claim_codes_withheld_total{reason}` — store redirects that went without a code: `rate_limited` (the
///   address's codes per minute), `cap` (`maxLiveClaimCodes`), `link_cap`
///   (`maxLiveClaimCodesPerLink`), `store` (the store failed), `crawler`;
/// - `linkd_share_events_dropped_total` — events the share-event buffer did not count because it held
///   `shareEventBufferCapacity` other links (its stats and click totals miss them; the counters above do not).
final class AnalyticsMetrics: Sendable {
    /// A share-page audience.
    enum Audience: String, CaseIterable {
        case ios, android, desktop, preview
    }

    /// What happened to a claim code.
    enum ClaimOutcome: String, CaseIterable {
        case made, claimed, expired
    }

    /// Why a store redirect went without a code.
    enum Withheld: String, CaseIterable {
        case rateLimited = "rate_limited", cap, linkCap = "link_cap", store, crawler
    }

    private let opens: [String: [Audience: Counter]]
    private let redirects: [String: [StorePlatform: Counter]]
    private let claims: [String: [ClaimOutcome: Counter]]
    private let withheld: [Withheld: Counter]
    private let dropped: Counter
    /// Where counters of apps published after start are made (the registry returns the same counter for the same
    /// name and labels).
    private let registry: PrometheusCollectorRegistry

    /// Counters for `apps` in `registry`.
    init(registry: PrometheusCollectorRegistry, apps: [String]) {
        self.registry = registry
        var opens: [String: [Audience: Counter]] = [:]
        var redirects: [String: [StorePlatform: Counter]] = [:]
        var claims: [String: [ClaimOutcome: Counter]] = [:]
        for app in apps {
            for audience in Audience.allCases {
                opens[app, default: [:]][audience] = registry.counter(
                    .linkOpens, labels: [("app", app), ("platform", audience.rawValue)])
            }
            for platform in StorePlatform.allCases {
                redirects[app, default: [:]][platform] = registry.counter(
                    .storeRedirects, labels: [("app", app), ("platform", platform.rawValue)])
            }
            for outcome in ClaimOutcome.allCases {
                claims[app, default: [:]][outcome] = registry.counter(
                    .claims, labels: [("app", app), ("outcome", outcome.rawValue)])
            }
        }
        self.opens = opens
        self.redirects = redirects
        self.claims = claims
        var withheld: [Withheld: Counter] = [:]
        for reason in Withheld.allCases {
            withheld[reason] = registry.counter(.claimCodesWithheld, labels: [("reason", reason.rawValue)])
        }
        self.withheld = withheld
        dropped = registry.counter(.shareEventsDropped)
    }

    /// Counts a share page shown.
    func recordOpen(app: String, _ audience: Audience) {
        (opens[app]?[audience] ?? registry.counter(
            .linkOpens, labels: [("app", app), ("platform", audience.rawValue)])).increment()
    }

    /// Counts a store redirect.
    func recordStoreRedirect(app: String, _ platform: StorePlatform) {
        (redirects[app]?[platform] ?? registry.counter(
            .storeRedirects, labels: [("app", app), ("platform", platform.rawValue)])).increment()
    }

    /// Counts `count` claim codes of `app` made, claimed or expired.
    func recordClaims(app: String, _ outcome: ClaimOutcome, count: Int = 1) {
        guard count > 0 else { return }
        (claims[app]?[outcome] ?? registry.counter(
            .claims, labels: [("app", app), ("outcome", outcome.rawValue)])).increment(by: Int64(count))
    }

    /// Counts a store redirect that went without a code.
    func recordWithheld(_ reason: Withheld) { withheld[reason]?.increment() }

    /// Counts an event the full share-event buffer did not count.
    func recordDroppedEvent() { dropped.increment() }
}
