/// Where a link goes for one session state: the answer of `POST /v1/resolve` and of a claim (`docs/matching.md`).
///
/// The server's JSON, typed. Keys the server may add later are ignored when decoding, so an older app keeps working;
/// the test suite decodes every answer of the real daemon for the seed apps and re-encodes it, to prove no key the
/// server sends today is dropped. Turn it into what the app does with `NavigationPlan`.
public struct Resolution: Codable, Sendable, Hashable {
    /// What kind of answer this is.
    public var outcome: Outcome
    /// The app whose manifest answered, when the URL belongs to a known app.
    public var app: String?
    /// The route id to show (the intercept screen for `.intercept`, the unavailable screen for `.linkUnavailable`,
    /// the app's not-found route, if it has one, for `.notFound`).
    public var route: String?
    /// The route's params (path, query and share-link params, as strings).
    public var params: [String: String]
    /// The tab it lives in or is presented over; nil when the state has no tab shell.
    public var tab: String?
    /// How the route is shown.
    public var presentation: Presentation?
    /// Whether the tab bar stays visible.
    public var tabBarVisible: Bool
    /// The routes to put under it, root first (the route itself is not included).
    public var stack: [String]
    /// Session state → the route that closing it returns to.
    public var returnTo: [String: String]
    /// Action name (`import`) → where the app goes after the action succeeds.
    public var afterActions: [String: RouteTarget]?
    /// Set for `.intercept`: the screen shown instead, and the target to resume.
    public var intercept: Intercept?
    /// Set for share links: their id, status and expiry.
    public var link: LinkInfo?
    /// The message to show (`.linkUnavailable`: "This link is no longer available.").
    public var message: String?
    /// The call-to-action route for the caller's state (`.linkUnavailable`).
    public var cta: String?
    /// Why nothing matched (`.notFound`).
    public var problem: Problem?
    /// Set for `.updateRequired`: the app version the route needs, and the store page to get it from.
    public var update: Update?
    /// Set for `.updateRequired`: where this (older) app goes instead — the nearest screen it has, placed for the
    /// state; nil when it has none.
    public var fallback: Fallback?

    /// Creates a resolution (tests, previews; apps get theirs from `LinkdClient`).
    public init(
        outcome: Outcome, app: String? = nil, route: String? = nil, params: [String: String] = [:], tab: String? = nil,
        presentation: Presentation? = nil, tabBarVisible: Bool = false, stack: [String] = [], returnTo: [String: String] = [:],
        afterActions: [String: RouteTarget]? = nil, intercept: Intercept? = nil, link: LinkInfo? = nil,
        message: String? = nil, cta: String? = nil, problem: Problem? = nil, update: Update? = nil, fallback: Fallback? = nil
    ) {
        self.outcome = outcome
        self.app = app
        self.route = route
        self.params = params
        self.tab = tab
        self.presentation = presentation
        self.tabBarVisible = tabBarVisible
        self.stack = stack
        self.returnTo = returnTo
        self.afterActions = afterActions
        self.intercept = intercept
        self.link = link
        self.message = message
        self.cta = cta
        self.problem = problem
        self.update = update
        self.fallback = fallback
    }

    /// What kind of answer a resolution is; encoded and decoded as its server spelling (`RawRepresentable`'s
    /// `Codable`).
    public enum Outcome: RawRepresentable, Sendable, Hashable, Codable {
        /// Open `route`.
        case route
        /// The state may not open the target: show `route` (the intercept screen); `intercept` holds the target.
        case intercept
        /// Nothing matched (or the URL was refused): show `route` if the app has a not-found route; `problem` says why.
        case notFound
        /// A share link that is revoked, expired, deleted or unknown: show `route` with `message` and `cta`.
        case linkUnavailable
        /// The app is older than the route (`update` says which version it needs): offer the update, and show
        /// `fallback` meanwhile.
        case updateRequired
        /// An outcome this version of the client does not know (a newer server); treat it as not found.
        case other(String)

        /// The outcome as the server spells it.
        public var rawValue: String {
            switch self {
            case .route: "route"
            case .intercept: "intercept"
            case .notFound: "notFound"
            case .linkUnavailable: "linkUnavailable"
            case .updateRequired: "updateRequired"
            case .other(let value): value
            }
        }

        /// The outcome the server's spelling names.
        public init(rawValue: String) {
            switch rawValue {
            case "route": self = .route
            case "intercept": self = .intercept
            case "notFound": self = .notFound
            case "linkUnavailable": self = .linkUnavailable
            case "updateRequired": self = .updateRequired
            default: self = .other(rawValue)
            }
        }
    }

    /// The screen shown instead of a target the state may not open, and the target kept to resume.
    public struct Intercept: Codable, Sendable, Hashable {
        /// The intercept screen (the same as the resolution's `route`).
        public var route: String
        /// The original target, to resume after sign-in or upgrading, when the manifest keeps it.
        public var continuation: Continuation?
        /// Where dismissing the intercept goes ("where they were": the target's parent or its tab's root).
        public var returnTo: String?

        /// Creates an intercept.
        public init(route: String, continuation: Continuation? = nil, returnTo: String? = nil) {
            self.route = route
            self.continuation = continuation
            self.returnTo = returnTo
        }
    }

    /// The original target of an intercepted link.
    public struct Continuation: Codable, Sendable, Hashable {
        /// Its route id.
        public var route: String
        /// Its params.
        public var params: [String: String]
        /// The URL as the server received it: resolve it again in the new state to resume (`LinkdClient.resume`).
        public var url: String

