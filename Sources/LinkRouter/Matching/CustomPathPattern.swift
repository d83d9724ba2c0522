/// A shape of custom paths an app's manifest declares in `share.pathPatterns` (`/l/*`, `/????`): every path of that
/// shape on the app's share hosts is linkd's to answer — the link holding it, or the "link unavailable" answer an
/// unknown short id gets — and the well-known files cover the shape once instead of listing each path
/// (docs/manifest.md, "share.pathPatterns").
///
/// The grammar: `/` and then segments separated by `/`; a segment is `*` (one whole segment: one or more characters
/// of the custom-path alphabet, ASCII letters, digits, `-`, `_`), or one or more characters of that alphabet and `?`
/// (`?`: exactly one of them). No empty segment, no trailing `/`, no `**`, `*` never beside other characters, at most
/// `CustomPath`'s 128 bytes; not `/` alone; no pattern starting (in any case) with one of linkd's own prefixes.
public struct CustomPathPattern: Sendable, Equatable, CustomStringConvertible {
    /// One segment of a pattern.
    public enum Segment: Sendable, Equatable {
        /// Characters as written.
        case literal(String)
        /// `*`: one whole segment (one or more characters).
        case wholeSegment
        /// Characters and at least one `?`, each `?` one character of the alphabet.
        case characters(String)
    }

    /// The pattern as written in the manifest.
    public let text: String
    /// Its segments.
    public let segments: [Segment]

    /// The most patterns one manifest declares.
    public static let maxPatterns = 16
    /// The longest pattern, in bytes (a custom path's longest).
    public static let maxBytes = 128

    /// Prefixes of paths linkd answers itself (compared in lowercase): a pattern's literal start may begin with none.
    public static let reservedPrefixes = ["/s/", "/v1/", "/.well-known/", "/static/", "/admin", "/healthz", "/readyz", "/metrics"]
    /// First segments under which linkd answers paths of two segments or more itself (a pattern's `*` or `?` may
    /// still match them: such paths are not the pattern's).
    static let ownFirstSegments = ["s", "v1", "static", "admin"]
    /// Paths of one segment linkd answers itself.
    static let ownSingleSegments = ["s", "v1", "admin", "healthz", "readyz", "metrics"]

    /// A pattern that is not one, with what to change.
    public struct Problem: Error, Sendable, Equatable {
        /// What is wrong.
        public var message: String
        /// What to change.
        public var hint: String
    }

