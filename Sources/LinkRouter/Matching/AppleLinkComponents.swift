/// One entry of an apple-app-site-association `applinks.details[].components` list.
///
/// iOS tries a detail's components in order and the first one that matches decides: an `exclude` component keeps
/// the URL in the browser, any other opens the app. `path` is a pattern over the URL's percent-encoded path where
/// `*` matches any run of characters (including `/` and none at all) and `?` exactly one character.
public struct AppleLinkComponent: Sendable, Equatable {
    /// The pattern of the URL's path (the `/` key).
    public var path: String
    /// Query item name → pattern of its value (the `?` key); empty: any query.
    public var query: [String: String]
    /// Whether a URL this component matches stays out of the app (`"exclude": true`).
    public var exclude: Bool

    /// - Parameters: see the properties.
    public init(path: String, query: [String: String] = [:], exclude: Bool = false) {
        self.path = path
        self.query = query
        self.exclude = exclude
    }
}

extension AppManifest {
    /// The apple-app-site-association components of `host` (lowercase, no port): every path linkd resolves there
    /// (the share path on share hosts, every route pattern on the app's hosts) is covered, and a path that would
    /// only be covered because a param's pattern spans several segments is excluded.
    ///
    /// How: each pattern is expanded into its variants (optional segments present or absent); a literal is written
    /// percent-encoded, a `uuid` param as `????????-????-????-????-????????????`, any other param and a wildcard tail as
    /// `?*` (one or more characters), a route's required query params go under `?`. A pattern's `*` can take in a
    /// `/`, so before each variant come excludes that match it with one of its params spanning segments
    /// (`/flows/?*/?*` before `/flows/?*`). Variants with more segments come first: a variant's excludes only match
    /// paths longer than it, and those are covered or excluded by the longer variants that come before. Wildcard
    /// tails come before everything, since they match paths of any length.
    ///
    /// Limits (what Apple's patterns cannot say, docs/web-fallback.md): a param's type beyond its length (an `int`
    /// param given letters, a `uuid` of 36 non-hex characters, a `slug` with capitals are covered), a param followed by
    /// literals and a wildcard tail may span segments, a required query param does not make linkd try another route,
    /// and only the canonical spelling of a path is covered (linkd ignores a trailing or doubled `/` and decodes `%41`
    /// as `A`; the file does not).
    public func appleLinkComponents(host: String) -> [AppleLinkComponent] {
        var variants: [(segments: [PathPattern.Segment], query: [String: String])] = []
        if let share, shareHosts.contains(host), let pattern = try? PathPattern(parsing: share.path) {
            variants += pattern.expanded.map { ($0, [:]) }
        }
        if hosts.contains(host) {
            for id in routeOrder {
                guard let route = routes[id] else { continue }
                var query: [String: String] = [:]
                for (name, spec) in route.query where spec.required {
                    query[Self.appleEncoded(name)] = Self.appleGlob(for: spec.type)
                }
                for text in route.patterns {
                    guard let pattern = try? PathPattern(parsing: text) else { continue }
                    variants += pattern.expanded.map { ($0, query) }
                }
            }
        }

        var components: [AppleLinkComponent] = []
        // Wildcard tails first: they cover every length.
        for variant in variants where variant.segments.last?.isWildcard == true {
            components.append(AppleLinkComponent(path: Self.applePath(variant.segments), query: variant.query))
        }
        // Then the longest variants first, each after its excludes. A stable sort keeps manifest order within a length.
        let fixed = variants.enumerated().filter { $0.element.segments.last?.isWildcard != true }
            .sorted { ($0.element.segments.count, -$0.offset) > ($1.element.segments.count, -$1.offset) }
            .map(\.element)
        for variant in fixed {
            for (index, segment) in variant.segments.enumerated() {
                guard case .param(_, let type) = segment else { continue }
                // The param's pattern holding a `/`: `?*/?*`, or `*/*` for a fixed length (its `?`s match `/` too).
                let spanning = Self.appleGlob(for: type) == "?*" ? "?*/?*" : "*/*"
                var globs = variant.segments.map(Self.appleGlob)
                globs[index] = spanning
                components.append(AppleLinkComponent(path: "/" + globs.joined(separator: "/"), exclude: true))
            }
            components.append(AppleLinkComponent(path: Self.applePath(variant.segments), query: variant.query))
        }
        // A component after an identical one never decides anything.
        var seen = Set<String>()
        return components.filter { component in
            let key = component.path + "\u{0}" + component.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
            return seen.insert(key).inserted
        }
    }

    /// `/` + the segments' patterns joined by `/`.
    static func applePath(_ segments: [PathPattern.Segment]) -> String {
        "/" + segments.map(appleGlob).joined(separator: "/")
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
    /// so no character of a literal reads as a pattern character.
    static func appleEncoded(_ text: String) -> String {
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

extension PathPattern.Segment {
    /// Whether this is the wildcard tail.
    var isWildcard: Bool {
        if case .wildcard = self { return true }
        return false
    }
}
