/// The walk both association files share: which pattern variants linkd resolves on a host, and the order their
/// rules are listed in (first match wins, on iOS and on Android). The two files differ only in how a rule is written
/// (`LinkRuleSyntax`): how a segment reads as a pattern, and which excludes guard the includes.
///
/// The order:
/// 1. the syntax's `prelude` (paths with an empty segment excluded: linkd answers `nonCanonicalPath`), then the links'
///    custom paths on a share host (`CustomPath` in LinkStore), each exactly, with a trailing `/` and as it is: only
///    characters written as they are, no empty segment, no pattern character, so each rule matches that one path
///    in every syntax, and nothing a later exclude is for; first, so that no exclude of a route's comes before them;
/// 2. wildcard tails (`/docs/?*`), which match paths of any length, a trailing `/` included;
/// 3. every other variant (each optional segment present or absent; a `share.pathPatterns` pattern is one, its `*` a
///    `string` param's pattern, its `?`s a fixed-length run like a uuid's), the longest first and in manifest order
///    within a length; for each length, first the forms with a trailing `/` (`/tab/recents/`: linkd resolves it), then
///    the variants as they are; the syntax's excludes for the length, then for each variant its own excludes, the
///    paths of linkd's own its shape takes in (`LinkVariant.excluded`), and the variant.
///
/// A rule after an identical one never decides anything and is dropped.
struct LinkRuleWalk<Syntax: LinkRuleSyntax> {
    let syntax: Syntax

    /// The rules of `variants`, in order.
    func rules(_ variants: [LinkVariant], customPaths: [String] = []) -> [LinkRule] {
        guard !variants.isEmpty else { return [] }
        var rules = syntax.prelude(variants)
        for path in customPaths {
            rules += [LinkRule(path: path + "/"), LinkRule(path: path)]
        }
        for variant in variants where variant.isWildcard {
            rules.append(include(variant, trailingSlash: false))
        }
        let fixed = variants.filter { !$0.isWildcard }
        for length in Set(fixed.map(\.segments.count)).sorted(by: >) {
            let group = fixed.filter { $0.segments.count == length }
            for trailingSlash in length > 0 ? [true, false] : [false] {
                rules += syntax.excludes(length: length, trailingSlash: trailingSlash)
                for variant in group {
                    rules += syntax.excludes(before: variant, trailingSlash: trailingSlash)
                    for own in variant.excluded {
                        rules.append(LinkRule(path: syntax.path(own) + (trailingSlash ? "/" : ""), exclude: true))
                    }
                    rules.append(include(variant, trailingSlash: trailingSlash))
                }
            }
        }
        var seen = Set<String>()
        return rules.filter { seen.insert($0.key).inserted }
    }

    /// The rule that opens `variant` in the app: its segments' patterns, its required query.
    func include(_ variant: LinkVariant, trailingSlash: Bool) -> LinkRule {
        var query: [String: String] = [:]
        for (name, type) in variant.query { query[syntax.queryName(name)] = syntax.glob(for: type) }
        return LinkRule(path: syntax.path(variant.segments) + (trailingSlash ? "/" : ""), query: query)
    }
}

/// How one association file writes its rules.
protocol LinkRuleSyntax {
    /// Rules before every other.
    func prelude(_ variants: [LinkVariant]) -> [LinkRule]
    /// One segment as a pattern.
    func glob(_ segment: PathPattern.Segment) -> String
    /// A custom-path pattern's run of characters and `?`s as a pattern.
    func glob(characters: String) -> String
    /// A param type as a pattern (a query value's too).
    func glob(for type: ParamType) -> String
    /// A required query item's name as the file writes it.
    func queryName(_ name: String) -> String
    /// Excludes before the variants of `length` segments (with a trailing `/`, or as they are).
    func excludes(length: Int, trailingSlash: Bool) -> [LinkRule]
    /// Excludes right before one fixed-length variant.
    func excludes(before variant: LinkVariant, trailingSlash: Bool) -> [LinkRule]
}

extension LinkRuleSyntax {
    /// One variant's segment as a pattern.
    func glob(_ segment: LinkVariant.Segment) -> String {
        switch segment {
        case .pattern(let segment): glob(segment)
        case .characters(let text): glob(characters: text)
        }
    }

