import Foundation
public import LinkRouter

/// What Android's dynamic rules cannot say, so Android and linkd disagree on these URLs (docs/web-fallback.md,
/// "Android"). The only disagreements the checks allow; the first five open the app for a URL linkd does not
/// resolve, the last two keep in the browser a URL linkd resolves.
public enum AndroidLinkLimit: String, Sendable, CaseIterable {
    /// A param's type beyond its length, as on iOS: `?*` takes an `int` given letters or a `slug` with capitals,
    /// 36 `?` a `uuid` of 36 characters that are not hex digits.
    case paramTypeBeyondLength
    /// Android matches the decoded path: a spelling linkd refuses (an escaped letter in a literal, `/t%61b/recents`; a
    /// uuid's `-` as `%2D`; a literal's escape in lowercase hex) reads as a path linkd resolves.
    case decodedSpelling
    /// An empty segment deeper than 32 segments under a wildcard tail: the excludes of empty segments stop there.
    case emptySegmentDeepInWildcardTail
    /// A route with a required query param whose path another route's param also matches: without the query linkd
    /// answers `badQuery`, the rules let the other route's pattern open it (as on iOS).
    case requiredQueryDoesNotFallThrough
    /// A literal holding `?` (`/wh?at/x`): the documentation gives no escape for a pattern character, so the rule
    /// writes it `?`, any one character (`/whXat/x` opens the app).
    case patternCharacterInLiteral
    /// A param holding `%2F`: linkd keeps `a/b` in one segment, Android reads one more segment.
    case escapedSlashInParam
    /// A literal in other capitals in a `caseInsensitivePaths` manifest: linkd folds ASCII letters, Android's patterns
    /// compare case-sensitively.
    case caseFoldedLiteral
    /// A `.` or `..` segment (`/coin/.`): linkd refuses dot segments, Android's `?*` takes them as any other
    /// characters (browsers remove them before a request; a link made by hand or by an app keeps them).
    case dotSegment
}

/// Judges one URL: does Android open it in the app (the served rules, `AndroidLinkMatcher`) exactly when linkd
/// resolves it to a route, and if not, is it one of the named limits? Classification only: `resolves` and
/// `problem` come from the caller (`Router.resolve` or `GET /v1/resolve`); the routers here only say whether a
/// disagreement is a limit.
public struct AndroidLinkJudge: Sendable {
    /// How a URL came out.
    public enum Verdict: Sendable, Equatable {
        /// Both sides say the same.
        case agreed
        /// They disagree, for this documented reason.
        case limit(AndroidLinkLimit)
        /// Anything else: what went wrong.
        case disagreed(String)
    }

    private let router: Router
    private let loose: LooseTypeRouters
    /// Literal segments of the manifests' patterns that hold `?` or `*`.
    private let patternLiterals: [String]

    /// A judge for URLs of `manifests`.
    public init(_ manifests: [AppManifest]) throws {
        router = try Router(manifests: manifests)
        loose = try LooseTypeRouters(manifests)
        var literals: [String] = []
        for manifest in manifests {
            for text in manifest.routes.values.flatMap(\.patterns) + [manifest.share?.path].compactMap(\.self) {
                for case (.literal(let literal), _) in (try? PathPattern(parsing: text))?.segments ?? []
                where literal.contains("?") || literal.contains("*") {
                    literals.append(literal)
                }
            }
        }
        patternLiterals = literals
    }

    /// Judges `path?query` on `host` (an https URL of `manifest`).
    /// - Parameters:
    ///   - resolves: linkd resolves it to a route (`AppleLinkCandidates.resolvesToRoute`).
    ///   - problem: the resolution's `problem.code`, if any.
    ///   - opensInApp: Android opens it in the app by the rules.
    ///   - opens: Android's answer for another path of the same host (to try a case-folded spelling).
    public func verdict(
        host: String, path: String, query: String, manifest: AppManifest, resolves: Bool, problem: String?,
        opensInApp: Bool, opens: (String) -> Bool
    ) -> Verdict {
        if resolves == opensInApp { return .agreed }
        let url = "https://\(host)\(path)" + (query.isEmpty ? "" : "?" + query)
        if opensInApp {
            if problem == "badQuery" { return .limit(.requiredQueryDoesNotFallThrough) }
            if problem == "nonCanonicalPath", Self.segmentsBeforeEmpty(AndroidLinkMatcher.decoded(path)) >= 32 {
                return .limit(.emptySegmentDeepInWildcardTail)
            }
            let canonical = "https://\(host)\(Self.canonicalDecoded(path))" + (query.isEmpty ? "" : "?" + query)
            if AppleLinkCandidates.resolvesToRoute(router.resolve(url: canonical, state: nil)) { return .limit(.decodedSpelling) }
            if loose.resolves(url) || resolvesWithPlainUUIDs(host: host, path: path, query: query) { return .limit(.paramTypeBeyondLength) }
            let segments = AndroidLinkMatcher.decoded(path).split(separator: "/").map(Array.init)
            if segments.contains(where: { $0 == ["."] || $0 == [".", "."] }) { return .limit(.dotSegment) }
            if patternLiterals.map(Array.init).contains(where: { literal in
                segments.contains { $0 != literal && $0.count == literal.count
                    && zip($0, literal).allSatisfy { $0 == $1 || $1 == "?" || $1 == "*" } }
            }) {
                return .limit(.patternCharacterInLiteral)
            }
            return .disagreed("Android would open the app, linkd does not resolve it")
        }
        if path.lowercased().contains("%2f") { return .limit(.escapedSlashInParam) }
        if manifest.caseInsensitivePaths, opens(path.lowercased()) || opens(path.uppercased()) { return .limit(.caseFoldedLiteral) }
        return .disagreed("linkd resolves it, Android would open the browser")
    }

