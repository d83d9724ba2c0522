public import Foundation

/// What happened to a link, as the share path and the deferred links count it.
public enum ShareEvent: Sendable, CaseIterable {
    /// A person opened the share page on iOS.
    case clickIOS
    /// A person opened the share page on Android.
    case clickAndroid
    /// A person opened the share page on a desktop browser.
    case clickDesktop
    /// A link-preview crawler fetched the share page.
    case preview
    /// A store redirect to the App Store.
    case installIOS
    /// A store redirect to Google Play.
    case installAndroid
    /// A claim code was made.
    case claimMade
    /// A claim code was claimed.
    case claimClaimed

    /// Whether it is a person's opening of the share page: one more click on the link's total and its last opening.
    public var isClick: Bool {
        switch self {
        case .clickIOS, .clickAndroid, .clickDesktop: true
        case .preview, .installIOS, .installAndroid, .claimMade, .claimClaimed: false
        }
    }
}

/// The events of one link counted between two flushes: its click total and last opening (the `clicks` table), its
/// counters per UTC day (the `link_stats_daily` rows), and its openings per day by source (campaign and referrer).
///
/// Kept small, for a buffer holds one per link opened since the last flush: the counters of the first day events
/// fell on are fields; only other days (around midnight) and openings with a source go into dictionaries, which cost
/// nothing while empty. An opening with neither campaign nor referrer counts no source at all: `(none)` is what a
/// day's clicks leave once its other values are counted (`SourceTotals.fillingNone`), so it is never written.
public struct LinkEvents: Sendable, Equatable {
    /// The link's app (a link has one; its day rows carry it).
    public var app: String
    /// People's openings of the share page, and the last of them.
    public var clicks: LinkClicks
    /// The day of the first event counted and its counters.
    private var firstDay: StatsDay?
    private var firstCounts = LinkDayCounts()
    /// Every other day's counters.
    private var otherDays: [StatsDay: LinkDayCounts] = [:]
    /// People's openings with a campaign or a referrer, per day by source (the `link_sources_daily` rows' additions,
    /// `(none)` values aside).
    public private(set) var sources: [StatsDay: DaySources] = [:]

    /// - Parameters: see the properties.
    public init(
        app: String, clicks: LinkClicks = LinkClicks(count: 0, lastOpened: nil), days: [StatsDay: LinkDayCounts] = [:],
        sources: [StatsDay: DaySources] = [:]
    ) {
        self.app = app
        self.clicks = clicks
        self.otherDays = days
        self.sources = sources
    }

    /// The day rows' additions.
    public var days: [StatsDay: LinkDayCounts] {
        var days = otherDays
        if let firstDay { days[firstDay, default: LinkDayCounts()].add(firstCounts) }
        return days
    }

    /// Calls `body` with each day's counters in day order (no dictionary made for the one day most links have).
    func forEachDay(_ body: (StatsDay, LinkDayCounts) -> Void) {
        guard !otherDays.isEmpty else {
            if let firstDay { body(firstDay, firstCounts) }
            return
        }
        for (day, counts) in days.sorted(by: { $0.key < $1.key }) { body(day, counts) }
    }

    /// Adds one `event` at `date`; a click also counts its `source` when it has a campaign or a referrer.
    public mutating func count(_ event: ShareEvent, at date: Date, source: ShareSource? = nil) {
        let day = StatsDay(date)
        if firstDay == nil { firstDay = day }
        let onFirstDay = day == firstDay
        if event.isClick {
            clicks.add(LinkClicks(count: 1, lastOpened: date))
            if let source, source != ShareSource() { sources[day, default: DaySources()].add(source) }
        }
        if onFirstDay { firstCounts.count(event) } else { otherDays[day, default: LinkDayCounts()].count(event) }
    }

    /// Adds `other`'s events.
    public mutating func add(_ other: LinkEvents) {
        clicks.add(other.clicks)
        for (day, counts) in other.days { otherDays[day, default: LinkDayCounts()].add(counts) }
        for (day, counts) in other.sources { sources[day, default: DaySources()].add(counts) }
    }

    /// Equal when they count the same: app, clicks, day rows and sources (however they are held).
    public static func == (lhs: LinkEvents, rhs: LinkEvents) -> Bool {
        lhs.app == rhs.app && lhs.clicks == rhs.clicks && lhs.days == rhs.days && lhs.sources == rhs.sources
    }
}

/// What one flush writes: the events of every link counted since the last one, keyed by link id. A backend writes
/// the click totals and the day rows of a batch in one transaction.
public struct ShareEventBatch: Sendable, Equatable {
    /// The events by link id.
    public var links: [String: LinkEvents]

    /// - Parameters: see the properties.
    public init(links: [String: LinkEvents] = [:]) { self.links = links }

    /// Whether there is nothing to write.
    public var isEmpty: Bool { links.isEmpty }

