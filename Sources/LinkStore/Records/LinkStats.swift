public import Foundation

/// A UTC calendar day as the stats tables keep it: whole days since 1970-01-01.
public struct StatsDay: Sendable, Hashable, Comparable, Codable {
    /// Days since 1970-01-01 (UTC).
    public var number: Int

    /// The day `number`.
    public init(number: Int) { self.number = number }

    /// The UTC day of `date`.
    public init(_ date: Date) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        number = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    }

    /// The day's first instant.
    public var start: Date { Date(timeIntervalSince1970: TimeInterval(number) * 86_400) }

    /// Orders days.
    public static func < (lhs: StatsDay, rhs: StatsDay) -> Bool { lhs.number < rhs.number }
}

/// The counters of one link on one day (or their sum over days or links). Clicks are people who opened the share
/// page (by platform); previews are link-preview crawlers that fetched it; installs are store redirects.
public struct LinkDayCounts: Sendable, Equatable {
    /// People who opened the share page on iOS.
    public var clicksIOS = 0
    /// People who opened the share page on Android.
    public var clicksAndroid = 0
    /// People who opened the share page on a desktop browser.
    public var clicksDesktop = 0
    /// Link-preview crawlers that fetched the share page.
    public var previews = 0
    /// Redirects to the App Store.
    public var installsIOS = 0
    /// Redirects to Google Play.
    public var installsAndroid = 0
    /// Claim codes made.
    public var claimsMade = 0
    /// Claim codes claimed.
    public var claimsClaimed = 0
    /// Claim codes that expired unclaimed.
    public var claimsExpired = 0

    /// All zero.
    public init() {}

    /// Every counter in the stored column order (`columns`).
    public var values: [Int] {
        var values: [Int] = []
        values.reserveCapacity(Self.columns.count)
        forEachValue { values.append($0) }
        return values
    }

    /// Calls `body` with every counter in the stored column order (`columns`), making no array.
    public func forEachValue(_ body: (Int) -> Void) {
        body(clicksIOS); body(clicksAndroid); body(clicksDesktop); body(previews); body(installsIOS); body(installsAndroid)
        body(claimsMade); body(claimsClaimed); body(claimsExpired)
    }

    /// Counters from values in `columns` order (missing ones zero).
    public init(values: [Int]) {
        func at(_ index: Int) -> Int { index < values.count ? values[index] : 0 }
        clicksIOS = at(0); clicksAndroid = at(1); clicksDesktop = at(2); previews = at(3); installsIOS = at(4)
        installsAndroid = at(5); claimsMade = at(6); claimsClaimed = at(7); claimsExpired = at(8)
    }

    /// The stored columns, in `values` order (the same names in both backends).
    public static let columns = [
        "clicks_ios", "clicks_android", "clicks_desktop", "previews", "installs_ios", "installs_android", "claims_made",
        "claims_claimed", "claims_expired",
    ]

    /// People who opened the share page, on every platform.
    public var clicks: Int { clicksIOS + clicksAndroid + clicksDesktop }
    /// Store redirects on both platforms.
    public var installs: Int { installsIOS + installsAndroid }
    /// Whether every counter is zero.
    public var isZero: Bool { self == LinkDayCounts() }

    /// Adds `other`'s counters (field by field: a flush adds a pair per link, and arrays would allocate for each).
    public mutating func add(_ other: LinkDayCounts) {
        clicksIOS += other.clicksIOS; clicksAndroid += other.clicksAndroid; clicksDesktop += other.clicksDesktop
        previews += other.previews; installsIOS += other.installsIOS; installsAndroid += other.installsAndroid
        claimsMade += other.claimsMade; claimsClaimed += other.claimsClaimed; claimsExpired += other.claimsExpired
    }
}

/// Where a day's counters of a link are added: the link, its app (for the app's totals and top links) and the day.
public struct LinkDayKey: Sendable, Hashable {
    /// The link (hex id).
    public var linkID: String
    /// The link's app.
    public var app: String
    /// The UTC day.
    public var day: StatsDay

    /// - Parameters: see the properties.
    public init(linkID: String, app: String, day: StatsDay) {
        self.linkID = linkID
        self.app = app
        self.day = day
    }
}

/// A link's summed counters over a range (an app's top links).
public struct LinkTotals: Sendable, Equatable {
    /// The link (hex id).
    public var linkID: String
    /// Its counters summed over the range.
    public var counts: LinkDayCounts

    /// - Parameters: see the properties.
    public init(linkID: String, counts: LinkDayCounts) {
        self.linkID = linkID
        self.counts = counts
    }
}
