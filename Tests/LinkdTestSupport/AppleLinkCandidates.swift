import Foundation
public import LinkRouter

/// One URL path (and query) to try on an app's host: does iOS open it in the app (the apple-app-site-association,
/// `AppleLinkMatcher`) exactly when linkd resolves it to a route (`Router.resolve`, `GET /v1/resolve`)?
public struct AppleLinkCandidate: Sendable, CustomStringConvertible {
    /// What the two sides are expected to say.
    public enum Expectation: Sendable, Equatable {
        /// iOS opens it in the app exactly when linkd resolves it — or, when linkd does not, an `int` or `slug`
        /// param took a value of the wrong type (`AppleLinkLimit.paramTypeBeyondLength`, checked with the manifest's
        /// params made `string`).
        case agree
        /// A documented limit: iOS opens it in the app though linkd does not resolve it.
        case limit(AppleLinkLimit)
    }

    /// The path as written on the wire (percent-encoded).
    public var path: String
    /// The query as written, without `?` ("" for none).
    public var query: String
    /// What is expected.
    public var expectation: Expectation
    /// How it was made from the pattern ("trailing /", "uuid with %2D", …).
    public var variant: String
    /// The pattern it was made from ("" for the fixed tries).
    public var pattern: String

    /// - Parameters: see the properties.
    public init(path: String, query: String = "", expectation: Expectation = .agree, variant: String, pattern: String = "") {
        self.path = path
        self.query = query
        self.expectation = expectation
        self.variant = variant
        self.pattern = pattern
    }

    /// The URL on `host`.
    public func url(host: String) -> String { "https://\(host)\(path)" + (query.isEmpty ? "" : "?" + query) }

    /// `path?query  [variant of pattern]`.
    public var description: String {
        path + (query.isEmpty ? "" : "?" + query) + "  [\(variant)" + (pattern.isEmpty ? "" : " of \(pattern)") + "]"
    }
}

/// What Apple's component patterns cannot say, so the apple-app-site-association covers these paths though linkd
/// does not resolve them (docs/web-fallback.md, "Documented limits"). The only disagreements the checks allow.
public enum AppleLinkLimit: String, Sendable, CaseIterable {
    /// A param's type beyond its length: `?*` takes an `int` given letters (`/items/4x2/view`) or a `slug` with
    /// capitals, 36 `?` take a `uuid` of 36 characters that are not hex digits (`zzzzzzzz-…`, or an escape among them).
    case paramTypeBeyondLength
    /// A param followed by literals and then a wildcard tail: the tail comes first in the file and its `?*` for the
    /// param spans segments (`/u/a/b/posts/c` for `/u/:name/posts/*rest`).
    case paramSpansBeforeWildcardTail
    /// A route with a required query param whose path another route's param also matches: without the query linkd
    /// answers `badQuery` (the literal wins, then fails), the file lets the other route's pattern cover it.
    case requiredQueryDoesNotFallThrough
}

/// The candidates of a manifest and the one rule that judges them, shared by the file-level check
/// (WebFallbackTests) and the daemon journey (LinkdServerTests).
public enum AppleLinkCandidates {
    /// The uuid the samples use.
    public static let uuid = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"

    /// How a candidate came out.
    public enum Verdict: Sendable, Equatable {
        /// Both sides say the same.
        case agreed
        /// iOS opens it in the app, linkd does not resolve it, for this documented reason.
        case limit(AppleLinkLimit)
        /// Anything else: what went wrong.
        case disagreed(String)
    }

