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

    /// The markers as bytes, for the byte-level search below.
    private static let crawlerMarkerBytes = crawlerMarkers.map { Array($0.utf8) }
    private static let androidMarker = Array("android".utf8)
    private static let iOSMarkers = ["iphone", "ipad", "ipod"].map { Array($0.utf8) }

    /// Classifies a `User-Agent` header (at most its first 512 bytes are looked at; a missing one is `desktop`).
    /// Runs on every share-page request: ASCII-lowercased bytes and a plain byte search (String.contains goes
    /// through the generic string-processing machinery and cost a third of a page's CPU).
    public init(userAgent: String?) {
        guard let userAgent, !userAgent.isEmpty else {
            self = .desktop
            return
        }
        var bytes = Array(userAgent.utf8.prefix(512))
        for index in bytes.indices where bytes[index] >= 65 && bytes[index] <= 90 { bytes[index] += 32 }
        self = bytes.withUnsafeBufferPointer { text in
            if Self.crawlerMarkerBytes.contains(where: { Self.find($0, in: text) }) { return .crawler }
            if Self.find(Self.androidMarker, in: text) { return .android }
            if Self.iOSMarkers.contains(where: { Self.find($0, in: text) }) { return .iOS }
            return .desktop
        }
    }

    /// Whether `needle` occurs in `text`.
    private static func find(_ needle: [UInt8], in text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first, needle.count <= text.count else { return false }
        var start = 0
        let last = text.count - needle.count
        while start <= last {
            if text[start] == first {
                var matched = 1
                while matched < needle.count && text[start + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return true }
            }
            start += 1
        }
        return false
    }

    /// `true` for link-preview crawlers: the server must not count their requests as clicks.
    public var isCrawler: Bool { self == .crawler }
}
