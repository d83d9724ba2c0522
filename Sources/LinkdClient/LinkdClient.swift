public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// linkd's client for apps: resolves links for the user's session state, makes share links, claims deferred links.
///
/// ```swift
/// let client = LinkdClient(baseURL: URL(string: "https://links.handz.example")!)
/// let resolution = try await client.resolve(url, state: session.isSignedIn ? "free" : "signedOut")
/// router.apply(resolution.plan(for: state))
/// ```
///
/// Every call has a time limit (`Configuration.timeout`) and is retried within `Configuration.retry`'s bounds,
/// honouring `Retry-After` — but calls that could do something twice (creating a link, claiming a code) only after
/// answers that say the server did not act on them. Failures are `LinkdClientError`s carrying the server's
/// `{"error": {"code", "message"}}`.
public struct LinkdClient: Sendable {
    /// How the client sends its requests.
    public struct Configuration: Sendable {
        /// The most one attempt may take, from sending to the last byte of the answer. Default 10 s.
        public var timeout: Duration
        /// When and how often a failed call is tried again. Default: 3 attempts, 10 s of waiting at most.
        public var retry: RetryPolicy
        /// The largest answer read, in bytes; a longer one is `unexpectedResponse`. Default 1 MiB.
        public var maxResponseBytes: Int
        /// Sent as `User-Agent`.
        public var userAgent: String
        /// The app's version, sent with every resolution (`appVersion`): a route the manifest says is newer
        /// (`since`) answers `.updateRequired` with a fallback the app has. Default: the bundle's
        /// `CFBundleShortVersionString`; nil sends none (every route is answered as the app had it).
        public var appVersion: String?
        /// The app's platform (`ios`, `android`), sent with `appVersion`. Default: `ios` on iOS, iPadOS and
        /// visionOS (the App Store's), else nil.
        public var platform: String?

        /// - Parameters: see the properties.
        public init(
            timeout: Duration = .seconds(10), retry: RetryPolicy = RetryPolicy(), maxResponseBytes: Int = 1 << 20,
            userAgent: String = "LinkdClient/1", appVersion: String? = Configuration.bundleVersion,
            platform: String? = Configuration.defaultPlatform
        ) {
            self.timeout = timeout
            self.retry = retry
            self.maxResponseBytes = maxResponseBytes
            self.userAgent = userAgent
            self.appVersion = appVersion
            self.platform = appVersion == nil ? nil : platform
        }

        /// The main bundle's `CFBundleShortVersionString` (nil outside an app bundle, as in tests on Linux).
        public static var bundleVersion: String? {
            Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String
        }

        /// `ios` where the app comes from the App Store; nil elsewhere.
        public static var defaultPlatform: String? {
            #if os(iOS) || os(visionOS) || os(tvOS)
            "ios"
            #else
            nil
            #endif
        }
    }

    /// The daemon's address (`https://links.example.com`); paths are appended to it.
    public let baseURL: URL
    /// A client API key of the app (`lkd_…`), needed only for share links; resolving and claiming take none.
    public let apiKey: String?
    /// The session requests go through.
    public let session: URLSession
    /// Time limits and retries.
    public let configuration: Configuration

