import Synchronization
import TokenSigning

/// The one handle to the signing keys in force: a `Keyring` (an immutable value), swapped whole. The request path
/// reads it once per request (`LinkService`, through `VerifiedTokens` and `create`); `KeyAdministration` alone
/// installs a new one — after a change it wrote to the store, or when another instance changed the keys.
final class KeysInForce: Sendable {
    private let current: Mutex<Keyring>

    /// A handle with `keyring` in force.
    init(_ keyring: Keyring) {
        current = Mutex(keyring)
    }

    /// The keyring in force now: read it once per request and work from it.
    var keyring: Keyring { current.withLock { $0 } }

    /// Puts `keyring` in force: requests that start from now on read it.
    func install(_ keyring: Keyring) {
        current.withLock { $0 = keyring }
    }
}
