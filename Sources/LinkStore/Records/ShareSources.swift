/// Where a person's opening of a share page came from — its campaign and the referring site's host — the two
/// dimensions the daily counts keep beside the platform. Both are short labels, normalised and capped before they
/// are counted: what is stored is never a URL, a path, an address or a user agent.
public struct ShareSource: Sendable, Hashable {
    /// The campaign's label (`Campaign.label`), or `ShareSource.none`.
    public var campaign: String
    /// The referring site's host (`ShareSource.referrerHost`), or `ShareSource.none`.
    public var referrer: String

    /// - Parameters: see the properties.
    public init(campaign: String = ShareSource.none, referrer: String = ShareSource.none) {
        self.campaign = campaign
        self.referrer = referrer
    }

    /// The label of an opening without a campaign, or without a referring site (no `Referer`, `no-referrer`).
    public static let none = "(none)"
    /// The label the values past a cap are counted under (`SourceCaps`), and that of a `Referer` without a host.
    public static let other = "(other)"

    /// The label of a dimension.
    public func value(_ dimension: SourceDimension) -> String {
        switch dimension {
        case .campaign: campaign
        case .referrer: referrer
        }
    }

    /// The host of a `Referer` field: lower-cased, without scheme, user information, port, path or query; at most
    /// 253 bytes of letters, digits, `-` and `.` (an IPv6 literal in brackets too). `none` without a field;
    /// `other` for a value with no such host (a relative reference, an opaque one, a host too long or of other
    /// characters). Reads at most the first 2,048 bytes.
    public static func referrerHost(_ field: String?) -> String {
        guard let field, !field.isEmpty else { return none }
        let bytes = Array(field.utf8.prefix(2_048))
        // scheme "://" (RFC 3986: a letter, then letters, digits, "+", "-", ".")
        var index = 0
        while index < bytes.count, isSchemeByte(bytes[index], first: index == 0) { index += 1 }
        guard index > 0, index + 2 < bytes.count, bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
              bytes[index + 2] == UInt8(ascii: "/")
        else { return other }
        var authority = bytes[(index + 3)...].prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        var host: ArraySlice<UInt8>
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return other }
            host = authority[authority.startIndex...close]
            guard host.dropFirst().dropLast().allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return other }
        } else {
            host = authority.prefix { $0 != UInt8(ascii: ":") }
            if host.last == UInt8(ascii: ".") { host = host.dropLast() }
            guard host.allSatisfy({ isHostByte($0) }) else { return other }
        }
        guard (1...253).contains(host.count) else { return other }
        return String(decoding: host.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    private static func isSchemeByte(_ byte: UInt8, first: Bool) -> Bool {
        let letter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        if first { return letter }
        return letter || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}

/// A dimension of the daily counts beside the platform.
public enum SourceDimension: String, Sendable, CaseIterable, Comparable {
    /// The campaign (`Campaign.label`).
    case campaign
    /// The referring site's host.
    case referrer

    /// Orders dimensions by name (rows are written in key order).
    public static func < (lhs: SourceDimension, rhs: SourceDimension) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A campaign: the `utm_source`, `utm_medium` and `utm_campaign` of a share URL, or the campaign a link was created
/// (or imported) with. Each part is normalised (`normalised(_:)`); a campaign has at least one part.
public struct Campaign: Sendable, Hashable, Codable {
    /// Where the link was shared (`utm_source`: `newsletter`, `twitter`).
    public let source: String?
    /// How (`utm_medium`: `email`, `social`).
    public let medium: String?
    /// Which campaign (`utm_campaign`: `spring-sale`).
    public let name: String?

    /// The longest part, in bytes, after normalisation.
    public static let maxPartBytes = 64

    /// The campaign of these parts, each normalised; nil when no part is left.
    public init?(source: String?, medium: String?, name: String?) {
        self.source = source.flatMap(Self.normalised)
        self.medium = medium.flatMap(Self.normalised)
        self.name = name.flatMap(Self.normalised)
        if self.source == nil, self.medium == nil, self.name == nil { return nil }
    }

    /// How the counts and the links table keep it: `source|medium|name`, a missing part empty (`|` is never in a
    /// normalised part).
    public var label: String { "\(source ?? "")|\(medium ?? "")|\(name ?? "")" }

    /// The campaign of a `label`; nil for any other text (`ShareSource.none`, `ShareSource.other`).
    public init?(label: String) {
        let parts = label.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        self.init(source: String(parts[0]), medium: String(parts[1]), name: String(parts[2]))
    }

    /// A part as it is counted: lower-cased; letters, digits, `.`, `_` and `-` kept, every other character (spaces,
    /// punctuation, symbols, controls) a `-`; runs of `-` made one; `-`, `.` and `_` trimmed from both ends (so no
    /// part starts as a spreadsheet formula does); at most `maxPartBytes` bytes (cut at a character). Nil when
    /// nothing is left. Reads at most the first 256 characters.
    public static func normalised(_ text: String) -> String? {
        var out = ""
        var lastWasDash = false
        for character in text.prefix(256).lowercased() {
            let kept = character.isLetter || character.isNumber || character == "." || character == "_"
            if kept {
                out.append(character)
                lastWasDash = false
            } else if !lastWasDash {
                out.append("-")
                lastWasDash = true
            }
        }
        let trimmed = out.drop { "-._".contains($0) }.reversed().drop { "-._".contains($0) }.reversed()
        var result = ""
        for character in trimmed {
            guard result.utf8.count + character.utf8.count <= maxPartBytes else { break }
            result.append(character)
        }
        while let last = result.last, "-._".contains(last) { result.removeLast() }
        return result.isEmpty ? nil : result
    }

    /// Stored and sent as its `label`.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let campaign = Campaign(label: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a campaign label"))
        }
        self = campaign
    }

    /// Stored and sent as its `label`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(label)
    }
}

