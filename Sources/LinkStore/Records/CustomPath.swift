/// A link's custom path (`/guard-pass`): chosen by the link's creator, served on its app's share hosts beside the
/// share path, answered like the link's token.
///
/// The shape: `/` and then ASCII letters, digits, `-`, `_` and `/`, at most `maxBytes` bytes in all, no empty segment
/// (`//`) and no trailing `/` — only characters a URL writes as they are, so the path as a person types it, as iOS's
/// apple-app-site-association compares it and as linkd stores it are the same bytes.
///
/// The case rule: a path is stored and answered as its creator wrote it (case-sensitively, as iOS and Android match
/// paths), and two live paths of one app may not differ only by case: the store's unique index is on
/// `(app, lower(path))` (`key`), so `/Guard-Pass` is refused while `/guard-pass` is held.
public enum CustomPath {
    /// The longest custom path, in bytes (the leading `/` included).
    public static let maxBytes = 128

    /// Why `text` is not a custom path's shape, or nil when it is one.
    public static func problem(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "/"), bytes.count >= 2 else { return "path must start with / and name something after it" }
        guard bytes.count <= maxBytes else { return "path is at most \(maxBytes) bytes" }
        guard bytes.allSatisfy(isAllowed) else { return "path may hold only ASCII letters, digits, -, _ and /" }
        guard !text.contains("//") else { return "path must not have an empty segment (//)" }
        guard bytes.last != UInt8(ascii: "/") else { return "path must not end with /" }
        return nil
    }

    /// Whether `text` has a custom path's shape.
    public static func isShape(_ text: some StringProtocol) -> Bool {
        problem(String(text)) == nil
    }

    /// The path's key in the store's unique index and in memory: its ASCII letters in lowercase.
    public static func key(_ path: String) -> String {
        String(decoding: path.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "/")
    }
}

/// Which custom paths a backend's `liveCustomPaths` leaves out: those of the shapes an app's manifest declares in
/// `share.pathPatterns` (each `/`-separated segment `*`, one or more characters, or characters where `?` is any one;
/// LinkRouter's `CustomPathPattern` checks them), in any case when `caseInsensitive`. Written into SQL as text: a
/// pattern of other characters leaves nothing out.
public struct CustomPathShapes: Sendable, Equatable {
    /// The patterns' texts (`/l/*`, `/????`).
    public var patterns: [String]
    /// Whether literals match in any case (a `caseInsensitivePaths` manifest).
    public var caseInsensitive: Bool

    /// - Parameters: see the properties.
    public init(_ patterns: [String] = [], caseInsensitive: Bool = false) {
        self.patterns = patterns.filter { text in
            text.hasPrefix("/") && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || "-_/*?".utf8.contains(byte)
            }
        }
        self.caseInsensitive = caseInsensitive
    }

    /// An SQL condition true for a `path` of none of the shapes (`TRUE` when there are none). `like`: PostgreSQL's
    /// `LIKE` (`_` any one character, `%` any run, `\` the escape); else SQLite's case-sensitive `GLOB`.
    func sqlOutside(like: Bool) -> String {
        guard !patterns.isEmpty else { return "TRUE" }
        let column = caseInsensitive ? "lower(path)" : "path"
        let conditions = patterns.map { text in
            var pattern = ""
            for character in caseInsensitive ? text.lowercased() : text {
                switch character {
                case "*": pattern += like ? "_%" : "?*"
                case "?": pattern += like ? "_" : "?"
                case "_": pattern += like ? "\\_" : "_"
                default: pattern.append(character)
                }
            }
            let slashes = text.utf8.filter { $0 == UInt8(ascii: "/") }.count
            // As many `/` as the pattern: no `*` takes one.
            return "(\(column) \(like ? "LIKE" : "GLOB") '\(pattern)' AND length(path) - length(replace(path, '/', '')) = \(slashes))"
        }
        return "NOT (" + conditions.joined(separator: " OR ") + ")"
    }
}

/// Thrown by a backend's `insertLink` when another link of the app holds the custom path (live, or revoked or expired
/// but not yet released: a new link's insert releases those first, in its transaction).
public struct CustomPathTaken: Error, Sendable, Equatable, CustomStringConvertible {
    /// The link holding the path.
    public let linkID: String
    /// The path as the holder wrote it.
    public let path: String

    /// - Parameters: see the properties.
    public init(linkID: String, path: String) {
        self.linkID = linkID
        self.path = path
    }

    /// What the error says.
    public var description: String { "path \(path) is held by link \(linkID)" }
}

/// The `path` column and its index, written once for both databases. The index is unique on `(app, lower(path))`:
/// one holder per app and path whatever its case; links without a path (NULL) are many. A link taking a path that a
/// revoked or expired link holds first sets that link's path NULL, in its own insert's transaction.
enum CustomPathSchema {
    static let sqlite = [
        "ALTER TABLE links ADD COLUMN path TEXT",
        "CREATE UNIQUE INDEX links_app_path ON links (app, lower(path))",
    ]
    static let postgres = [
        "ALTER TABLE links ADD COLUMN path text",
        "CREATE UNIQUE INDEX links_app_path ON links (app, lower(path))",
    ]
}

/// The index behind `liveCustomPaths` (the well-known files' paths and the cap on them): over links with a path only,
/// holding every column the query reads, so that an app with 100,000 paths of its `share.pathPatterns` — which the
/// query leaves out one by one (`CustomPathShapes`) — is read from the index alone, not from 100,000 rows.
enum CustomPathListingSchema {
    static let statements = [
        "CREATE INDEX links_app_custom_paths ON links (app, path, status, expires, created, id) WHERE path IS NOT NULL",
    ]
}

/// What PostgreSQL's insert of a link did, decided inside its transaction (an error thrown there would reach the caller
/// wrapped as a storage failure).
enum InsertedLink: Sendable, Equatable {
    /// The link is stored.
    case inserted
    /// The id or the short id exists.
    case conflict
    /// Another link holds the custom path.
    case pathTaken(CustomPathTaken)
}
