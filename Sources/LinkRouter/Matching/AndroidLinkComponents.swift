extension AppManifest {
    /// The `dynamic_app_link_components` of `host` (lowercase, no port): every path linkd resolves there (the share
    /// path on share hosts, every route pattern on the app's hosts) opens the app, in every spelling linkd resolves
    /// on http(s) (docs/matching.md), and as far as Android's patterns can say, nothing else does. The same walk as
    /// `appleLinkComponents` (`LinkRuleWalk`: wildcard tails, then the longest variants first, trailing-`/` forms
    /// before plain ones), in Android's syntax (developer.android.com/training/app-links/configure-assetlinks,
    /// "Configure dynamic rules"): Android tries the rules in order and the first that matches decides; a URL no rule
    /// matches stays out of the app. `path` is matched with the URL's decoded path (`Uri.getPath()`),
    /// case-sensitively; `?` matches one character, `*` zero or more up to the first place the pattern's next
    /// character is found (at the end, the rest), `?*` one or more. Each `query` name must be among the URL's decoded
    /// query items with a value its pattern matches; other items are ignored.
    ///
    /// 1. Paths with an empty segment excluded, one rule per depth (`//*`, `/?*//*`, `/?*/?*//*`, …): Android's `*`
    ///    stops at the first `/` it meets, so `*//*` would find only a leading `//`. As deep as the longest variant
    ///    and one more, and 32 segments deep when the host has a wildcard tail.
    /// 2. A literal as its decoded text (`androidLiteral`: Android decodes the path before it matches), a `uuid` param
    ///    as `????????-????-????-????-????????????`, any other param and a wildcard tail as `?*`; a route's required
    ///    query params under `?`.
    /// 3. Before the variants of each length `n`, an exclude of every path with more segments than `n` (one per form:
    ///    `/?*/?*/?*/*` before the trailing-`/` forms of two segments, `/?*/?*/*` before their plain forms): a `?*`
    ///    at a pattern's end, and a uuid's `?`s, would take a `/`. These excludes mean the same whether or not `*`
    ///    backtracks.
    ///
    /// No rule opens everything left: a path no rule matches stays in the browser. A host of the app with no pattern
    /// gets one rule excluding every path (an empty list would be discarded, and the app's intent filter alone
    /// would decide).
    ///
    /// Limits (docs/web-fallback.md, "Android"): a param's type beyond its length; a spelling linkd refuses that
    /// decodes to a path it resolves (`/t%61b/recents`, a uuid with `%2D`, a literal's escapes in lowercase hex) opens
    /// the app; a param holding `%2F` stays in the browser (decoded, it is one more segment), and so does a literal
    /// in other capitals in a `caseInsensitivePaths` manifest; a literal's `?` takes any one character; a required
    /// query param does not make linkd try another route; an empty segment after 32 segments under a wildcard tail
    /// opens the app.
    /// `customPaths`: links' custom paths on this share host, each a literal variant like a route's.
    public func androidLinkComponents(host: String, customPaths: [String] = []) -> [LinkRule] {
        let variants = linkVariants(host: host)
        guard !variants.isEmpty else {
            let served = hosts.contains(host) || shareHosts.contains(host)
            return served ? [LinkRule(path: "*", exclude: true)] : []
        }
        let paths = share != nil && shareHosts.contains(host) ? customPaths : []
        return LinkRuleWalk(syntax: AndroidLinkSyntax()).rules(variants, customPaths: paths)
    }

    /// A literal segment (or a query item's name) as an Android pattern: its text as it reads decoded, with `?` and
    /// `*` — pattern characters the documentation gives no escape for — written `?` (any one character there).
    public static func androidLiteral(_ text: String) -> String {
        String(text.map { $0 == "*" || $0 == "?" ? "?" : $0 })
    }
}

/// How assetlinks.json writes a rule (`AppManifest.androidLinkComponents(host:)`).
struct AndroidLinkSyntax: LinkRuleSyntax {
    /// How deep paths with an empty segment are excluded on a host with a wildcard tail.
    static let wildcardEmptySegmentDepth = 32

    /// `//*`, `/?*//*`, …: an empty segment at each depth, down to one past the longest variant (32 with a wildcard).
    func prelude(_ variants: [LinkVariant]) -> [LinkRule] {
        var depth = (variants.filter { !$0.isWildcard }.map(\.segments.count).max() ?? 0) + 1
        if variants.contains(where: \.isWildcard) { depth = max(depth, Self.wildcardEmptySegmentDepth) }
        return (0..<depth).map { LinkRule(path: "/" + String(repeating: "?*/", count: $0) + "/*", exclude: true) }
    }

    func glob(_ segment: PathPattern.Segment) -> String {
        switch segment {
        case .literal(let text): AppManifest.androidLiteral(text)
        case .param(_, let type): glob(for: type)
        case .wildcard: "?*"
        }
    }

    /// A `uuid` is 36 characters with `-` at 8, 13, 18 and 23; anything else one or more characters.
    func glob(for type: ParamType) -> String {
        switch type {
        case .uuid: "????????-????-????-????-????????????"
        case .string, .int, .slug: "?*"
        }
    }

    /// The characters as they are (the custom-path alphabet reads the same decoded), each `?` any one character.
    func glob(characters: String) -> String { characters }

    func queryName(_ name: String) -> String { AppManifest.androidLiteral(name) }

    /// Every path with more than `length` segments: `length` (one more with a trailing `/`) non-empty segments, each
    /// followed by a `/`, then anything. None for the root.
    func excludes(length: Int, trailingSlash: Bool) -> [LinkRule] {
        guard length > 0 else { return [] }
        return [LinkRule(path: "/" + String(repeating: "?*/", count: length + (trailingSlash ? 1 : 0)) + "*", exclude: true)]
    }

    func excludes(before variant: LinkVariant, trailingSlash: Bool) -> [LinkRule] { [] }
}