    /// - Parameters:
    ///   - baseURL: the daemon's address.
    ///   - apiKey: a client key of the app, for `createShareLink`, `shareLink` and `revokeShareLink`.
    ///   - session: the `URLSession` to use (default `.shared`).
    ///   - configuration: time limits and retries.
    public init(baseURL: URL, apiKey: String? = nil, session: URLSession = .shared, configuration: Configuration = Configuration()) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.session = session
        self.configuration = configuration
    }

    // MARK: Resolving

    /// Where `url` goes for a caller in session state `state` (`POST /v1/resolve`). A URL that leads nowhere is an
    /// answer (outcome `.notFound`), not an error; a revoked, expired or unknown share link is `.linkUnavailable`.
    /// - Parameters:
    ///   - url: the link as the app received it (universal link, custom scheme, share link).
    ///   - state: one of the app's session states (Handz: `signedOut`, `guest`, `free`, `pro`, `trial`).
    ///   - app: the app's id, when the URL alone does not say (a URL on a host several apps share).
    public func resolve(_ url: URL, state: String, app: String? = nil) async throws(LinkdClientError) -> Resolution {
        let body = ResolveBody(
            url: url.absoluteString, state: state, app: app, appVersion: configuration.appVersion, platform: configuration.platform)
        let request = try post("v1/resolve", body: body, authorized: false)
        return try await exchange.send(request, safety: .idempotent, as: Resolution.self)
    }

    /// Resumes an intercepted link after the state changed (signed in, upgraded): resolves its URL again in `state`.
    public func resume(_ continuation: Resolution.Continuation, state: String) async throws(LinkdClientError) -> Resolution {
        guard let url = URL(string: continuation.url) else {
            throw .invalidRequest("the continuation's URL cannot be read: \(continuation.url)")
        }
        return try await resolve(url, state: state)
    }

    // MARK: Deferred links

    /// Claims a deferred link (`POST /v1/claims/{code}`): the resolution of the link that was followed before the
    /// app was installed, once. A used, expired or unknown code is `ServerErrorCode.notFound` (or another 4xx):
    /// the app then opens as it would without a link. Only refusals the server did not act on are retried, so a
    /// code is never spent by a retry the app did not see.
    /// - Parameters:
    ///   - code: the claim code, from `ClaimCode.fromInstallReferrer(_:)` or `ClaimCode.fromPasted(_:)`.
    ///   - state: the caller's session state (on a first launch, usually the signed-out state).
    public func claim(code: ClaimCode, state: String) async throws(LinkdClientError) -> Resolution {
        let request = try post("v1/claims/\(code.value)", body: ClaimBody(state: state), authorized: false)
        return try await exchange.send(request, safety: .refusedOnly, as: Resolution.self)
    }

    /// Claims a deferred link from the code's text (checked with `ClaimCode(_:)` first: a malformed one is
    /// `invalidRequest`, and nothing is sent).
    public func claim(code: String, state: String) async throws(LinkdClientError) -> Resolution {
        guard let checked = ClaimCode(code) else { throw .invalidRequest("not a claim code: \(code.prefix(64))") }
        return try await claim(code: checked, state: state)
    }

    // MARK: Share links

    /// Makes a share link of this key's app (`POST /v1/links`). Not retried after failures that might have made it.
    /// - Parameters:
    ///   - route: the route it opens; nil for the manifest's `share.route` (Handz: `ShareLink/FlowView`).
    ///   - params: the route's params (Handz: `["flowId": …]`).
    ///   - ttl: how long it opens (whole seconds, 60 s at least; default: the server's `defaultTTLSeconds`).
    ///   - title: the title the landing page shows when the app's origin gives none.
    ///   - owner: the app's user id of its owner, so that all of a user's links can be revoked at once.
    ///   - path: a custom path on the app's share host (`/guard-pass`: letters, digits, `-`, `_`, `/`, at most 128
    ///     bytes); a path a route, linkd or another live link holds is the server's `path_taken`.
    public func createShareLink(
        route: String? = nil, params: [String: String], ttl: Duration? = nil, title: String? = nil, owner: String? = nil,
        path: String? = nil
    ) async throws(LinkdClientError) -> CreatedShareLink {
        let body = CreateShareLinkBody(
            route: route, params: params, ttlSeconds: ttl.map { Int($0.components.seconds) }, owner: owner, title: title, path: path)
        return try await exchange.send(try post("v1/links", body: body, authorized: true), safety: .refusedOnly, as: CreatedShareLink.self)
    }

    /// A share link of this key's app as the inspector shows it (`GET /v1/links/{id}`): status, clicks, dates.
    public func shareLink(id: String) async throws(LinkdClientError) -> ShareLink {
        try await exchange.send(try request("GET", "v1/links/\(try Self.linkID(id))", authorized: true), safety: .idempotent, as: ShareLink.self)
    }

    /// Revokes a share link of this key's app (`DELETE /v1/links/{id}`): in force at once; revoking it again answers
    /// the link again. Returns the revoked link.
    @discardableResult
    public func revokeShareLink(id: String) async throws(LinkdClientError) -> ShareLink {
        try await exchange.send(try request("DELETE", "v1/links/\(try Self.linkID(id))", authorized: true), safety: .idempotent, as: ShareLink.self)
    }

    // MARK: Requests

    private var exchange: Exchange { Exchange(session: session, configuration: configuration) }

    /// A link id as the server makes them (32 lowercase hex digits), so that nothing else reaches the path.
    private static func linkID(_ id: String) throws(LinkdClientError) -> String {
        guard id.utf8.count == 32, id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw .invalidRequest("not a link id (32 lowercase hex digits): \(id.prefix(64))")
        }
        return id
    }

    /// A request to `baseURL` + `path`, with the key when `authorized` (and the key is set).
    private func request(_ method: String, _ path: String, authorized: Bool) throws(LinkdClientError) -> URLRequest {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + "/" + path) else { throw .invalidRequest("cannot build a URL from \(baseURL) and \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(configuration.userAgent, forHTTPHeaderField: "User-Agent")
        if authorized {
            guard let apiKey else { throw .invalidRequest("this call needs a client API key (LinkdClient(baseURL:apiKey:))") }
            request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        }
        return request
    }

    /// A `POST` of `body` as JSON.
    private func post(_ path: String, body: some Encodable, authorized: Bool) throws(LinkdClientError) -> URLRequest {
        var request = try request("POST", path, authorized: authorized)
        do {
            request.httpBody = try Exchange.encoder.encode(body)
        } catch {
            throw .invalidRequest("the body cannot be encoded: \(error)")
        }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        return request
    }
}