    /// Parses `text`.
    public init(parsing text: String) throws(Problem) {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "/"), bytes.count >= 2 else {
            throw Problem(message: "path pattern '\(text.prefix(80))' must start with '/' and name something after it",
                          hint: "write it like '/l/*' or '/????'")
        }
        guard bytes.count <= Self.maxBytes else {
            throw Problem(message: "path pattern is \(bytes.count) bytes, more than \(Self.maxBytes)", hint: "shorten it")
        }
        var segments: [Segment] = []
        for part in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard !part.isEmpty else {
                throw Problem(message: "path pattern '\(text)' has an empty segment or a trailing '/'", hint: "remove the extra '/'")
            }
            if part == "*" {
                segments.append(.wholeSegment)
                continue
            }
            guard part.utf8.allSatisfy({ Self.isAlphabet($0) || $0 == UInt8(ascii: "?") }) else {
                throw Problem(message: "path pattern '\(text)' has segment '\(part.prefix(40))' with a character other than "
                              + "ASCII letters, digits, '-', '_', '?' (or a '*' that is not a whole segment)",
                              hint: "write '*' for one whole segment, '?' for one character; '**' is not supported")
            }
            segments.append(part.contains("?") ? .characters(String(part)) : .literal(String(part)))
        }
        var literalStart = "/"
        for segment in segments {
            guard case .literal(let text) = segment else {
                if case .characters(let chars) = segment { literalStart += chars.prefix { $0 != "?" } }
                break
            }
            literalStart += text + "/"
        }
        let lower = String(decoding: literalStart.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        let whole = segments.allSatisfy { if case .literal = $0 { true } else { false } }
        for prefix in Self.reservedPrefixes {
            let trimmed = whole ? String(lower.dropLast()) : lower
            if trimmed.hasPrefix(prefix) || trimmed + "/" == prefix || (whole && (trimmed + "/").hasPrefix(prefix)) {
                throw Problem(message: "path pattern '\(text)' starts with '\(prefix)', which linkd answers itself",
                              hint: "choose another prefix, e.g. '/l/*'")
            }
        }
        self.text = text
        self.segments = segments
    }

    /// The pattern as written.
    public var description: String { text }

    /// Whether `path` (as a URL writes it, up to its query, without a trailing `/`) has this pattern's shape: as many
    /// segments, each literal the same (in any case when `caseInsensitive`, a `caseInsensitivePaths` manifest), each
    /// `*` one or more characters and each `?` one character other than `/` — any character, as Apple's patterns
    /// match the written path (`/%41bc` has the shape of `/?????`, and linkd answers it: no link holds such a path).
    public func matches(_ path: some StringProtocol, caseInsensitive: Bool = false) -> Bool {
        guard path.utf8.count <= Self.maxCoveredBytes, path.first == "/" else { return false }
        let parts = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == segments.count else { return false }
        for (part, segment) in zip(parts, segments) {
            guard !part.isEmpty else { return false }
            switch segment {
            case .wholeSegment:
                continue
            case .literal(let text), .characters(let text):
                guard text.count == part.count else { return false }
                for (want, got) in zip(text, part) where want != "?" {
                    guard want == got || (caseInsensitive && want.lowercased() == got.lowercased()) else { return false }
                }
            }
        }
        return true
    }

    /// The longest path a pattern is matched with, in bytes.
    public static let maxCoveredBytes = 1_024

    /// Whether linkd answers `path` itself, although a pattern may match it: `/v1/…`, `/s/…`, `/static/…`,
    /// `/admin/…` and `/s`, `/v1`, `/admin`, `/healthz`, `/readyz`, `/metrics` (in any case when `caseInsensitive`).
    public static func isLinkdsOwn(_ path: some StringProtocol, caseInsensitive: Bool = false) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            caseInsensitive ? String($0).lowercased() : String($0)
        }
        guard let first = parts.first else { return false }
        return parts.count == 1 ? ownSingleSegments.contains(first) : ownFirstSegments.contains(first)
    }

    /// The paths of linkd's own (`isLinkdsOwn`) this pattern matches, as segments: the pattern with its first segment
    /// replaced by the literal it may match (`/*/*` → `/v1/*`, `/s/*`, …). The well-known files exclude them.
    func ownShapes(caseInsensitive: Bool) -> [[Segment]] {
        guard let first = segments.first else { return [] }
        let names = segments.count == 1 ? Self.ownSingleSegments : Self.ownFirstSegments
        return names.filter { name in
            switch first {
            case .wholeSegment: true
            case .literal(let text), .characters(let text):
                text.utf8.count == name.utf8.count && zip(text.utf8, name.utf8).allSatisfy { want, got in
                    want == UInt8(ascii: "?") || Self.same(want, got, caseInsensitive)
                }
            }
        }.map { [Segment.literal($0)] + Array(segments.dropFirst()) }
    }

    static func isAlphabet(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    private static func same(_ a: UInt8, _ b: UInt8, _ caseInsensitive: Bool) -> Bool {
        guard caseInsensitive else { return a == b }
        func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c + 0x20 : c }
        return lower(a) == lower(b)
    }
}

extension AppManifest {
    /// Whether one of `share.pathPatterns` covers `path` (as a URL writes it, without a trailing `/`) and linkd does
    /// not answer it itself: a path linkd answers on the app's share hosts whether or not a link holds it.
    public func pathPatternsCover(_ path: some StringProtocol) -> Bool {
        guard let patterns = share?.pathPatterns, !patterns.isEmpty,
              !CustomPathPattern.isLinkdsOwn(path, caseInsensitive: caseInsensitivePaths) else { return false }
        return patterns.contains { $0.matches(path, caseInsensitive: caseInsensitivePaths) }
    }
}
