extension AppManifest {
    /// The apple-app-site-association components of `host` (lowercase, no port): every path linkd resolves there
    /// (the share path on share hosts, every route pattern on the app's hosts) is covered, in every spelling linkd
    /// resolves on http(s) (docs/matching.md), and as far as Apple's patterns can say, nothing else is.
    ///
    /// How, in the order of the components (`LinkRuleWalk`, the order `androidLinkComponents` keeps too):
    /// 1. `*//*` excluded: linkd does not resolve a path with an empty segment (`nonCanonicalPath`).
    /// 2. Wildcard tails (`/docs/?*`), which match paths of any length (a trailing `/` included).
    /// 3. Every other pattern variant (optional segments present or absent), longest first, manifest order within a
    ///    length; for each length, first the variants with a trailing `/` (`/tab/recents/`: linkd resolves it), then
    ///    the variants themselves, each after its excludes. A literal is written as `appleEncoded` writes it (the one
    ///    spelling linkd matches a literal in), a `uuid` param as `????????-????-????-????-????????????` (linkd takes
    ///    a uuid only written plainly), any other param as `?*` (one or more characters: any spelling, linkd decodes
    ///    it), a route's required query params go under `?`.
    ///
    /// A param's pattern can take in a `/`, so before each variant come excludes that match it with one of its params
    /// spanning segments (`/flows/?*/?*` before `/flows/?*`; `/flows/*/*` before the uuid's `/flows/????????-…`, as
    /// 36 `?` may hold a `/` anywhere). An exclude matches only paths with more `/` than its variant: those of longer
    /// variants, which come before, and — since `*` may be empty — a variant of the same length with a trailing `/`
    /// (`/flows/*/*` matches `/flows/42/`), which is why every trailing-`/` form of a length comes before the
    /// excludes of that length's plain forms.
    ///
    /// Limits (what Apple's patterns cannot say, docs/web-fallback.md): a param's type beyond its length (an `int`
    /// param given letters, a `uuid` of 36 characters that are not hex digits, a `slug` with capitals are covered), a
    /// param followed by literals and a wildcard tail may span segments, a required query param does not make linkd
    /// try another route, a query item's name is matched as written (linkd decodes it).
    /// `customPaths`: links' custom paths on this share host (`/guard-pass`), each a literal variant like a route's.
    public func appleLinkComponents(host: String, customPaths: [String] = []) -> [LinkRule] {
        let paths = share != nil && shareHosts.contains(host) ? customPaths : []
        return LinkRuleWalk(syntax: AppleLinkSyntax()).rules(linkVariants(host: host), customPaths: paths)
    }

    /// One segment as an Apple pattern: a literal percent-encoded, a param by its type, a wildcard tail `?*`.
    static func appleGlob(_ segment: PathPattern.Segment) -> String {
        switch segment {
        case .literal(let text): appleEncoded(text)
        case .param(_, let type): appleGlob(for: type)
        case .wildcard: "?*"
        }
    }

    /// A param type as an Apple pattern: a `uuid` is 36 characters with `-` at 8, 13, 18 and 23; anything else is one
    /// or more characters (`?*`: Apple cannot say "digits only" or "not a slash").
    static func appleGlob(for type: ParamType) -> String {
        switch type {
        case .uuid: "????????-????-????-????-????????????"
        case .string, .int, .slug: "?*"
        }
    }

    /// `text` percent-encoded as a URL path segment carries it: RFC 3986 unreserved characters, sub-delimiters but `*`,
    /// `:` and `@` as they are, everything else (`?`, `*`, `%`, `/`, spaces, non-ASCII) as `%XX` of its UTF-8 bytes,
    /// hex uppercase, so no character of a literal reads as a pattern character.
    ///
    /// This is the canonical spelling of a segment: on http(s) a literal (and a `uuid` param) matches only a segment
    /// written so (docs/matching.md), as the apple-app-site-association's patterns do.
    public static func appleEncoded(_ text: String) -> String {
        var out = ""
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case _ where "-._~!$&'()+,;=:@".utf8.contains(byte):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }
}

/// How apple-app-site-association writes a rule (`AppManifest.appleLinkComponents(host:)`).
struct AppleLinkSyntax: LinkRuleSyntax {
    /// `*//*` excluded: `*` may take `/`, so one pattern finds an empty segment anywhere.
    func prelude(_ variants: [LinkVariant]) -> [LinkRule] { [LinkRule(path: "*//*", exclude: true)] }

    func glob(_ segment: PathPattern.Segment) -> String { AppManifest.appleGlob(segment) }

    func glob(for type: ParamType) -> String { AppManifest.appleGlob(for: type) }

    /// The characters as they are (the custom-path alphabet needs no escape), each `?` any one character.
    func glob(characters: String) -> String { characters }

    func queryName(_ name: String) -> String { AppManifest.appleEncoded(name) }

    func excludes(length: Int, trailingSlash: Bool) -> [LinkRule] { [] }

    /// For each param of `variant`, the variant with that param's pattern holding a `/`: `?*/?*`, or `*/*` for a fixed
    /// length (its `?`s match `/` too).
    func excludes(before variant: LinkVariant, trailingSlash: Bool) -> [LinkRule] {
        variant.segments.indices.compactMap { index in
            let spanning: String
            switch variant.segments[index] {
            case .pattern(.param(_, let type)): spanning = glob(for: type) == "?*" ? "?*/?*" : "*/*"
            case .characters: spanning = "*/*"
            default: return nil
            }
            var globs = variant.segments.map { glob($0) }
            globs[index] = spanning
            return LinkRule(path: "/" + globs.joined(separator: "/") + (trailingSlash ? "/" : ""), exclude: true)
        }
    }
}
