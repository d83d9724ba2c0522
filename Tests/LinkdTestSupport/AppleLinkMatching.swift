public import Foundation

/// Apple's universal-link matching of an apple-app-site-association file, as documented for
/// `applinks.details[].components`, so tests can ask "would iOS open this URL in the app?":
///
/// - details in order, and in each its components in order; the first component that matches decides: one with
///   `"exclude": true` keeps the URL out of the app, any other opens it; no match keeps it out;
/// - a component matches when each of its `/` (path), `?` (query) and `#` (fragment) patterns matches (absent: `*`);
///   `?` may instead be a dictionary of query item name → value pattern, each item present and matching;
/// - in a pattern `*` matches any run of characters, `/` included and none at all, and `?` exactly one character;
/// - `caseSensitive` (default true) and patterns compared with the URL's percent-encoded components as written.
public struct AppleLinkMatcher: Sendable {
    /// One component.
    public struct Component: Sendable, Equatable {
        /// The `/` pattern.
        public var path: String
        /// The `?` pattern when it is a string.
        public var query: String
        /// The `?` dictionary when it is one.
        public var queryItems: [String: String]?
        /// The `#` pattern.
        public var fragment: String
        /// `exclude`.
        public var exclude: Bool
        /// `caseSensitive`.
        public var caseSensitive: Bool
    }

    /// The components of each detail, in order, with the detail's app ids.
    public let details: [(appIDs: [String], components: [Component])]

    /// Thrown for a file that is not an apple-app-site-association document.
    public struct FormatError: Error, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }

    /// Reads the `applinks` part of an apple-app-site-association file.
    public init(json: Data) throws {
        guard let root = try JSONSerialization.jsonObject(with: json) as? [String: Any],
              let applinks = root["applinks"] as? [String: Any], let details = applinks["details"] as? [[String: Any]]
        else { throw FormatError(description: "no applinks.details") }
        var parsed: [(appIDs: [String], components: [Component])] = []
        for detail in details {
            let appIDs = detail["appIDs"] as? [String] ?? []
            var components: [Component] = []
            for item in detail["components"] as? [[String: Any]] ?? [] {
                let known: Set<String> = ["/", "?", "#", "exclude", "caseSensitive", "comment", "percentEncoded"]
                if let unknown = item.keys.first(where: { !known.contains($0) }) {
                    throw FormatError(description: "unknown component key \(unknown)")
                }
                var component = Component(
                    path: item["/"] as? String ?? "*", query: "*", queryItems: nil, fragment: item["#"] as? String ?? "*",
                    exclude: item["exclude"] as? Bool ?? false, caseSensitive: item["caseSensitive"] as? Bool ?? true)
                if let query = item["?"] as? String { component.query = query }
                if let items = item["?"] as? [String: String] { component.queryItems = items }
                components.append(component)
            }
            parsed.append((appIDs, components))
        }
        self.details = parsed
    }

    /// Whether iOS opens a URL with this percent-encoded `path`, `query` (without `?`) and `fragment` in the app.
    public func opensInApp(path: String, query: String = "", fragment: String = "") -> Bool {
        firstMatch(path: path, query: query, fragment: fragment).map { !$0.exclude } ?? false
    }

    /// The component that decides for this URL, if any.
    public func firstMatch(path: String, query: String = "", fragment: String = "") -> Component? {
        for detail in details {
            for component in detail.components where matches(component, path: path, query: query, fragment: fragment) {
                return component
            }
        }
        return nil
    }

    private func matches(_ component: Component, path: String, query: String, fragment: String) -> Bool {
        let fold = !component.caseSensitive
        guard Self.glob(component.path, path, fold: fold), Self.glob(component.fragment, fragment, fold: fold) else { return false }
        guard let items = component.queryItems else { return Self.glob(component.query, query, fold: fold) }
        var values: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            if values[name] == nil { values[name] = parts.count > 1 ? String(parts[1]) : "" }
        }
        return items.allSatisfy { name, pattern in values[name].map { Self.glob(pattern, $0, fold: fold) } ?? false }
    }

    /// `*` any run of characters (none included), `?` one character, anything else itself.
    public static func glob(_ pattern: String, _ text: String, fold: Bool = false) -> Bool {
        let p = Array(fold ? pattern.lowercased() : pattern)
        let t = Array(fold ? text.lowercased() : text)
        // Classic backtracking over the last `*`: linear in practice, correct for `*` and `?`.
        var i = 0, j = 0
        var star = -1, mark = 0
        while j < t.count {
            if i < p.count, p[i] == "?" || p[i] == t[j] && p[i] != "*" {
                i += 1
                j += 1
            } else if i < p.count, p[i] == "*" {
                star = i
                mark = j
                i += 1
            } else if star >= 0 {
                i = star + 1
                mark += 1
                j = mark
            } else {
                return false
            }
        }
        while i < p.count, p[i] == "*" { i += 1 }
        return i == p.count
    }
}
