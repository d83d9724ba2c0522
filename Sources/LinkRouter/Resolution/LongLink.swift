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
        for item in rawItems(query) where IncomingURL.percentDecode(item.name) == "link" { links.append(item.value) }
        guard !links.isEmpty else { return nil }
        guard query.utf8.count <= maxQueryBytes else {
            return .refused("a long link's query is at most \(maxQueryBytes) bytes")
        }
        guard links.count == 1 else { return .refused("a long link names one link, not \(links.count)") }
        guard let inner = IncomingURL.percentDecode(links[0]), !inner.isEmpty else {
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
        return rawItems(query).map { item in
            (IncomingURL.percentDecode(item.name) ?? String(item.name), IncomingURL.percentDecode(item.value) ?? String(item.value))
        }
    }

    /// The query's `&`-separated items (empty ones skipped), each split at its first `=` (no `=`: an empty value),
    /// as written. Bytes, not Characters: a combining mark after `&` or `=` does not hide it.
    static func rawItems(_ query: Substring) -> [(name: Substring, value: Substring)] {
        query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { item in
            guard let equals = item.firstIndex(of: UInt8(ascii: "=")) else { return (Substring(item), "") }
            return (Substring(item[..<equals]), Substring(item[item.index(after: equals)...]))
        }
    }

    /// The path (as written) and query of an http(s) URL; nil for another scheme or no `://`. Read as bytes: the
    /// first `:`, which must open `://` (a scheme has no `:`), then the fragment cut at the first `#`, the query after
    /// the first `?`, the path from the first `/`. (The standard library's generic `firstRange(of:)` was a twentieth
    /// of a share page's time when the page was not cached.)
    public static func pathAndQuery(_ url: String) -> (path: Substring, query: Substring?)? {
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), isWebScheme(bytes[..<colon]),
              bytes[colon...].starts(with: "://".utf8)
        else { return nil }
        var rest = Substring(bytes[bytes.index(colon, offsetBy: 3)...])
        if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
        var query: Substring?
        if let question = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
            query = rest[rest.utf8.index(after: question)...]
            rest = rest[..<question]
        }
        guard let slash = rest.utf8.firstIndex(of: UInt8(ascii: "/")) else { return ("", query) }
        return (rest[slash...], query)
    }

    /// `http` or `https`, in any case.
    private static func isWebScheme(_ scheme: Substring.UTF8View) -> Bool {
        guard scheme.count == 4 || scheme.count == 5 else { return false }
        // `| 0x20` lowers a letter; only `H` and `h` become `h`, and so on for the others.
        return scheme.elementsEqual("http".utf8) { $0 | 0x20 == $1 } || scheme.elementsEqual("https".utf8) { $0 | 0x20 == $1 }
    }
}
