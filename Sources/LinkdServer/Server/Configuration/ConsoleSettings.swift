/// The admin console at `/admin` (docs/admin-console.md).
public struct ConsoleSettings: ConfigurationSection {
    /// `adminConsole` / `LINKD_ADMIN_CONSOLE`: where the console is served: `public` (the main listener, beside the
    /// admin API it is a front for), `ops` (the ops listener only: needs `opsPort`; for a deployment whose ops port
    /// only the operators' network reaches), or `off`.
    public var adminConsole = "public"
    /// `adminSessionIdleSeconds` (60–86400): a console session unused this long is over.
    public var adminSessionIdleSeconds = 1800
    /// `adminSessionMaxSeconds` (60–604800): a session is over this long after sign-in (12 h), used or not.
    public var adminSessionMaxSeconds = 43_200

    /// The embedded defaults.
    public init() {}

    /// Where the console is served.
    enum Placement: String, CaseIterable {
        case `public`, ops, off
    }

    /// The console's placement, read from `adminConsole` (validated at load).
    var placement: Placement { Placement(rawValue: adminConsole) ?? .public }

    static var keys: [ConfigurationKey<Self>] {
        [
            .string("adminConsole", \.adminConsole, variable: "LINKD_ADMIN_CONSOLE"),
            .int("adminSessionIdleSeconds", \.adminSessionIdleSeconds), .int("adminSessionMaxSeconds", \.adminSessionMaxSeconds),
        ]
    }

    /// Refuses a placement that is not one, and session limits out of range (`ops` without an ops listener is the
    /// configuration's check).
    func validate() throws {
        guard Placement(rawValue: adminConsole) != nil else {
            let names = Placement.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError(message: "adminConsole '\(adminConsole.prefix(40))' must be one of \(names)")
        }
        guard (60...86_400).contains(adminSessionIdleSeconds) else {
            throw ConfigurationError(message: "adminSessionIdleSeconds must be 60–86400")
        }
        guard (60...604_800).contains(adminSessionMaxSeconds), adminSessionIdleSeconds <= adminSessionMaxSeconds else {
            throw ConfigurationError(message: "adminSessionMaxSeconds must be 60–604800 and at least adminSessionIdleSeconds")
        }
    }
}

/// Webhook delivery.
public struct WebhookSettings: ConfigurationSection {
    /// `allowLoopbackWebhooks`: lets an endpoint be plain `http` to a loopback address (127.0.0.0/8, `::1`, or a name
    /// resolving only to them), for development and tests. Never set it in production: without it endpoints are
    /// `https` only, and never delivered to a loopback, private, link-local, multicast or unspecified address.
    public var allowLoopbackWebhooks = false
    /// `webhookRetryBaseSeconds` (0.01–3600): the delay before the first retry of a failed delivery; each next delay
    /// doubles, at most 6 hours, each ±20 % at random.
    public var webhookRetryBaseSeconds = 5.0
    /// `webhookMaxAttempts` (1–30): attempts of one event (with the defaults the last comes about a day after the
    /// first); then the event is given up and its endpoint marked failing.
    public var webhookMaxAttempts = 16
    /// `webhookPollSeconds` (0.05–60): how often the outbox is looked at for due deliveries (an event waits at most
    /// this long before its first attempt).
    public var webhookPollSeconds = 1.0

    /// The embedded defaults.
    public init() {}

    static var keys: [ConfigurationKey<Self>] {
        [
            .bool("allowLoopbackWebhooks", \.allowLoopbackWebhooks), .double("webhookRetryBaseSeconds", \.webhookRetryBaseSeconds),
            .int("webhookMaxAttempts", \.webhookMaxAttempts), .double("webhookPollSeconds", \.webhookPollSeconds),
        ]
    }

    func validate() throws {
        guard (0.01...3600).contains(webhookRetryBaseSeconds) else {
            throw ConfigurationError(message: "webhookRetryBaseSeconds must be 0.01–3600")
        }
        guard (1...30).contains(webhookMaxAttempts) else { throw ConfigurationError(message: "webhookMaxAttempts must be 1–30") }
        guard (0.05...60).contains(webhookPollSeconds) else { throw ConfigurationError(message: "webhookPollSeconds must be 0.05–60") }
    }

    /// The delivery settings these keys make.
    var delivery: WebhookDeliverySettings {
        WebhookDeliverySettings(
            allowLoopback: allowLoopbackWebhooks,
            retries: WebhookRetrySchedule(base: webhookRetryBaseSeconds, maxAttempts: webhookMaxAttempts),
            pollInterval: .milliseconds(Int(webhookPollSeconds * 1000)))
    }
}

/// Deferred deep links: the claim codes store redirects make (`GET /s/{token}/install/{platform}`) and apps claim
/// (`POST /v1/claims/{code}`).
public struct ClaimSettings: ConfigurationSection {
    /// `claimTTLSeconds` (60–604800): how long a code can be claimed after it is made (2 hours): the install plus the
    /// first launch. Unclaimed, it is counted as expired and deleted.
    public var claimTTLSeconds = 7_200
    /// `claimCodesPerMinute` (> 0): codes one client address may have made per minute (a burst of
    /// `ClaimLimits.codeBurst`); past it, store redirects still go to the store, without a code.
    public var claimCodesPerMinute = 10.0
    /// `maxLiveClaimCodes` (≥ 1): the most unexpired codes in the store (about 200 bytes each); past it, store
    /// redirects go without a code. Counted outside the store's writer, at most once a second per instance
    /// (`LiveClaimGauge`), so the cap may be passed by the codes of that second.
    public var maxLiveClaimCodes = 1_000_000
    /// `maxLiveClaimCodesPerLink` (≥ 1): the most unexpired codes of one link, counted inside the write that adds one;
    /// past it, that link's store redirects go without a code.
    public var maxLiveClaimCodesPerLink = 10_000
    /// `claimAttemptsPerMinute` (> 0): claims one client address may try per minute (a burst of
    /// `ClaimLimits.attemptBurst`); past it, `429` with `Retry-After`.
    public var claimAttemptsPerMinute = 20.0

    /// The embedded defaults.
    public init() {}

    static var keys: [ConfigurationKey<Self>] {
        [
            .int("claimTTLSeconds", \.claimTTLSeconds), .double("claimCodesPerMinute", \.claimCodesPerMinute),
            .int("maxLiveClaimCodes", \.maxLiveClaimCodes), .int("maxLiveClaimCodesPerLink", \.maxLiveClaimCodesPerLink),
            .double("claimAttemptsPerMinute", \.claimAttemptsPerMinute),
        ]
    }

    func validate() throws {
        guard (60...604_800).contains(claimTTLSeconds) else {
            throw ConfigurationError(message: "claimTTLSeconds must be 60–604800 (one minute to seven days)")
        }
        guard claimCodesPerMinute > 0 else { throw ConfigurationError(message: "claimCodesPerMinute must be positive") }
        guard maxLiveClaimCodes >= 1 else { throw ConfigurationError(message: "maxLiveClaimCodes must be at least 1") }
        guard maxLiveClaimCodesPerLink >= 1 else { throw ConfigurationError(message: "maxLiveClaimCodesPerLink must be at least 1") }
        guard claimAttemptsPerMinute > 0 else { throw ConfigurationError(message: "claimAttemptsPerMinute must be positive") }
    }
}