/// The caps on distinct values of a dimension: past them, a new value is counted as `ShareSource.other`. They bound
/// the rows a hostile flood of made-up campaigns or referrers can add. `none` and `other` take no place under a cap:
/// they are the two labels linkd itself gives, so nobody can add more of them.
public enum SourceCaps {
    /// Distinct values of a dimension per link per day (besides `none` and `other`).
    public static let perLinkDay = 20
    /// Distinct values of a dimension per app per day (besides `none` and `other`).
    public static let perAppDay = 1_000

    /// Whether `value` is counted as itself whatever the cap: `ShareSource.none` or `ShareSource.other`.
    public static func isUncapped(_ value: String) -> Bool {
        value == ShareSource.none || value == ShareSource.other
    }

    /// `additions` fitted beside the values already `stored` under `cap`: a stored value, `none` or `other` is kept;
    /// a new one is kept while fewer than `cap` values are (the largest additions first), and counted as `other` after.
    public static func fit(_ additions: [String: Int], stored: Set<String>, cap: Int) -> [String: Int] {
        var kept = stored.filter { !isUncapped($0) }
        var fitted: [String: Int] = [:]
        for (value, clicks) in additions.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
            let label = label(value, isKept: kept.contains(value), keptCount: kept.count, cap: cap)
            if !isUncapped(label) { kept.insert(label) }
            fitted[label, default: 0] += clicks
        }
        return fitted
    }

    /// What `value` is counted as beside `keptCount` values already kept (`none` and `other` aside) under `cap`:
    /// itself when it is kept already (`isKept`), is `none` or `other`, or there is room; else `other`.
    static func label(_ value: String, isKept: Bool, keptCount: Int, cap: Int) -> String {
        isKept || isUncapped(value) || keptCount < cap ? value : ShareSource.other
    }
}

/// One link's openings on one day by source, per dimension, as the share-event buffer holds them between flushes
/// (capped as the store caps them: `SourceCaps.perLinkDay`).
public struct DaySources: Sendable, Equatable {
    /// Openings by value, per dimension.
    public var counts: [SourceDimension: [String: Int]] = [:]

    /// None.
    public init() {}

    /// Counts `clicks` openings from `source`.
    public mutating func add(_ source: ShareSource, clicks: Int = 1) {
        for dimension in SourceDimension.allCases { add(source.value(dimension), dimension, clicks: clicks) }
    }

    /// Adds `other`'s counts.
    public mutating func add(_ other: DaySources) {
        for (dimension, values) in other.counts {
            for (value, clicks) in values { add(value, dimension, clicks: clicks) }
        }
    }

    private mutating func add(_ value: String, _ dimension: SourceDimension, clicks: Int) {
        // In place: a copy of the dimension's dictionary out and back would copy it on every opening.
        Self.add(value, clicks: clicks, to: &counts[dimension, default: [:]])
    }

    private static func add(_ value: String, clicks: Int, to values: inout [String: Int]) {
        let kept = values.count - (values[ShareSource.other] == nil ? 0 : 1) - (values[ShareSource.none] == nil ? 0 : 1)
        values[SourceCaps.label(value, isKept: values[value] != nil, keptCount: kept, cap: SourceCaps.perLinkDay), default: 0] += clicks
    }
}

/// Where a row of source counts is added: a link, its app, a day, a dimension and a value.
public struct SourceRowKey: Sendable, Hashable {
    /// The link (hex id).
    public var linkID: String
    /// The link's app.
    public var app: String
    /// The UTC day.
    public var day: StatsDay
    /// The dimension.
    public var dimension: SourceDimension
    /// The value's label.
    public var value: String

    /// - Parameters: see the properties.
    public init(linkID: String, app: String, day: StatsDay, dimension: SourceDimension, value: String) {
        self.linkID = linkID
        self.app = app
        self.day = day
        self.dimension = dimension
        self.value = value
    }
}

/// Openings summed by value over a range, per dimension (a link's or an app's `byCampaign` and `byReferrer`).
public struct SourceTotals: Sendable, Equatable {
    /// Openings by value, per dimension.
    public var counts: [SourceDimension: [String: Int]]

    /// - Parameters: see the properties.
    public init(counts: [SourceDimension: [String: Int]] = [:]) { self.counts = counts }

    /// These counts with each dimension's `(none)` made what `clicks` (the openings in the same range) leave after
    /// its other values: an opening without a source writes no row (`LinkEvents`), and a `(none)` row stored by an
    /// older linkd is replaced by the same figure.
    func fillingNone(clicks: Int) -> SourceTotals {
        var filled = self
        for dimension in SourceDimension.allCases {
            var values = counts[dimension] ?? [:]
            values[ShareSource.none] = nil
            let none = clicks - values.values.reduce(0, +)
            if none > 0 { values[ShareSource.none] = none }
            filled.counts[dimension] = values.isEmpty ? nil : values
        }
        return filled
    }
}