    /// Judges one candidate.
    /// - Parameters:
    ///   - resolves: linkd resolves it to a route (`resolvesToRoute`).
    ///   - opensInApp: iOS opens it in the app by the file.
    ///   - resolvesWithLooseTypes: whether some route resolves it with its `int` and `slug` params made `string`
    ///     (`LooseTypeRouters`): what Apple's `?*` accepts. Asked only when the two sides disagree.
    public static func verdict(
        _ candidate: AppleLinkCandidate, resolves: Bool, opensInApp: Bool, resolvesWithLooseTypes: @autoclosure () -> Bool
    ) -> Verdict {
        switch candidate.expectation {
        case .agree:
            if resolves == opensInApp { return .agreed }
            if opensInApp, resolvesWithLooseTypes() { return .limit(.paramTypeBeyondLength) }
            return .disagreed(resolves ? "linkd resolves it, iOS would open the browser" : "iOS would open the app, linkd does not resolve it")
        case .limit(let limit):
            if opensInApp { return resolves ? .agreed : .limit(limit) }
            return .disagreed("expected covered (documented limit \(limit.rawValue)); iOS would open the browser")
        }
    }

    /// Whether a resolution names a route: it opens one, intercepts one, is a share link (active or not), or names a
    /// route the caller's state may not open (`notAllowed`: another state may). What "linkd resolves it" means here.
    public static func resolvesToRoute(_ resolution: Resolution) -> Bool {
        resolvesToRoute(outcome: resolution.outcome.rawValue, problem: resolution.problem?.code.description)
    }

    /// `resolvesToRoute` over the resolution JSON's `outcome` and `problem.code`.
    public static func resolvesToRoute(outcome: String, problem: String?) -> Bool {
        outcome != "notFound" || problem == "notAllowed"
    }

    /// `manifest` with the `int` and `slug` params (path and query) of `route` read as `string` — what Apple's `?*`
    /// accepts — and every other route without patterns.
    static func withLooseTypes(_ manifest: AppManifest, only route: String) -> AppManifest {
        var loose = manifest
        for (id, other) in manifest.routes {
            guard id == route else {
                loose.routes[id]?.patterns = []
                continue
            }
            loose.routes[id]?.patterns = other.patterns.map {
                $0.replacingOccurrences(of: "(int)", with: "").replacingOccurrences(of: "(slug)", with: "")
            }
            for (name, param) in other.query where param.type != .uuid { loose.routes[id]?.query[name]?.type = .string }
        }
        return loose
    }

