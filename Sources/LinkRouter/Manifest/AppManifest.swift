/// A parsed and validated app manifest: everything linkd knows about one app's links.
/// Built by `ManifestLoader`; see docs/manifest.md for the YAML keys.
public struct AppManifest: Sendable, Equatable {
    /// The app id (`handz`), unique per daemon.
    public var app: String
    /// Human-readable name.
    public var displayName: String
    /// Custom URL schemes, lowercase (`coinapp`).
    public var schemes: [String]
    /// Universal-link / App Link hosts, lowercase ASCII.
    public var hosts: [String]
    /// Ports accepted in an https URL besides the default (none by default).
    public var ports: [Int]
    /// Whether static path segments compare case-insensitively.
    public var caseInsensitivePaths: Bool
    /// iOS app ids (`TEAMID.bundle.id`) for apple-app-site-association.
    public var iosAppIDs: [String]
    /// App Store id, if any.
    public var appStoreID: String?
    /// Whether apple-app-site-association lists `iosAppIDs` under `webcredentials` (password autofill).
    public var iosWebCredentials: Bool = false
    /// App Clip ids (`TEAMID.bundle.id.Clip`) for the `appclips` section of apple-app-site-association.
    public var iosAppClipIDs: [String] = []
    /// Android package name, if any.
    public var androidPackage: String?
    /// Android signing-certificate SHA-256 fingerprints (`AA:BB:…`) for assetlinks.json.
    public var androidFingerprints: [String]
    /// Whether assetlinks.json carries `dynamic_app_link_components` for the package (`android.dynamicAppLinks`,
    /// default true).
    public var androidDynamicAppLinks: Bool = true
    /// Web fallback URL for people without the app.
    public var webFallbackURL: String?
    /// Session states the app distinguishes.
    public var states: [String]
    /// The state of a caller that is not authenticated.
    public var unauthenticatedState: String
    /// States that show the tab shell (all states when the manifest does not say).
    public var tabStates: [String]
    /// Root screen per state for states without the tab shell (Handz: signedOut → Auth/WelcomeGate).
    public var stateRoots: [String: String]
    /// Tabs in order.
    public var tabs: [Tab]
    /// Presentations that hide the tab bar.
    public var tabBarHiddenFor: [Presentation]
    /// Routes by id.
    public var routes: [String: Route]
    /// Route ids in manifest order.
    public var routeOrder: [String]
    /// Return-path rules.
    public var returns: [ReturnRule]
    /// Intercepts, first match wins.
    public var intercepts: [Intercept]
    /// Share-link configuration.
    public var share: ShareConfig?
    /// Route shown for a URL that matches nothing.
    public var notFoundRoute: String?
    /// `.ics` rules.
    public var ics: [ICSRule]
    /// Where previews come from.
    public var origin: Origin?
    /// The file it was loaded from (or the name given to `parse`).
    public var sourceFile: String

    /// The default tab (the one marked `default`, else the first).
    public var defaultTab: Tab? { tabs.first(where: \.isDefault) ?? tabs.first }

    /// One tab of the tab bar.
    public struct Tab: Sendable, Equatable {
        /// Tab id (`recents`).
        public var id: String
        /// Route shown at the tab's root.
        public var root: String
        /// Position, 0-based, from the manifest order.
        public var order: Int
        /// Whether the app launches to this tab.
        public var isDefault: Bool
    }

    /// One route of the navigation map.
    public struct Route: Sendable, Equatable {
        /// Route id, verbatim from the app spec.
        public var id: String
        /// Owning tab id, or nil for the modal layer.
        public var tab: String?
        /// How it is presented.
        public var presentation: Presentation
        /// States that may open it.
        public var states: [String]
        /// URL path patterns (as written, e.g. `/f/:flowId(uuid)`).
        public var patterns: [String]
        /// Typed query params.
        public var query: [String: QueryParam]
        /// Typed params the route takes outside its URL (`params:`): a share link's record carries them, as the
        /// `flowId` of Handz's `ShareLink/FlowView`. Required on a share link to the route.
        public var params: [String: ParamType] = [:]
        /// Parent route id (the screen under it).
        public var parent: String?
        /// Whether a share link may target it.
        public var shareable: Bool
        /// The first app version that has it (per platform); nil: every version.
        public var since: AppVersionRequirement?
        /// Where it was declared (for messages).
        public var mark: SourceMark
        /// Where each pattern was declared, parallel to `patterns`.
        public var patternMarks: [SourceMark] = []
    }

