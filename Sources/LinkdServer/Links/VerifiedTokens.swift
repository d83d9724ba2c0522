import Foundation
import LinkdHTTP
import TokenSigning

/// The share tokens one request has checked, with what the keyring said: a lookup asked again after a store read,
/// or a URL resolved a second time, reuses the answer instead of checking the signature again. Made empty per
/// request (so with the request's one `now`: an answer is not re-judged at another time) and never shared; most
/// requests hold one token, kept without allocating. The keyring in force is read once, at the first check, and
/// every later check of the request uses that one, so a request never mixes two keyrings.
struct VerifiedTokens {
    private struct Entry {
        let token: String
        let app: String
        let result: Result<TokenClaims, TokenError>
    }

    private var first: Entry?
    private var more: [Entry] = []
    /// The keyring this request checks with: the one in force at its first check.
    private var keyring: Keyring?

    /// How many signatures this request checked (for `linkd_token_signature_checks_total` and the tests).
    private(set) var checks = 0

    /// An empty set.
    init() {}

    /// `keyring.verify(token, app:, now:)` with the keyring `keys` has in force, checked once per token and app.
    mutating func verify(_ token: String, app: String, now: Date, keys: KeysInForce) -> Result<TokenClaims, TokenError> {
        if let first, first.app == app, first.token == token { return first.result }
        if let entry = more.first(where: { $0.app == app && $0.token == token }) { return entry.result }
        checks += 1
        let keyring = self.keyring ?? keys.keyring
        self.keyring = keyring
        let result = keyring.verify(token, app: app, now: UInt32(clamping: Int(now.timeIntervalSince1970)))
        let entry = Entry(token: token, app: app, result: result)
        if first == nil { first = entry } else { more.append(entry) }
        return result
    }
}