    /// The links a backend writes at a time within a flush's one transaction: the rows, keys and sorted copies it
    /// makes for them are those of a chunk, not of the whole batch (a busy second's batch holds tens of thousands).
    public static let writeChunk = 2_000

    /// The batch in parts of at most `size` links, in link-id order (so that instances flushing at once still lock
    /// rows in the same order). The links are sorted once, and each part is a slice of that order whose rows are
    /// made when it is reached.
    public func chunks(of size: Int = ShareEventBatch.writeChunk) -> some Sequence<ShareEventChunk> {
        let ordered = Self.inIDOrder(links)
        let size = max(1, size)
        return stride(from: 0, to: ordered.count, by: size).lazy.map { start in
            ShareEventChunk(links: ordered[start..<min(ordered.count, start + size)])
        }
    }

    /// The whole batch's click totals, in link-id order (`ShareEventChunk.clickTotals`).
    public var clickTotals: [(linkID: String, clicks: LinkClicks)] { whole.clickTotals }
    /// The whole batch's day rows, in (link id, day) order (`ShareEventChunk.dayRows`).
    public var dayRows: [(key: LinkDayKey, counts: LinkDayCounts)] { whole.dayRows }
    /// The whole batch's source rows, in key order (`ShareEventChunk.sourceRows`).
    public var sourceRows: [(key: SourceRowKey, clicks: Int)] { whole.sourceRows }

    private var whole: ShareEventChunk { ShareEventChunk(links: Self.inIDOrder(links)[...]) }

    /// `links` sorted by id, in the byte order of the ids' UTF-8 (for link ids, 32 lowercase hex digits, the order
    /// of the strings). A link id is compared as its two 64-bit halves (`HexLinkID`), which order the same: a busy
    /// second's batch of 40,000 links sorted by comparing strings was a twelfth of its flush.
    static func inIDOrder(_ links: [String: LinkEvents]) -> [(key: String, value: LinkEvents)] {
        // Positions are sorted, not the links: moving a link retains its strings and dictionaries.
        var order: [(halves: (high: UInt64, low: UInt64)?, index: Dictionary<String, LinkEvents>.Index)] = []
        order.reserveCapacity(links.count)
        for index in links.indices { order.append((HexLinkID.halves(links[index].key), index)) }
        order.sort { a, b in
            if let x = a.halves, let y = b.halves { return x < y }
            return links[a.index].key.utf8.lexicographicallyPrecedes(links[b.index].key.utf8)
        }
        return order.map { links[$0.index] }
    }
}

/// Links of a batch in link-id order, and the rows a backend writes for them.
public struct ShareEventChunk: Sendable {
    /// The links with their events, in link-id order.
    let links: ArraySlice<(key: String, value: LinkEvents)>

    /// The click totals to add, by link id in order (links with at least one click only: a preview or a store
    /// redirect is not a click).
    public var clickTotals: [(linkID: String, clicks: LinkClicks)] {
        var rows: [(linkID: String, clicks: LinkClicks)] = []
        rows.reserveCapacity(links.count)
        for (id, events) in links where events.clicks.count > 0 { rows.append((id, events.clicks)) }
        return rows
    }

    /// The day rows to add, non-zero ones only, in (link id, day) order (so that instances flushing at once lock
    /// rows in the same order).
    public var dayRows: [(key: LinkDayKey, counts: LinkDayCounts)] {
        var rows: [(key: LinkDayKey, counts: LinkDayCounts)] = []
        rows.reserveCapacity(links.count)
        for (id, events) in links {
            events.forEachDay { day, counts in
                if !counts.isZero { rows.append((LinkDayKey(linkID: id, app: events.app, day: day), counts)) }
            }
        }
        return rows
    }

    /// The source rows to add, in key order (link id, day, dimension, value); `(none)` is never written (`LinkEvents`).
    public var sourceRows: [(key: SourceRowKey, clicks: Int)] {
        var rows: [(key: SourceRowKey, clicks: Int)] = []
        for (id, events) in links where !events.sources.isEmpty {
            for (day, sources) in events.sources.sorted(by: { $0.key < $1.key }) {
                for (dimension, values) in sources.counts.sorted(by: { $0.key < $1.key }) {
                    for (value, clicks) in values.sorted(by: { $0.key < $1.key }) where clicks > 0 && value != ShareSource.none {
                        rows.append((SourceRowKey(linkID: id, app: events.app, day: day, dimension: dimension, value: value), clicks))
                    }
                }
            }
        }
        return rows
    }
}

extension LinkDayCounts {
    /// Adds one `event`.
    mutating func count(_ event: ShareEvent) {
        switch event {
        case .clickIOS: clicksIOS += 1
        case .clickAndroid: clicksAndroid += 1
        case .clickDesktop: clicksDesktop += 1
        case .preview: previews += 1
        case .installIOS: installsIOS += 1
        case .installAndroid: installsAndroid += 1
        case .claimMade: claimsMade += 1
        case .claimClaimed: claimsClaimed += 1
        }
    }
}
