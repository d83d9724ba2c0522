import Synchronization

/// The HTTP-01 challenges being answered, in memory and thread-safe: the ACME client publishes and withdraws, the
/// daemon's plain-HTTP listener answers `GET /.well-known/acme-challenge/<token>` from `keyAuthorization(for:)`.
public final class HTTP01Challenges: HTTP01Responder {
    /// The path prefix the CA fetches tokens under.
    public static let pathPrefix = "/.well-known/acme-challenge/"

    private let answers = Mutex<[String: String]>([:])

    /// No challenge yet.
    public init() {}

    /// Starts answering `token`.
    public func publish(token: String, keyAuthorization: String) async {
        answers.withLock { $0[token] = keyAuthorization }
    }

    /// Stops answering `token`.
    public func withdraw(token: String) async {
        _ = answers.withLock { $0.removeValue(forKey: token) }
    }

    /// The key authorization published for `token`, or nil (answer 404).
    public func keyAuthorization(for token: String) -> String? {
        answers.withLock { $0[token] }
    }

    /// The key authorization for a request path (`/.well-known/acme-challenge/<token>`), or nil for any other path
    /// or an unknown token.
    public func keyAuthorization(forPath path: String) -> String? {
        guard path.hasPrefix(Self.pathPrefix) else { return nil }
        let token = path.dropFirst(Self.pathPrefix.count)
        guard !token.isEmpty, !token.contains("/") else { return nil }
        return keyAuthorization(for: String(token))
    }

    /// How many tokens are being answered.
    public var count: Int { answers.withLock { $0.count } }
}
