public import Foundation

/// Android's reading of an assetlinks.json file's Dynamic App Links rules, as documented
/// (developer.android.com/training/app-links/configure-assetlinks, "Configure dynamic rules") and as the platform
/// applies them (AOSP `UriRelativeFilterGroup`, `UriRelativeFilter`, `PatternMatcher`), so tests can ask "would
/// Android 15+ open this URL in the app?" — written from the documentation, not from linkd's generator:
///
/// - the statement's `relation_extensions["delegate_permission/common.handle_all_urls"].dynamic_app_link_components`,
///   in order; the first rule that matches decides: `"exclude": true` keeps the URL out of the app, any other opens
///   it; no rule matching keeps it out ("If no matches are found … the URL won't open the app");
/// - a rule matches when each of its `/` (path), `#` (fragment) and `?` (query) matchers matches; a rule with none
///   matches nothing (a `UriRelativeFilterGroup` without filters);
/// - `/` is matched with the URL's path **decoded** (`Uri.getPath()`: every `%XX` decoded as UTF-8, `+` kept), `#`
///   with the decoded fragment (absent: no match); case-sensitively, the whole string;
/// - `?` is a dictionary: for every entry, some item of the decoded query (`Uri.getQuery()` split at `&`, each
///   item's name before its first `=`) has that name and a value the entry's pattern matches; other items are ignored;
/// - in a pattern `?` matches any one character, `*` zero or more characters "up until the character after the
///   wildcard in the pattern is found in the matching string" (the first place it is found: no backtracking; a `*` at
///   the end takes the rest; `PatternMatcher`'s `.*`), `?*` one or more. `Star.backtracking` reads `*` as Apple
///   does instead, to check that a rule set does not depend on the difference.
public struct AndroidLinkMatcher: Sendable {
    /// One rule of `dynamic_app_link_components`.
    public struct Rule: Sendable, Equatable {
        /// The `/` pattern, if any.
        public var path: String?
        /// The `?` dictionary, if any.
        public var query: [String: String]?
        /// The `#` pattern, if any.
        public var fragment: String?
        /// `exclude`.
        public var exclude: Bool

        /// - Parameters: see the properties.
        public init(path: String? = nil, query: [String: String]? = nil, fragment: String? = nil, exclude: Bool = false) {
            self.path = path
            self.query = query
            self.fragment = fragment
            self.exclude = exclude
        }
    }

    /// One statement: its package and fingerprints, and its rules (nil without `dynamic_app_link_components`).
    public struct Statement: Sendable {
        /// `target.package_name`.
        public var packageName: String
        /// `target.sha256_cert_fingerprints`.
        public var fingerprints: [String]
        /// The dynamic rules, in order; nil when the statement has none.
        public var rules: [Rule]?
    }

    /// How `*` reads.
    public enum Star: Sendable {
        /// As documented: up to the first place the pattern's next character is found.
        case firstOccurrence
        /// As Apple's: any run of characters, trying every length.
        case backtracking
    }

    /// The statements, in order.
    public let statements: [Statement]