        /// Creates a continuation.
        public init(route: String, params: [String: String], url: String) {
            self.route = route
            self.params = params
            self.url = url
        }
    }

    /// A share link's details, as the resolution reports them.
    public struct LinkInfo: Codable, Sendable, Hashable {
        /// The link id (32 hex digits), when known.
        public var id: String?
        /// `active`, `revoked`, `expired`, `deleted` or `unknown` (see `isActive`).
        public var status: String
        /// Expiry, in seconds since 1970 (UTC), when active.
        public var expiresAt: Int?

        /// Creates link info.
        public init(id: String? = nil, status: String, expiresAt: Int? = nil) {
            self.id = id
            self.status = status
            self.expiresAt = expiresAt
        }

        /// Whether the link is live.
        public var isActive: Bool { status == "active" }
    }

    /// Why a URL resolved to `.notFound`: a machine code (`urlTooLong`, `malformedURL`, `userinfoRefused`,
    /// `portRefused`, `unknownApp`, `noMatch`, `nonCanonicalPath`, `badQuery`, `notAllowed`, `unknownState`) and a
    /// message for logs (not for people).
    public struct Problem: Codable, Sendable, Hashable {
        /// The machine code.
        public var code: String
        /// What went wrong, in English.
        public var message: String

        /// Creates a problem.
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }
}

extension Resolution {
    /// What an app too old for a route is told (`.updateRequired`).
    public struct Update: Codable, Sendable, Hashable {
        /// The first version that has the route, on the platform the app said (`1.3`).
        public var requiredVersion: String
        /// The platform the app said it is (`ios`, `android`), if it said.
        public var platform: String?
        /// The app's store page on that platform, when the manifest names it.
        public var storeURL: String?

        /// Creates update info.
        public init(requiredVersion: String, platform: String? = nil, storeURL: String? = nil) {
            self.requiredVersion = requiredVersion
            self.platform = platform
            self.storeURL = storeURL
        }
    }

    /// Where an app too old for a route goes instead: a route placed for the state, as a resolution places one.
    public struct Fallback: Codable, Sendable, Hashable {
        /// The route to show.
        public var route: String
        /// Its params.
        public var params: [String: String]
        /// Its tab (nil when the state has no tab shell).
        public var tab: String?
        /// How it is shown.
        public var presentation: Presentation?
        /// Whether the tab bar stays visible.
        public var tabBarVisible: Bool
        /// The routes under it, root first.
        public var stack: [String]
        /// Session state → where closing it returns.
        public var returnTo: [String: String]

        /// Creates a fallback.
        public init(
            route: String, params: [String: String] = [:], tab: String? = nil, presentation: Presentation? = nil,
            tabBarVisible: Bool = false, stack: [String] = [], returnTo: [String: String] = [:]
        ) {
            self.route = route
            self.params = params
            self.tab = tab
            self.presentation = presentation
            self.tabBarVisible = tabBarVisible
            self.stack = stack
            self.returnTo = returnTo
        }
    }
}

/// A route and its params: an after-action's destination.
public struct RouteTarget: Codable, Sendable, Hashable {
    /// The route id.
    public var route: String
    /// Its params.
    public var params: [String: String]

    /// Creates a target.
    public init(route: String, params: [String: String] = [:]) {
        self.route = route
        self.params = params
    }
}

/// How a route is shown, as the app's manifest says.
/// Encoded and decoded as its server spelling (`RawRepresentable`'s `Codable`); an unknown one is kept as `other`.
public enum Presentation: RawRepresentable, Sendable, Hashable, Codable {
    /// The root of a tab or of the app.
    case root
    /// Pushed on the navigation stack.
    case push
    /// Drawn over the current screen, not modal (a tutorial overlay).
    case overlay
    /// A system sheet (share sheet, picker, permission prompt).
    case system
    /// An alert.
    case alert
    /// An action sheet (a confirmation dialog).
    case actionSheet
    /// A full-screen modal.
    case fullScreen
    /// A sheet at the medium detent.
    case sheetMedium
    /// A sheet at the large detent.
    case sheetLarge
    /// A presentation this version of the client does not know (a newer server).
    case other(String)

    /// The presentation as the server spells it (`sheet.medium`, …).
    public var rawValue: String {
        switch self {
        case .root: "root"
        case .push: "push"
        case .overlay: "overlay"
        case .system: "system"
        case .alert: "alert"
        case .actionSheet: "actionSheet"
        case .fullScreen: "fullScreen"
        case .sheetMedium: "sheet.medium"
        case .sheetLarge: "sheet.large"
        case .other(let value): value
        }
    }

    /// The presentation the server's spelling names.
    public init(rawValue: String) {
        switch rawValue {
        case "root": self = .root
        case "push": self = .push
        case "overlay": self = .overlay
        case "system": self = .system
        case "alert": self = .alert
        case "actionSheet": self = .actionSheet
        case "fullScreen": self = .fullScreen
        case "sheet.medium": self = .sheetMedium
        case "sheet.large": self = .sheetLarge
        default: self = .other(rawValue)
        }
    }

    /// Whether it is shown modally, over the stack (everything but root, push and overlay).
    public var isModal: Bool {
        switch self {
        case .root, .push, .overlay: false
        default: true
        }
    }
}
