import LinkdHTTP
import LinkStore
import TokenSigning

/// What a request costs in per-client rate-limit tokens: 1 for most, more for the expensive ones, so that a client
/// cannot spend the server's CPU at the price of its cheapest request.
///
/// Measured costs (docs/operating.md, "Limits"): checking an Ed25519 share token is a signature verification, tens of
/// microseconds, where an HMAC-SHA256 token takes about one; a calendar file is parsed whole, up to 1 MiB.
enum RequestCost {
    /// What a request that checks an Ed25519 token costs in all.
    static let ed25519Token: Double = 5
    /// A calendar body costs one token more per this many bytes.
    static let calendarBytesPerToken = 16 * 1024

    /// What a request that carries a short id costs in all, known or not: the price of an unknown one, a store read
    /// (at most one per id and window: `StoreFront.unknownShortIDWindow`), charged by its shape alone — as a forged
    /// Ed25519 token pays what a valid one does — so the charge tells a prober nothing and ids cannot be tried faster
    /// than Ed25519 tokens can.
    static let shortID: Double = 5

    /// What a request for a custom path on a share host costs, found or not (`AppLinkPagesMiddleware`): the price
    /// of a short id, for the same reason — an unknown path costs a store read (one per path and window:
    /// `StoreFront.customPathWindow`).
    static let customPath: Double = 5

    /// A route that may carry a share token or a short id: 1, or `ed25519Token` when its target or body carries an
    /// Ed25519 share token (a run of exactly its encoded length of base64url characters), or `shortID` when it
    /// carries a run of exactly `ShortID.length` of them.
    static let byToken = HotRoute.Cost.byRuns([
        HotRoute.Run(length: TokenSuite.ed25519.encodedLength, cost: ed25519Token),
        HotRoute.Run(length: ShortID.length, cost: shortID),
    ])

    /// A `.ics` body: 1, plus 1 per 16 KiB (a 1 MiB file: 65).
    static let byCalendarSize = HotRoute.Cost.byBodySize(bytesPerToken: calendarBytesPerToken)
}