    /// Thrown for a file that is not a list of Digital Asset Links statements as documented.
    public struct FormatError: Error, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }

    /// Reads an assetlinks.json file; refuses unknown keys in a rule and a relation other than `handle_all_urls`.
    public init(json: Data) throws {
        guard let list = try JSONSerialization.jsonObject(with: json) as? [[String: Any]] else {
            throw FormatError(description: "not a list of statements")
        }
        let relation = "delegate_permission/common.handle_all_urls"
        var statements: [Statement] = []
        for item in list {
            guard item["relation"] as? [String] == [relation], let target = item["target"] as? [String: Any],
                  target["namespace"] as? String == "android_app", let package = target["package_name"] as? String,
                  let fingerprints = target["sha256_cert_fingerprints"] as? [String]
            else { throw FormatError(description: "statement \(item) is not an android_app handle_all_urls statement") }
            var rules: [Rule]?
            if let extensions = item["relation_extensions"] {
                guard let byRelation = extensions as? [String: Any], byRelation.keys.sorted() == [relation],
                      let inner = byRelation[relation] as? [String: Any], inner.keys.sorted() == ["dynamic_app_link_components"],
                      let components = inner["dynamic_app_link_components"] as? [[String: Any]]
                else { throw FormatError(description: "relation_extensions \(extensions) is not as documented") }
                rules = try components.map(Self.rule)
            }
            statements.append(Statement(packageName: package, fingerprints: fingerprints, rules: rules))
        }
        self.statements = statements
    }

    /// `statements` as they are (for a matcher of changed rules).
    public init(statements: [Statement]) { self.statements = statements }

    private static func rule(_ item: [String: Any]) throws -> Rule {
        let known: Set<String> = ["/", "?", "#", "exclude", "comments"]
        if let unknown = item.keys.first(where: { !known.contains($0) }) { throw FormatError(description: "unknown rule key \(unknown)") }
        if item["/"] != nil && !(item["/"] is String) || item["#"] != nil && !(item["#"] is String)
            || item["?"] != nil && !(item["?"] is [String: String]) || item["exclude"] != nil && !(item["exclude"] is Bool) {
            throw FormatError(description: "rule \(item) has a value of the wrong type")
        }
        return Rule(path: item["/"] as? String, query: item["?"] as? [String: String], fragment: item["#"] as? String,
                    exclude: item["exclude"] as? Bool ?? false)
    }

    /// The statement of `package`, if the file has one.
    public func statement(package: String) -> Statement? { statements.first { $0.packageName == package } }

    /// Whether Android 15+ opens a URL with this path, query (without `?`) and fragment, all as written on the wire
    /// (percent-encoded), in `package` by its dynamic rules. Nil when the package has no statement or no rules.
    public func opensInApp(package: String, path: String, query: String = "", fragment: String? = nil,
                           star: Star = .firstOccurrence) -> Bool? {
        guard let rules = statement(package: package)?.rules else { return nil }
        return Self.firstMatch(rules, path: path, query: query, fragment: fragment, star: star).map { !$0.exclude } ?? false
    }

    /// The rule that decides for this URL, if any.
    public static func firstMatch(_ rules: [Rule], path: String, query: String = "", fragment: String? = nil,
                                  star: Star = .firstOccurrence) -> Rule? {
        let decodedPath = decoded(path)
        let items: [(name: String, value: String)] = query.isEmpty ? [] : decoded(query).split(separator: "&", omittingEmptySubsequences: false).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (name: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : "")
        }
        return rules.first { rule in
            guard rule.path != nil || rule.query != nil || rule.fragment != nil else { return false }
            if let pattern = rule.path, !glob(pattern, decodedPath, star: star) { return false }
            if let pattern = rule.fragment {
                guard let fragment, glob(pattern, decoded(fragment), star: star) else { return false }
            }
            if let entries = rule.query {
                guard !query.isEmpty else { return false }
                for (name, pattern) in entries where !items.contains(where: { $0.name == name && glob(pattern, $0.value, star: star) }) {
                    return false
                }
            }
            return true
        }
    }

    /// `text` as `Uri.decode` reads it: each run of `%XX` escapes decoded as UTF-8 (a bad sequence as U+FFFD), `+` and
    /// a `%` without two hex digits kept.
    public static func decoded(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out = ""
        var pending: [UInt8] = []
        var index = 0
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                pending.append(high << 4 | low)
                index += 3
                continue
            }
            if !pending.isEmpty {
                out += String(decoding: pending, as: UTF8.self)
                pending = []
            }
            var end = index + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "%") { end += 1 }
            out += String(decoding: bytes[index..<end], as: UTF8.self)
            index = end
        }
        if !pending.isEmpty { out += String(decoding: pending, as: UTF8.self) }
        return out
    }

    /// Whether `pattern` matches the whole of `text`: `?` one character, `*` as `star` says, anything else itself.
    public static func glob(_ pattern: String, _ text: String, star: Star = .firstOccurrence) -> Bool {
        if star == .backtracking { return AppleLinkMatcher.glob(pattern, text) }
        let p = Array(pattern.unicodeScalars), t = Array(text.unicodeScalars)
        var i = 0, j = 0
        while i < p.count {
            switch p[i] {
            case "*":
                // `**` is one `*`; a `*` before `?` stops at once (the next character is any one).
                while i + 1 < p.count, p[i + 1] == "*" { i += 1 }
                if i == p.count - 1 { return true }
                let next = p[i + 1]
                if next == "?" {
                    i += 1
                    continue
                }
                guard let found = t[j...].firstIndex(of: next) else { return false }
                j = found + 1
                i += 2
            case "?":
                guard j < t.count else { return false }
                i += 1
                j += 1
            default:
                guard j < t.count, t[j] == p[i] else { return false }
                i += 1
                j += 1
            }
        }
        return j == t.count
    }

    /// This file with every `exclude` rule dropped: a broken rule set, to show a check can fail.
    public func droppingExcludes() -> AndroidLinkMatcher {
        AndroidLinkMatcher(statements: statements.map { statement in
            var changed = statement
            changed.rules = statement.rules?.filter { !$0.exclude }
            return changed
        })
    }
}