    /// Whether linkd resolves the URL once every segment shaped like a uuid (36 characters, `-` at 8, 13, 18 and 23)
    /// is a valid one: what 36 `?` accept.
    private func resolvesWithPlainUUIDs(host: String, path: String, query: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            let characters = Array(AndroidLinkMatcher.decoded(String(segment)))
            let shaped = characters.count == 36 && [8, 13, 18, 23].allSatisfy { characters[$0] == "-" }
            return shaped ? AppleLinkCandidates.uuid : String(segment)
        }
        let url = "https://\(host)\(segments.joined(separator: "/"))" + (query.isEmpty ? "" : "?" + query)
        return AppleLinkCandidates.resolvesToRoute(router.resolve(url: url, state: nil))
    }

    /// The path as Android reads it (decoded), written in linkd's canonical spelling (each segment as
    /// `AppManifest.appleEncoded` writes it).
    public static func canonicalDecoded(_ path: String) -> String {
        AndroidLinkMatcher.decoded(path).split(separator: "/", omittingEmptySubsequences: false)
            .map { AppManifest.appleEncoded(String($0)) }.joined(separator: "/")
    }

    /// How many segments come before the first empty one (`/a/b//c` → 2, `//a` → 0); all of them when none is empty.
    public static func segmentsBeforeEmpty(_ path: String) -> Int {
        let before = path.range(of: "//").map { path[..<$0.lowerBound] } ?? path[...]
        return before.split(separator: "/").count
    }
}

/// Manifests for the Android checks: the examples as apps with Android, and one with what they lack.
public enum AndroidLinkFixtures {
    /// The fingerprint the test statements carry.
    public static let fingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"

    /// `yaml` (a manifest) with an `android` section naming `com.example.<app>` when it has none.
    public static func withAndroid(_ yaml: String, app: String) -> String {
        guard !yaml.split(separator: "\n").contains(where: { $0.hasPrefix("android:") }) else { return yaml }
        return yaml + (yaml.hasSuffix("\n") ? "" : "\n")
            + "android: { package: com.example.\(app), sha256CertFingerprints: [\"\(fingerprint)\"] }\n"
    }

    /// A case-sensitive manifest with what the examples lack: a wildcard tail (after a literal, and after a param and
    /// literals), an optional segment, `int` and `slug` params, a required query param, a uuid followed by a param,
    /// the root path, a literal holding `?`, a non-ASCII literal, a share path on every host.
    public static let globs = """
        app: globs
        name: Globs
        hosts: [links.globs.example]
        android: { package: com.example.globs, sha256CertFingerprints: ["\(fingerprint)"] }
        states: [in]
        unauthenticatedState: in
        routes:
          - { id: Home, presentation: root, states: [in], patterns: ["/"] }
          - { id: Docs, presentation: push, states: [in], patterns: ["/docs/*rest"] }
          - { id: Item, presentation: push, states: [in], patterns: ["/items/:id(int)/view"] }
          - { id: List, presentation: push, states: [in], patterns: ["/list/:page(int)?"] }
          - { id: User, presentation: push, states: [in], patterns: ["/u/:name", "/u/:name/posts/:post(slug)", "/u/:name/files/*path"] }
          - { id: Search, presentation: push, states: [in], patterns: ["/search/:scope"], query: { q: { type: string, required: true } } }
          - { id: Thing, presentation: push, states: [in], patterns: ["/t/:a(uuid)/:b"] }
          - { id: Odd, presentation: push, states: [in], patterns: ["/wh?at/x", "/café"] }
        share: { path: /s/:token, route: Home, unavailableRoute: Home }
        """
}
