public import Foundation

/// What the router hands to the caller's link lookup: the token as found in the URL.
public struct ShareLinkQuery: Sendable, Equatable {
    /// App id.
    public var app: String
    /// The token string (percent-decoded once).
    public var token: String
    /// Creates a query.
    public init(app: String, token: String) {
        self.app = app
        self.token = token
    }
}

/// What a share link points at when it is active.
public struct ShareLinkTarget: Sendable, Equatable {
    /// Link id (hex).
    public var linkID: String
    /// Route id; empty means the manifest's `share.route`.
    public var route: String
    /// Params of the route.
    public var params: [String: String]
    /// When the link expires.
    public var expiresAt: Date
    /// Creates a target.
    public init(linkID: String, route: String, params: [String: String], expiresAt: Date) {
        self.linkID = linkID
        self.route = route
        self.params = params
        self.expiresAt = expiresAt
    }
}

/// Why a link is no longer available.
public enum UnavailableReason: String, Sendable, Codable {
    case revoked, expired, deleted
}

/// The caller's answer about a share token.
public enum LinkStatus: Sendable, Equatable {
    /// Valid and live.
    case active(ShareLinkTarget)
    /// Known but no longer available.
    case unavailable(linkID: String?, reason: UnavailableReason)
    /// Malformed, forged, unknown key: all the same from outside.
    case unknown
}

/// Why a share target was refused by `Router.checkShareTarget`.
public struct RouteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Machine code.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let value: String
        private init(_ value: String) { self.value = value }
        /// Text form.
        public var description: String { value }
        /// No such app.
        public static let unknownApp = Code("unknownApp")
        /// No such route.
        public static let unknownRoute = Code("unknownRoute")
        /// The route is not `shareable`.
        public static let notShareable = Code("notShareable")
        /// A param is missing, unknown or of the wrong type.
        public static let badParams = Code("badParams")
    }
    /// Machine code.
    public var code: Code
    /// Message.
    public var message: String
    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
