/// Deferred deep links: the claim codes store redirects make (`GET /s/{token}/install/{platform}`) and apps claim
/// (`POST /v1/claims/{code}`).
///
/// Keys (YAML file key — type — default):
/// - `claimTTLSeconds` — Int 60–604800 — `7200` (2 hours): how long a code can be claimed after it is made: the
///   install plus the first launch. Unclaimed, it is counted as expired and deleted.
/// - `claimCodesPerMinute` — Double > 0 — `10`: codes one client address may have made per minute (a burst of
///   `ClaimLimits.codeBurst`); past it, store redirects still go to the store, without a code.
/// - `maxLiveClaimCodes` — Int ≥ 1 — `1000000`: the most unexpired codes in the store (about 200 bytes each);
///   past it, store redirects go without a code. Counted outside the store's writer, at most once a second per
///   instance (`LiveClaimGauge`), so the cap may be passed by the codes of that second.
/// - `maxLiveClaimCodesPerLink` — Int ≥ 1 — `10000`: the most unexpired codes of one link, counted inside the
///   write that adds one; past it, that link's store redirects go without a code.
/// - `claimAttemptsPerMinute` — Double > 0 — `20`: claims one client address may try per minute (a burst of
///   `ClaimLimits.attemptBurst`); past it, `429` with `Retry-After`.
extension ServerConfiguration {
    /// Refuses claim settings that cannot work.
    func validateClaims() throws {
        guard (60...604_800).contains(claimTTLSeconds) else {
            throw ConfigurationError(message: "claimTTLSeconds must be 60–604800 (one minute to seven days)")
        }
        guard claimCodesPerMinute > 0 else { throw ConfigurationError(message: "claimCodesPerMinute must be positive") }
        guard maxLiveClaimCodes >= 1 else { throw ConfigurationError(message: "maxLiveClaimCodes must be at least 1") }
        guard maxLiveClaimCodesPerLink >= 1 else { throw ConfigurationError(message: "maxLiveClaimCodesPerLink must be at least 1") }
        guard claimAttemptsPerMinute > 0 else { throw ConfigurationError(message: "claimAttemptsPerMinute must be positive") }
    }
}
