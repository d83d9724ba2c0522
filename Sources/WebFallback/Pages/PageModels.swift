public import Foundation

/// What the pages need to know about an app (built from its manifest by the server; plain values so pages
/// can be rendered and tested without the router).
public struct AppPageInfo: Sendable, Equatable {
    /// The app id (`handz`): picks the per-app template override directory.
    public var appID: String
    /// The name people see (`Handz`), used in "Open in Handz".
    public var displayName: String
    /// The App Store numeric id (`1234567890`), for the store button and the Smart App Banner.
    public var appStoreID: String?
    /// The Android package (`com.example.handz`), for Google Play and the `intent://` link.
    public var androidPackage: String?
    /// The app's web site, shown when nothing else fits.
    public var webFallbackURL: String?
    /// The page language (`lang` attribute), `en` by default.
    public var language: String
    /// Badge id → the text shown on the landing page when the origin's preview lists that id (the manifest's
    /// `share.badges`, e.g. `privateUpload` → "Private upload - not shared via link."). Ids not here are ignored.
    public var badges: [String: String]

    /// - Parameters: see the properties.
    public init(
        appID: String, displayName: String, appStoreID: String? = nil, androidPackage: String? = nil,
        webFallbackURL: String? = nil, language: String = "en", badges: [String: String] = [:]
    ) {
        self.appID = appID
        self.displayName = displayName
        self.appStoreID = appStoreID
        self.androidPackage = androidPackage
        self.webFallbackURL = webFallbackURL
        self.language = language
        self.badges = badges
    }

    /// The App Store page, when the app has an App Store id.
    public var appStoreURL: String? { appStoreID.map { "https://apps.apple.com/app/id\($0)" } }
    /// The Google Play page, when the app has an Android package.
    public var playStoreURL: String? {
        androidPackage.map { "https://play.google.com/store/apps/details?id=\(PageURL.queryEscaped($0))" }
    }

    /// The Google Play page with an install referrer the app reads once after install (Play Install Referrer API):
    /// `&referrer=` the URL-encoded `referrer` (`linkd_claim=<code>`).
    public func playStoreURL(referrer: String) -> String? {
        playStoreURL.map { "\($0)&referrer=\(PageURL.queryEscaped(referrer))" }
    }
}

/// A shared item's preview, from the app's origin.
public struct Preview: Sendable, Equatable, Codable {
    /// The item's title (shown escaped; at most 300 characters kept).
    public var title: String
    /// The creator's display name, shown only when `allowCreatorName` is true.
    public var creatorName: String?
    /// Whether the creator agreed to show their name on shared links (Handz 8.3).
    public var allowCreatorName: Bool
    /// When the item was last updated.
    public var updatedAt: Date?
    /// An https image URL for the card and Open Graph (anything else is dropped).
    public var imageURL: String?
    /// Badge ids the origin lists for the item (`privateUpload`), in its order; the page shows the texts the app's
    /// manifest gives them (`AppPageInfo.badges`) and ignores the rest. At most `maxBadges` ids, each written as the
    /// manifest's are (`AppManifest.ShareConfig.isBadgeID`).
    public var badges: [String]

    /// At most this many badge ids per preview.
    public static let maxBadges = 8

    /// - Parameters: see the properties.
    public init(
        title: String, creatorName: String? = nil, allowCreatorName: Bool = false, updatedAt: Date? = nil,
        imageURL: String? = nil, badges: [String] = []
    ) {
        self.title = title
        self.creatorName = creatorName
        self.allowCreatorName = allowCreatorName
        self.updatedAt = updatedAt
        self.imageURL = imageURL
        self.badges = badges
    }
}

/// Everything the landing page shows for one valid share link.
public struct LandingPage: Sendable, Equatable {
    /// The app.
    public var app: AppPageInfo
    /// The canonical share URL (`https://links.example.com/s/<token>`): canonical link, `og:url`, QR code.
    public var shareURL: String
    /// The link that opens the app: a universal link or a custom-scheme URL (`handz://flow/123`).
    public var openInAppURL: String
    /// The custom scheme (`handz`) for the Android `intent://` link and `al:` tags, if the app has one.
    public var customScheme: String?
    /// The custom-scheme URL of the item (`handz://flow/123`), for `al:ios:url` / `al:android:url` and the intent.
    public var customSchemeURL: String?
    /// The preview, or `nil` when the origin is down, slow or has none (the page still renders).
    public var preview: Preview?
    /// The headline without a preview; nil: "Shared from <App>".
    public var title: String?
    /// Where the store buttons go through linkd for a deferred deep link (`<share URL>/install`, to which
    /// `/ios` or `/android` is added); nil: straight to the stores (a page without a share token).
    public var installBaseURL: String?
    /// Where the desktop page's QR code is fetched from (`/s/<token>/qr.svg`, root-relative), so that a page costs no
    /// QR encoding (a crawler walking many links never fetches the image); nil: the page carries the code inline (a
    /// page without a share token, or a share path other than `/s/:token`, which has no image route).
    public var qrImagePath: String?

