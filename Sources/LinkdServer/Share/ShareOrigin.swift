import Foundation
import LinkStore

/// What a share request says of where it came from: the query of its URL (`utm_source`, `utm_medium`,
/// `utm_campaign`) and its `Referer`. Taken raw from every share request (the query only when the target has a `?`;
/// the `Referer` is one string copy when the field is there) and parsed only when a person's opening is counted, so
/// a page served without counting (a crawler, a `HEAD`) pays no parsing for it.
struct ShareOrigin: Sendable {
    /// The query of the share URL, raw (after `?`).
    var query: Substring?
    /// The `Referer` field.
    var referer: String?

    /// The query bytes read for the campaign, and the most of its parameters.
    static let maxQueryBytes = 4_096
    static let maxQueryParameters = 64

    /// The source counted for an opening of a link with this campaign of its own: the URL's campaign when it names
    /// one (any `utm_` part), else the link's, else none; the referring host of `Referer` (`ShareSource.referrerHost`).
    func source(linkCampaign: Campaign?) -> ShareSource {
        ShareSource(
            campaign: (urlCampaign ?? linkCampaign)?.label ?? ShareSource.none,
            referrer: ShareSource.referrerHost(referer))
    }

    /// The campaign the query's `utm_source`, `utm_medium` and `utm_campaign` name (percent-decoded, `+` a space,
    /// the first of each, names in any case); nil when none is there or none is left after normalisation.
    var urlCampaign: Campaign? {
        guard let query, !query.isEmpty else { return nil }
        var parts: [String: String] = [:]
        for pair in query.utf8.prefix(Self.maxQueryBytes).split(separator: UInt8(ascii: "&"), maxSplits: Self.maxQueryParameters)
            .prefix(Self.maxQueryParameters) {
            let text = Substring(pair)
            guard let equals = text.firstIndex(of: "=") else { continue }
            let name = text[..<equals].lowercased()
            guard name == "utm_source" || name == "utm_medium" || name == "utm_campaign", parts[name] == nil else { continue }
            let raw = text[text.index(after: equals)...].replacingOccurrences(of: "+", with: " ")
            parts[name] = raw.removingPercentEncoding ?? raw
        }
        return Campaign(source: parts["utm_source"], medium: parts["utm_medium"], name: parts["utm_campaign"])
    }
}
