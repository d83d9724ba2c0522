/// What kind of client asked for a page, from its `User-Agent` header.
public enum UserAgentKind: String, Sendable, Equatable {
    /// iPhone, iPad, iPod: Universal Links, the Smart App Banner, the App Store.
    case iOS
    /// Android: an `intent://` link with a browser fallback, Google Play.
    case android
    /// A desktop browser: the web fallback URL and a QR code to open the link on a phone.
    case desktop
    /// A link-preview crawler (Slackbot, Twitterbot, facebookexternalhit …): meta tags only, counts no click.
    case crawler

    /// Link-preview and search crawlers, matched case-insensitively as substrings.
    static let crawlerMarkers = [
        "slackbot", "slack-imgproxy", "twitterbot", "facebookexternalhit", "facebot", "whatsapp", "discordbot",
        "linkedinbot", "telegrambot", "googlebot", "bingbot", "applebot", "pinterest", "redditbot", "skypeuripreview",
        "embedly", "iframely", "vkshare", "mastodon", "signal", "bot/", "crawler", "spider",
    ]

    /// Classifies a `User-Agent` header (at most its first 512 bytes are looked at; a missing one is `desktop`).
    public init(userAgent: String?) {
        let text = String(decoding: (userAgent ?? "").utf8.prefix(512), as: UTF8.self).lowercased()
        if Self.crawlerMarkers.contains(where: { text.contains($0) }) {
            self = .crawler
        } else if text.contains("android") {
            self = .android
        } else if text.contains("iphone") || text.contains("ipad") || text.contains("ipod") {
            self = .iOS
        } else {
            self = .desktop
        }
    }

    /// `true` for link-preview crawlers: the server must not count their requests as clicks.
    public var isCrawler: Bool { self == .crawler }
}