    /// `/` + the segments' patterns joined by `/`.
    func path(_ segments: [LinkVariant.Segment]) -> String {
        "/" + segments.map { glob($0) }.joined(separator: "/")
    }
}

/// One pattern variant linkd resolves on a host: a path pattern with each optional segment present or absent, and
/// the required query params of its route.
struct LinkVariant {
    /// One segment: a route pattern's, or a run of characters with `?`s of a custom-path pattern
    /// (`CustomPathPattern`, each `?` one character, a fixed length like a uuid's).
    enum Segment {
        case pattern(PathPattern.Segment)
        case characters(String)
    }

    /// The segments.
    var segments: [Segment]
    /// Required query param name → type.
    var query: [String: ParamType]
    /// Paths of linkd's own that the variant's shape takes in (a custom-path pattern's `/*/*` takes `/v1/x`): excluded
    /// right before it.
    var excluded: [[Segment]] = []

    /// Whether it ends with a wildcard tail.
    var isWildcard: Bool {
        if case .pattern(let last)? = segments.last { return last.isWildcard }
        return false
    }

    /// A route pattern's variant.
    init(_ segments: [PathPattern.Segment], query: [String: ParamType]) {
        self.segments = segments.map { .pattern($0) }
        self.query = query
    }

    /// A custom-path pattern's variant: a literal as a literal, `*` as a `string` param's pattern.
    init(_ pattern: CustomPathPattern, caseInsensitive: Bool) {
        func segment(_ part: CustomPathPattern.Segment) -> Segment {
            switch part {
            case .literal(let text): .pattern(.literal(text))
            case .wholeSegment: .pattern(.param(name: "*", type: .string))
            case .characters(let text): .characters(text)
            }
        }
        self.segments = pattern.segments.map(segment)
        self.query = [:]
        self.excluded = pattern.ownShapes(caseInsensitive: caseInsensitive).map { $0.map(segment) }
    }
}

/// One rule of an association file, before it is encoded: a path pattern, query item patterns, exclude or include —
/// a component of the apple-app-site-association (`AppManifest.appleLinkComponents(host:)`, Apple's pattern syntax)
/// or of assetlinks.json's `dynamic_app_link_components` (`AppManifest.androidLinkComponents(host:)`, Android's).
/// Rules are tried in order and the first that matches decides.
public struct LinkRule: Sendable, Equatable {
    /// The path pattern (the `/` key).
    public var path: String
    /// Query item name → value pattern (the `?` key); empty: any query.
    public var query: [String: String]
    /// Whether a URL it matches stays out of the app (`"exclude": true`).
    public var exclude: Bool

    /// - Parameters: see the properties.
    public init(path: String, query: [String: String] = [:], exclude: Bool = false) {
        self.path = path
        self.query = query
        self.exclude = exclude
    }

    /// Path and query: two rules with the same key match the same URLs.
    var key: String {
        path + "\u{0}" + query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
    }
}

extension AppManifest {
    /// The pattern variants linkd resolves on `host` (lowercase, no port): the share path's and the custom-path
    /// patterns' (`share.pathPatterns`) on share hosts, then every route pattern's on the app's hosts, in manifest
    /// order, each with its route's required query params.
    func linkVariants(host: String) -> [LinkVariant] {
        var variants: [LinkVariant] = []
        if let share, shareHosts.contains(host), let pattern = try? PathPattern(parsing: share.path) {
            variants += pattern.expanded.map { LinkVariant($0, query: [:]) }
            variants += share.pathPatterns.map { LinkVariant($0, caseInsensitive: caseInsensitivePaths) }
        }
        if hosts.contains(host) {
            for id in routeOrder {
                guard let route = routes[id] else { continue }
                let query = route.query.filter(\.value.required).mapValues(\.type)
                for text in route.patterns {
                    guard let pattern = try? PathPattern(parsing: text) else { continue }
                    variants += pattern.expanded.map { LinkVariant($0, query: query) }
                }
            }
        }
        return variants
    }
}

extension PathPattern.Segment {
    /// Whether this is the wildcard tail.
    var isWildcard: Bool {
        if case .wildcard = self { return true }
        return false
    }
}
