/// The answer to "where does this URL go for this caller". Codable with stable JSON keys (docs/matching.md).
public struct Resolution: Codable, Sendable, Equatable {
    /// What kind of answer this is.
    public enum Outcome: String, Codable, Sendable {
        /// Open `route`.
        case route
        /// The state may not open the target: show `route` (the intercept screen); `intercept` holds the target.
        case intercept
        /// Nothing matched (or the URL was refused): show `route` if the app has a not-found route.
        case notFound
        /// A share link that is revoked, expired, deleted or unknown: show `route` with `message` and `cta`.
        case linkUnavailable
        /// The caller's app version lacks `route` (its manifest `since`): ask for an update (`update`), and meanwhile
        /// show `fallback`, the nearest screen the app has.
        case updateRequired
    }

    /// Kind of answer.
    public var outcome: Outcome
    /// App id, when the URL belongs to a known app.
    public var app: String?
    /// Route to show.
    public var route: String?
    /// Its params.
    public var params: [String: String]
    /// Tab it lives in or is presented over (nil when the state has no tab shell).
    public var tab: String?
    /// `push`, `sheet.medium`, …
    public var presentation: Presentation?
    /// Whether the tab bar stays visible.
    public var tabBarVisible: Bool
    /// Routes to put under it, root first (it is not included).
    public var stack: [String]
    /// State → route that closing it returns to.
    public var returnTo: [String: String]
    /// Action name (`import`) → where the app goes after it succeeds.
    public var afterActions: [String: RouteTarget]?
    /// Set for outcome `intercept`.
    public var intercept: InterceptInfo?
    /// Set for share links.
    public var link: LinkInfo?
    /// Message to show (link unavailable).
    public var message: String?
    /// Call-to-action route for the caller's state (link unavailable).
    public var cta: String?
    /// Why nothing matched (notFound) — machine code and text.
    public var problem: ResolutionProblem?
    /// Set for outcome `updateRequired`: the version the route needs and where to get it.
    public var update: UpdateInfo?
    /// Set for outcome `updateRequired`: where an app without the route goes instead (its nearest ancestor the app
    /// has), placed as a resolution places a route; nil when the app has none of them.
    public var fallback: Fallback?

    /// What an app too old for a route is told.
    public struct UpdateInfo: Codable, Sendable, Equatable {
        /// The first version that has the route (on the caller's platform).
        public var requiredVersion: String
        /// The caller's platform, when it said (`ios`, `android`).
        public var platform: String?
        /// The store page of the app on that platform, when the manifest names it.
        public var storeURL: String?

        /// Creates update info.
        public init(requiredVersion: String, platform: String?, storeURL: String?) {
            self.requiredVersion = requiredVersion
            self.platform = platform
            self.storeURL = storeURL
        }
    }

    /// Where an app too old for a route goes instead: a route placed for the caller's state.
    public struct Fallback: Codable, Sendable, Equatable {
        /// Route to show.
        public var route: String
        /// Its params (those of the original target that it declares).
        public var params: [String: String]
        /// Tab it lives in (nil when the state has no tab shell).
        public var tab: String?
        /// How it is presented.
        public var presentation: Presentation?
        /// Whether the tab bar stays visible.
        public var tabBarVisible: Bool
        /// Routes to put under it, root first.
        public var stack: [String]
        /// State → route that closing it returns to.
        public var returnTo: [String: String]

        /// The placed parts of `resolution`.
        init(_ resolution: Resolution) {
            route = resolution.route ?? ""
            params = resolution.params
            tab = resolution.tab
            presentation = resolution.presentation
            tabBarVisible = resolution.tabBarVisible
            stack = resolution.stack
            returnTo = resolution.returnTo
        }
    }

    /// The target kept while an intercept is shown.
    public struct InterceptInfo: Codable, Sendable, Equatable {
        /// The intercept screen (same as the resolution's route).
        public var route: String
        /// The original target to resume (after sign-in, after upgrading), when the manifest keeps it.
        public var continuation: Continuation?
        /// Where dismissing the intercept goes ("where they were": the target's parent or tab root).
        public var returnTo: String?
    }

    /// The original target of an intercepted URL.
    public struct Continuation: Codable, Sendable, Equatable {
        /// Route id.
        public var route: String
        /// Params.
        public var params: [String: String]
        /// The URL as received.
        public var url: String
        /// Creates a continuation.
        public init(route: String, params: [String: String], url: String) {
            self.route = route
            self.params = params
            self.url = url
        }
    }

    /// Share-link details.
    public struct LinkInfo: Codable, Sendable, Equatable {
        /// Link id (hex), when known.
        public var id: String?
        /// `active`, `revoked`, `expired`, `deleted`, `unknown`.
        public var status: String
        /// Expiry as unix seconds, when active.
        public var expiresAt: Int?
        /// Creates link info.
        public init(id: String?, status: String, expiresAt: Int?) {
            self.id = id
            self.status = status
            self.expiresAt = expiresAt
        }
    }

    static func failure(_ problem: ResolutionProblem, app: String? = nil) -> Resolution {
        Resolution(outcome: .notFound, app: app, route: nil, params: [:], tab: nil, presentation: nil, tabBarVisible: false,
                   stack: [], returnTo: [:], afterActions: nil, intercept: nil, link: nil, message: nil, cta: nil, problem: problem)
    }
}

/// Why a URL resolved to notFound: a machine code and a message.
public struct ResolutionProblem: Error, Codable, Sendable, Equatable {
    /// Machine code.
    public struct Code: Codable, Sendable, Hashable, CustomStringConvertible {
        private let value: String
        /// Text form.
        public var description: String { value }
        private init(_ value: String) { self.value = value }
        /// Encodes as a plain string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
        /// Decodes a plain string.
        public init(from decoder: any Decoder) throws {
            value = try decoder.singleValueContainer().decode(String.self)
        }
        /// Over the URL length cap.
        public static let urlTooLong = Code("urlTooLong")
        /// Not a URL we can read.
        public static let malformedURL = Code("malformedURL")
        /// `user@host` URLs are refused.
        public static let userinfoRefused = Code("userinfoRefused")
        /// A port the app did not configure.
        public static let portRefused = Code("portRefused")
        /// No app claims the scheme or host.
        public static let unknownApp = Code("unknownApp")
        /// No pattern matches the path.
        public static let noMatch = Code("noMatch")
        /// An http(s) path with an empty segment (`/tab//recents`, `//x`): iOS would not open it in the app.
        public static let nonCanonicalPath = Code("nonCanonicalPath")
        /// A required query param is missing or a query param has the wrong type.
        public static let badQuery = Code("badQuery")
        /// The state may not open the route and no intercept applies.
        public static let notAllowed = Code("notAllowed")
        /// The state is not one the app declares.
        public static let unknownState = Code("unknownState")
        /// A long link (`/?link=…`, `LongLink`) whose `link` is repeated, empty, nested, over the cap, or not a URL
        /// of the app whose host it is on.
        public static let badLongLink = Code("badLongLink")
    }

    /// Machine code.
    public var code: Code
    /// Message.
    public var message: String

    /// Creates a problem.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
