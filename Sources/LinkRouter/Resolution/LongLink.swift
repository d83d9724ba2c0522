import Foundation

/// A Firebase Dynamic Links–style long link on an app's host: `https://<app host>/?link=<url-encoded deep link>&apn=…
/// &ibi=…&isi=…&ifl=…&afl=…&ofl=…&efr=…&utm_source=…` — what people printed and shared. It resolves as the deep link
/// it carries, when that is a URL of the same app (`Router.resolve`); every other parameter is read by nobody (the
/// fallbacks `ifl`, `afl` and `ofl` included: a manifest names no hosts they may send a browser to).
///
/// The query is hostile input: at most `maxQueryBytes`, exactly one `link` item, and a `link` that is itself a long
/// link is refused rather than followed (one level, never more).
public enum LongLink {
    /// The longest query considered, in bytes (the router's URL cap bounds the whole URL too).
    public static let maxQueryBytes = 2048

    /// What a long link carries.
    public enum Parsed: Sendable, Equatable {
        /// The deep link, percent-decoded once.
        case inner(String)
        /// Why it is refused: the query is too long, `link` is empty, repeated, not decodable, or a long link itself.
        case refused(String)
    }

    /// The long link `url` is, or nil when it is none: not http(s), a path other than empty or `/`, or no `link` item.
    public static func parse(_ url: String) -> Parsed? {
        guard let (path, query) = pathAndQuery(url), path.isEmpty || path == "/", let query else { return nil }
        var links: [Substring] = []
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard String(name).removingPercentEncoding == "link" else { continue }
            links.append(item.dropFirst(name.count + 1))
        }
        guard !links.isEmpty else { return nil }
        guard query.utf8.count <= maxQueryBytes else {
            return .refused("a long link's query is at most \(maxQueryBytes) bytes")
        }
        guard links.count == 1 else { return .refused("a long link names one link, not \(links.count)") }
        guard let inner = String(links[0]).removingPercentEncoding, !inner.isEmpty else {
            return .refused("a long link's link is empty or not percent-encoded")
        }
        if parse(inner) != nil { return .refused("a long link's link is itself a long link: it is not followed") }
        return .inner(inner)
    }

    /// Every item of a long link's query in order, names and values percent-decoded once (a value that does not
    /// decode is kept as written): what an import reads besides `link` (`apn`, `ofl`, `utm_source`…). Nil when
    /// `url` is not http(s) or its query is over `maxQueryBytes`.
    public static func items(_ url: String) -> [(name: String, value: String)]? {
        guard let (_, query) = pathAndQuery(url), let query, query.utf8.count <= maxQueryBytes else { return nil }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let value = parts.count > 1 ? String(parts[1]) : ""
            return (name.removingPercentEncoding ?? name, value.removingPercentEncoding ?? value)
        }
    }

    /// The path (as written) and query of an http(s) URL; nil for another scheme or no `://`.
    public static func pathAndQuery(_ url: String) -> (path: Substring, query: Substring?)? {
        guard let separator = url.range(of: "://") else { return nil }
        let scheme = url[..<separator.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        var rest = url[separator.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var query: Substring?
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        guard let slash = rest.firstIndex(of: "/") else { return ("", query) }
        return (rest[slash...], query)
    }
}