    /// A typed query parameter.
    public struct QueryParam: Sendable, Equatable {
        /// Value type.
        public var type: ParamType
        /// Whether a URL without it is refused.
        public var required: Bool
    }

    /// Where closing a route goes, per state, and where named actions go.
    public struct ReturnRule: Sendable, Equatable {
        /// The route being closed.
        public var from: String
        /// State → route to return to.
        public var close: [String: String]
        /// Action name (`import`) → target; param values `:name` copy a param of the opened route.
        public var actions: [String: RouteTarget]
    }

    /// What opens instead when a state may not open a route.
    public struct Intercept: Sendable, Equatable {
        /// States it applies to.
        public var states: [String]
        /// Only for these routes (empty = any route the state may not open).
        public var routes: [String]
        /// The route shown instead.
        public var route: String
        /// Whether the original target is kept as a continuation.
        public var continuation: Bool
    }

    /// Share-link configuration.
    public struct ShareConfig: Sendable, Equatable {
        /// Path pattern with a `:token` param, e.g. `/s/:token`.
        public var path: String
        /// Hosts the share path is recognized on (defaults to all hosts).
        public var hosts: [String]
        /// Route opened when the link record names none.
        public var route: String
        /// Route shown for a revoked, expired, deleted or unknown link.
        public var unavailableRoute: String
        /// Message shown on the unavailable route.
        public var unavailableMessage: String
        /// State → call-to-action route on the unavailable screen.
        public var cta: [String: String]
        /// Badge id → the text the web landing page shows when the origin's preview lists that id
        /// (`privateUpload` → "Private upload - not shared via link."). At most `maxBadges`.
        public var badges: [String: String] = [:]
        /// Which of a new link's two share URLs `POST /v1/links` answers as its `url` (`share.url`).
        public var url: URLKind = .token
        /// Shapes of custom paths linkd answers on the share hosts whether or not a link holds them
        /// (`share.pathPatterns`, `CustomPathPattern`): covered once each by the well-known files, not counted in the
        /// cap on an app's listed custom paths.
        public var pathPatterns: [CustomPathPattern] = []

        /// A link's share URL by its token (`/s/<token>`, the default) or by its short id (`/s/<short id>`).
        public enum URLKind: String, Sendable, Equatable, CaseIterable {
            /// The signed token's URL.
            case token
            /// The short id's URL.
            case short
        }

        /// At most this many badges per manifest.
        public static let maxBadges = 32
        /// A badge id is 1 to this many ASCII letters, digits, `-` or `_`.
        public static let maxBadgeIDLength = 64
        /// A badge text is 1 to this many characters.
        public static let maxBadgeTextLength = 200

        /// Whether `id` is a well-formed badge id: 1–`maxBadgeIDLength` ASCII letters, digits, `-`, `_`.
        public static func isBadgeID(_ id: String) -> Bool {
            !id.isEmpty && id.utf8.count <= maxBadgeIDLength && id.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
        }
    }

    /// A `.ics` mapping rule (used by the calendar resolver).
    public struct ICSRule: Sendable, Equatable {
        /// VEVENT | VTODO | VJOURNAL.
        public var component: String
        /// Route opened.
        public var route: String
        /// param name → property name.
        public var params: [String: String]
        /// Whether a URL property that is one of our links is resolved like any link.
        public var followLinks: Bool
    }

    /// Preview origin: one allowlisted base URL and a path template.
    public struct Origin: Sendable, Equatable {
        /// `https://api.example.com` — never taken from a request.
        public var baseURL: String
        /// Path template with `:params`, e.g. `/previews/flows/:flowId`.
        public var previewPath: String
    }
}

/// How a route is presented.
public enum Presentation: String, Sendable, Codable, CaseIterable {
    case root, push, overlay, system, alert, actionSheet, fullScreen
    case sheetMedium = "sheet.medium"
    case sheetLarge = "sheet.large"

    /// Whether this is a modal presentation.
    public var isModal: Bool {
        switch self {
        case .root, .push, .overlay: false
        default: true
        }
    }
}

/// A route plus params.
public struct RouteTarget: Sendable, Equatable, Codable {
    /// Route id.
    public var route: String
    /// Params.
    public var params: [String: String]
    /// Creates a target.
    public init(route: String, params: [String: String] = [:]) {
        self.route = route
        self.params = params
    }
}

/// A file position (1-based).
public struct SourceMark: Sendable, Equatable {
    /// File path as given.
    public var file: String
    /// Line, 1-based.
    public var line: Int
    /// Column, 1-based.
    public var column: Int
    /// Creates a mark.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }
}