    /// Every candidate of `manifest`: unknown top-level paths, and per pattern variant (routes with their required
    /// query, and the share path) a sample with a valid value for each param and its variants:
    /// - shape: the required query missing, an extra segment at the end and after each param, each segment missing,
    ///   a uuid one character short or long or holding a `/`;
    /// - slashes: a trailing `/`, a trailing `//`, a doubled `/` before each segment and inside a wildcard's value;
    /// - case: each literal in capitals and capitalized, a uuid in capitals;
    /// - percent-encoding: an unreserved character of a literal as `%XX` and `%xx`, a literal's escapes in lowercase
    ///   hex, a param's first character escaped (string, int, slug, uuid, wildcard), a string param holding `%2f`,
    ///   a uuid's `-` as `%2D` and `%2d`;
    /// - type limits (`AppleLinkLimit.paramTypeBeyondLength`): an `int` with letters, a `slug` with capitals, a uuid
    ///   of 36 characters that are not hex digits or that hold an escape.
    public static func candidates(_ manifest: AppManifest) -> [AppleLinkCandidate] {
        var result: [AppleLinkCandidate] = []
        func add(_ path: String, _ variant: String, query: String = "", pattern: String = "",
                 expectation: AppleLinkCandidate.Expectation = .agree) {
            result.append(AppleLinkCandidate(path: path, query: query, expectation: expectation, variant: variant, pattern: pattern))
        }
        add("/", "root")
        add("//", "root doubled")
        add("/zz-not-a-route", "unknown")
        add("/zz-not-a-route/", "unknown, trailing /")
        add("/zz-not-a-route/\(uuid)", "unknown")
        add("/zz/a/b/c/d/e", "unknown")

        var patterns: [(text: String, query: String)] = []
        for id in manifest.routeOrder {
            guard let route = manifest.routes[id] else { continue }
            let query = route.query.filter { $0.value.required }.keys.sorted().map { "\($0)=\(sample(route.query[$0]!.type))" }
                .joined(separator: "&")
            patterns += route.patterns.map { ($0, query) }
        }
        if let share = manifest.share { patterns.append((share.path, "")) }

        for (text, query) in patterns {
            guard let pattern = try? PathPattern(parsing: text) else { continue }
            for variant in pattern.expanded {
                let values = variant.map { segment -> String in
                    switch segment {
                    case .literal(let literal): AppManifest.appleEncoded(literal)
                    case .param(_, let type): sample(type)
                    case .wildcard: "a/b"
                    }
                }
                func path(_ parts: [String]) -> String { "/" + parts.joined(separator: "/") }
                func with(_ index: Int, _ value: String) -> String {
                    var changed = values
                    changed[index] = value
                    return path(changed)
                }
                func addHere(_ path: String, _ variantName: String, _ expectation: AppleLinkCandidate.Expectation = .agree,
                             query here: String? = nil) {
                    add(path, variantName, query: here ?? query, pattern: text, expectation: expectation)
                }

                // Shape.
                addHere(path(values), "sample")
                if !query.isEmpty { addHere(path(values), "required query missing", query: "") }
                addHere(path(values + ["extra"]), "extra segment")
                addHere(path(values + ["extra", "more"]), "two extra segments")

                // Slashes.
                if !values.isEmpty {
                    addHere(path(values) + "/", "trailing /")
                    addHere(path(values) + "//", "trailing //")
                    if !query.isEmpty { addHere(path(values) + "/", "trailing /, required query missing", query: "") }
                }
                for index in values.indices {
                    addHere(path(Array(values[..<index])) + (index == 0 ? "/" : "//") + values[index...].joined(separator: "/"),
                            "doubled / before segment \(index + 1)")
                }

                for index in values.indices {
                    var missing = values
                    missing.remove(at: index)
                    addHere(path(missing), "segment \(index + 1) missing")
                    switch variant[index] {
                    case .literal:
                        let literal = values[index]
                        addHere(with(index, literal.uppercased()), "literal in capitals")
                        addHere(with(index, literal.prefix(1).uppercased() + literal.dropFirst()), "literal capitalized")
                        if let encoded = encodingFirstUnreserved(literal) {
                            addHere(with(index, encoded), "unreserved character of a literal as %XX")
                            if encoded.lowercased() != encoded {
                                addHere(with(index, lowercasedEscapes(encoded)), "unreserved character of a literal as %xx")
                            }
                        }
                        if lowercasedEscapes(literal) != literal {
                            addHere(with(index, lowercasedEscapes(literal)), "literal's escapes in lowercase hex")
                        }
                    case .param(_, let type):
                        var extra = values
                        extra.insert("extra", at: index + 1)
                        addHere(path(extra), "extra segment after a param")
                        let value = values[index]
                        addHere(with(index, escapeFirst(value)), "\(type.rawValue) param's first character as %XX")
                        switch type {
                        case .string:
                            addHere(with(index, "a%2Fb"), "string param holding %2F")
                            addHere(with(index, "a%2fb"), "string param holding %2f")
                            addHere(with(index, "%61bc"), "string param with an unreserved character as %XX")
                        case .int:
                            addHere(with(index, "4x2"), "int param with letters", .limit(.paramTypeBeyondLength))
                        case .slug:
                            addHere(with(index, "A-Slug"), "slug param with capitals", .limit(.paramTypeBeyondLength))
                        case .uuid:
                            var slashed = Array(value)
                            slashed[30] = "/"
                            addHere(with(index, String(value.dropLast())), "uuid one character short")
                            addHere(with(index, value + "0"), "uuid one character long")
                            addHere(with(index, String(slashed)), "uuid holding a /")
                            addHere(with(index, value.uppercased()), "uuid in capitals")
                            let dashed = value.replacingOccurrences(of: "-", with: "%2D")
                            addHere(with(index, dashed), "uuid with its - as %2D")
                            addHere(with(index, value.replacingOccurrences(of: "-", with: "%2d")), "uuid with its - as %2d")
                            let first = value.firstIndex(of: "-")!
                            addHere(with(index, String(value[..<first]) + "%2D" + value[value.index(after: first)...]), "uuid with one - as %2D")
                            addHere(with(index, "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz"), "uuid of non-hex characters",
                                    .limit(.paramTypeBeyondLength))
                            addHere(with(index, String(value.dropLast(3)) + "%33"), "uuid of 36 characters holding an escape",
                                    .limit(.paramTypeBeyondLength))
                        }
                    case .wildcard:
                        addHere(with(index, "a"), "wildcard of one segment")
                        addHere(with(index, "a//b"), "wildcard holding //")
                        addHere(with(index, "%61/b"), "wildcard with an unreserved character as %XX")
                    }
                }
            }
        }
        return result
    }

