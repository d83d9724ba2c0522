/// One compiled URL path pattern: `/f/:flowId(uuid)`, `/folders/:id(int)?`, `/docs/*rest`.
///
/// Segments: a literal, `:name` (string) or `:name(type)`, and a trailing `*name` wildcard that takes one or more
/// remaining segments. A `?` after a segment makes it optional (the pattern is expanded into its variants).
public struct PathPattern: Sendable, Equatable {
    /// One segment of a pattern.
    public enum Segment: Sendable, Equatable {
        /// A literal segment.
        case literal(String)
        /// A typed param.
        case param(name: String, type: ParamType)
        /// The wildcard tail.
        case wildcard(name: String)
    }

    /// The text as written in the manifest.
    public var text: String
    /// Segments with their optional flag.
    public var segments: [(segment: Segment, optional: Bool)]

    /// Problems found while parsing a pattern.
    public struct ParseProblem: Error, Sendable, Equatable {
        /// What is wrong.
        public var message: String
        /// What to change.
        public var hint: String
    }

    /// At most this many optional segments per pattern (each doubles the variants).
    public static let maxOptionalSegments = 4

    /// Parses a pattern.
    public init(parsing text: String) throws(ParseProblem) {
        self.text = text
        self.segments = []
        guard text.hasPrefix("/") else {
            throw ParseProblem(message: "pattern '\(text)' does not start with '/'", hint: "write it as '/\(text)'")
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: true)
        for (index, rawPart) in parts.enumerated() {
            var part = rawPart
            var optional = false
            if part.hasSuffix("?") {
                optional = true
                part = part.dropLast()
            }
            if part.hasPrefix("*") {
                let name = String(part.dropFirst())
                guard index == parts.count - 1 else {
                    throw ParseProblem(message: "wildcard '*\(name)' is not the last segment of '\(text)'",
                                       hint: "put the wildcard at the end of the pattern")
                }
                guard Self.isName(name) else {
                    throw ParseProblem(message: "wildcard in '\(text)' has no valid name", hint: "write '*rest'")
                }
                segments.append((.wildcard(name: name), optional))
            } else if part.hasPrefix(":") {
                var body = part.dropFirst()
                var type = ParamType.string
                if let open = body.firstIndex(of: "(") {
                    guard body.hasSuffix(")") else {
                        throw ParseProblem(message: "param '\(part)' in '\(text)' has an unclosed '('",
                                           hint: "write ':name(type)'")
                    }
                    let typeName = String(body[body.index(after: open)..<body.index(before: body.endIndex)])
                    guard let parsed = ParamType(rawValue: typeName) else {
                        let known = ParamType.allCases.map(\.rawValue).joined(separator: ", ")
                        throw ParseProblem(message: "unknown param type '\(typeName)' in '\(text)'",
                                           hint: "use one of: \(known)")
                    }
                    type = parsed
                    body = body[..<open]
                }
                guard Self.isName(body) else {
                    throw ParseProblem(message: "param '\(part)' in '\(text)' has no valid name",
                                       hint: "names are letters, digits and '_', e.g. ':flowId'")
                }
                segments.append((.param(name: String(body), type: type), optional))
            } else {
                guard !part.isEmpty, !part.contains(where: { $0 == ":" || $0 == "*" || $0 == "(" || $0 == ")" }) else {
                    throw ParseProblem(message: "segment '\(rawPart)' of '\(text)' is not a literal, ':param' or '*wildcard'",
                                       hint: "check the pattern syntax in docs/manifest.md")
                }
                segments.append((.literal(String(part)), optional))
            }
        }
        var names = Set<String>()
        for (segment, _) in segments {
            switch segment {
            case .param(let name, _), .wildcard(let name):
                guard names.insert(name).inserted else {
                    throw ParseProblem(message: "param '\(name)' appears twice in '\(text)'",
                                       hint: "give each param its own name")
                }
            case .literal:
                break
            }
        }
        guard segments.filter(\.optional).count <= Self.maxOptionalSegments else {
            throw ParseProblem(message: "'\(text)' has more than \(Self.maxOptionalSegments) optional segments",
                               hint: "split it into several patterns")
        }
    }

    /// The variants without optional segments (all combinations of present/absent).
    public var expanded: [[Segment]] {
        var variants: [[Segment]] = [[]]
        for (segment, optional) in segments {
            if optional {
                variants = variants + variants.map { $0 + [segment] }
            } else {
                variants = variants.map { $0 + [segment] }
            }
        }
        return variants
    }

    /// Names of all params (path params and wildcard) in order.
    public var paramNames: [String] {
        segments.compactMap {
            switch $0.segment {
            case .param(let name, _), .wildcard(let name): name
            case .literal: nil
            }
        }
    }

    public static func == (lhs: PathPattern, rhs: PathPattern) -> Bool { lhs.text == rhs.text }

    private static func isName(_ text: Substring) -> Bool { isName(String(text)) }
    private static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return text.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" }
    }
}