    /// - Parameters: see the properties.
    public init(
        app: AppPageInfo, shareURL: String, openInAppURL: String, customScheme: String? = nil,
        customSchemeURL: String? = nil, preview: Preview? = nil, title: String? = nil
    ) {
        self.app = app
        self.shareURL = shareURL
        self.openInAppURL = openInAppURL
        self.customScheme = customScheme
        self.customSchemeURL = customSchemeURL
        self.preview = preview
        self.title = title
    }
}

/// The "This link is no longer available." page: 410 for revoked, expired, deleted; 404 for unknown tokens,
/// with the same body so the two cannot be told apart by their content.
public struct UnavailablePage: Sendable, Equatable {
    /// Why the page is shown; only the status code differs.
    public enum Reason: Sendable, Equatable {
        /// Revoked, expired or deleted: 410.
        case gone
        /// Malformed, forged, unknown: 404.
        case unknown
    }

    /// The app, or `nil` when the token could not even be tied to an app.
    public var app: AppPageInfo?
    /// Why.
    public var reason: Reason
    /// The call to action from the manifest (a button label and link, e.g. "Open Handz" → `handz://welcome`).
    public var callToAction: CallToAction?
    /// The headline from the manifest (`share.message`), shown escaped; nil or empty shows `defaultMessage`.
    public var message: String?
    /// The `<title>` text.
    public var pageTitle: String
    /// The sentence under the headline.
    public var detail: String

    /// The headline when the manifest gives none.
    public static let defaultMessage = "This link is no longer available."
    /// The sentence under the headline of a share link's page.
    public static let defaultDetail = "It may have been removed, or the person who shared it stopped sharing it."

    /// - Parameters: see the properties.
    public init(
        app: AppPageInfo?, reason: Reason, callToAction: CallToAction? = nil, message: String? = nil,
        pageTitle: String = "Link unavailable", detail: String = UnavailablePage.defaultDetail
    ) {
        self.app = app
        self.reason = reason
        self.callToAction = callToAction
        self.message = message
        self.pageTitle = pageTitle
        self.detail = detail
    }

    /// The headline shown: `message` unless it is nil or empty, else `defaultMessage`.
    public var headline: String {
        guard let message, !message.isEmpty else { return Self.defaultMessage }
        return message
    }

    /// 410 for `gone`, 404 for `unknown`.
    public var status: Int { reason == .gone ? 410 : 404 }
}

/// A labelled link button.
public struct CallToAction: Sendable, Equatable {
    /// The button text.
    public var label: String
    /// Where it goes (from the manifest only).
    public var url: String

    /// - Parameters: see the properties.
    public init(label: String, url: String) {
        self.label = label
        self.url = url
    }
}

/// A rendered page: status, headers and HTML body for the server to send as is.
public struct RenderedPage: Sendable {
    /// The HTTP status (200, 404, 410).
    public var status: Int
    /// Content type, cache and security headers (see `SecurityHeaders`).
    public var headers: [(name: String, value: String)]
    /// The HTML as UTF-8: what is sent.
    public var utf8: [UInt8]

    /// The HTML.
    public var body: String { String(decoding: utf8, as: UTF8.self) }

    /// A page whose HTML is `body`.
    public init(status: Int, headers: [(name: String, value: String)], body: String) {
        self.init(status: status, headers: headers, utf8: Array(body.utf8))
    }

    /// A page whose HTML is `utf8` (valid UTF-8, as a template renders it).
    public init(status: Int, headers: [(name: String, value: String)], utf8: [UInt8]) {
        self.status = status
        self.headers = headers
        self.utf8 = utf8
    }
}

/// URL helpers for building links that go into pages.
enum PageURL {
    /// Percent-escapes everything but unreserved characters (RFC 3986) for use inside a query value.
    static func queryEscaped(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// RFC 3986's unreserved characters.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `true` for an absolute https URL (images and links from the origin must be https). The host is read as
    /// written: `URLComponents.host` would decode IDNA through ICU, which loads its data.
    static func isHTTPS(_ value: String) -> Bool {
        guard let components = URLComponents(string: value) else { return false }
        return components.scheme?.lowercased() == "https" && !(components.encodedHost ?? "").isEmpty
    }
}