    /// A valid value of each type, written canonically.
    public static func sample(_ type: ParamType) -> String {
        switch type {
        case .uuid: uuid
        case .int: "42"
        case .slug: "a-slug"
        case .string: "abc"
        }
    }

    /// `segment` (canonical) with its first ASCII letter or digit outside an escape written `%XX` (uppercase hex),
    /// if it has one.
    static func encodingFirstUnreserved(_ segment: String) -> String? {
        var characters = Array(segment)
        var index = 0
        while index < characters.count {
            if characters[index] == "%" { index += 3; continue }
            if characters[index].isASCII && (characters[index].isLetter || characters[index].isNumber) {
                characters.replaceSubrange(index...index, with: Array(escaped(characters[index])))
                return String(characters)
            }
            index += 1
        }
        return nil
    }

    /// `value` with its first character written `%XX` (its UTF-8 bytes, uppercase hex); `value` if it starts with `%`.
    static func escapeFirst(_ value: String) -> String {
        guard let first = value.first, first != "%" else { return value }
        return escaped(first) + value.dropFirst()
    }

    /// `character`'s UTF-8 bytes as `%XX`.
    static func escaped(_ character: Character) -> String {
        let hex = Array("0123456789ABCDEF")
        return String(character).utf8.map { "%" + String(hex[Int($0 >> 4)]) + String(hex[Int($0 & 15)]) }.joined()
    }

    /// `text` with the hex digits of its escapes in lowercase.
    static func lowercasedEscapes(_ text: String) -> String {
        var out = ""
        var pending = 0
        for character in text {
            if character == "%" {
                pending = 2
                out.append(character)
            } else if pending > 0 {
                pending -= 1
                out += character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }
}

/// Whether some route of the manifests resolves a URL once its `int` and `slug` params are read as `string` (what
/// Apple's `?*` accepts): a router per route, that route's patterns loosened and every other route's dropped, since
/// loosened patterns of two routes may overlap (`/flows/:id(uuid)` and `/flows/:n(int)`), which one router refuses.
public final class LooseTypeRouters: Sendable {
    private let routers: [Router]

    /// One router per route with patterns (a route whose own loosened patterns overlap keeps its types).
    public init(_ manifests: [AppManifest]) throws {
        var routers: [Router] = []
        for manifest in manifests {
            for id in manifest.routeOrder where manifest.routes[id]?.patterns.isEmpty == false {
                let loose = AppleLinkCandidates.withLooseTypes(manifest, only: id)
                if let router = try? Router(manifests: [loose]) {
                    routers.append(router)
                } else {
                    var kept = loose
                    kept.routes[id]?.patterns = manifest.routes[id]?.patterns ?? []
                    kept.routes[id]?.query = manifest.routes[id]?.query ?? [:]
                    routers.append(try Router(manifests: [kept]))
                }
            }
        }
        self.routers = routers
    }

    /// Whether one of the routers resolves `url` to a route (`AppleLinkCandidates.resolvesToRoute`), in the app's
    /// unauthenticated state.
    public func resolves(_ url: String) -> Bool {
        routers.contains { AppleLinkCandidates.resolvesToRoute($0.resolve(url: url, state: nil)) }
    }
}
