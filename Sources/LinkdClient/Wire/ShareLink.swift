public import Foundation

/// A share link just made (`POST /v1/links`): the only answer that carries its token and URL.
public struct CreatedShareLink: Codable, Sendable, Hashable {
    /// The link id (32 hex digits): what `revokeShareLink(id:)` and `shareLink(id:)` take.
    public var id: String
    /// The app it belongs to (the API key's).
    public var app: String
    /// The signed share token.
    public var token: String
    /// The URL to share, as the app's manifest chooses (`share.url`): the token's
    /// (`https://links.handz.example/s/<token>`, the default) or the short one.
    public var url: URL
    /// The link's short URL (`https://links.handz.example/s/<11 base62 characters>`), which opens exactly what the
    /// token's does; nil from a server older than short ids.
    public var shortURL: URL?
    /// The URL of the custom path it was made with (`https://links.handz.example/guard-pass`); nil without one.
    public var pathURL: URL?
    /// When it stops opening.
    public var expiresAt: Date

    /// Creates a value (tests, previews).
    public init(id: String, app: String, token: String, url: URL, shortURL: URL? = nil, pathURL: URL? = nil, expiresAt: Date) {
        self.id = id
        self.app = app
        self.token = token
        self.url = url
        self.shortURL = shortURL
        self.pathURL = pathURL
        self.expiresAt = expiresAt
    }
}

/// A share link as the inspector shows it (`GET /v1/links/{id}`, and the answer to a revocation).
public struct ShareLink: Codable, Sendable, Hashable {
    /// The link id.
    public var id: String
    /// Its app.
    public var app: String
    /// The route it opens.
    public var route: String
    /// The route's params.
    public var params: [String: String]
    /// The app's user id of its owner, when given at creation.
    public var owner: String?
    /// Its display title, when given.
    public var title: String?
    /// `active`, `revoked`, `expired` or `deleted`.
    public var status: String
    /// When it was made.
    public var createdAt: Date
    /// When it stops (or stopped) opening.
    public var expiresAt: Date
    /// Clicks by people (not link-preview bots), including those not yet written.
    public var clicks: Int
    /// The last time a person opened it.
    public var lastOpenedAt: Date?
    /// Its short URL; nil for a link made before short ids (or from a server older than them).
    public var shortURL: URL?
    /// Its custom path's URL while it holds one (a path passes to a new link once this one is revoked or expired).
    public var pathURL: URL?

    /// Creates a value (tests, previews).
    public init(
        id: String, app: String, route: String, params: [String: String], owner: String? = nil, title: String? = nil,
        status: String, createdAt: Date, expiresAt: Date, clicks: Int, lastOpenedAt: Date? = nil, shortURL: URL? = nil,
        pathURL: URL? = nil
    ) {
        self.id = id
        self.app = app
        self.route = route
        self.params = params
        self.owner = owner
        self.title = title
        self.status = status
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.clicks = clicks
        self.lastOpenedAt = lastOpenedAt
        self.shortURL = shortURL
        self.pathURL = pathURL
    }
}

/// The bodies the client sends. Optional fields are left out when nil, as the server's schema allows.
struct CreateShareLinkBody: Encodable, Sendable {
    var route: String?
    var params: [String: String]
    var ttlSeconds: Int?
    var owner: String?
    var title: String?
    var path: String?
}

/// `POST /v1/resolve`'s body.
struct ResolveBody: Encodable, Sendable {
    var url: String
    var state: String
    var app: String?
    /// The app's version and platform, when the configuration has them (a route newer than the app answers
    /// `.updateRequired`).
    var appVersion: String?
    var platform: String?
}

/// `POST /v1/claims/{code}`'s body.
struct ClaimBody: Encodable, Sendable {
    var state: String
}
