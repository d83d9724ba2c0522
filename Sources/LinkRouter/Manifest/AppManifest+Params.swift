/// The params a route declares, wherever they come from: its path patterns, its query and its `params`.
extension AppManifest.Route {
    /// One declared param: its type, and whether a share link to the route must carry it.
    public struct DeclaredParam: Sendable, Equatable {
        /// The value type.
        public var type: ParamType
        /// Whether a share link to the route must carry it: a `params` entry, a required query param, or a path
        /// param that every pattern of the route has and none makes optional.
        public var required: Bool
        /// Whether some pattern of the route puts it in one path segment (`:name`).
        public var fillsSegment = false
        /// Whether some pattern of the route ends in it as a wildcard tail (`*name`: one or more segments).
        public var fillsTail = false

        /// Why `value` cannot be this param's value in a share link ("is empty", …), nil when it can. Beyond the
        /// type: never empty, `.` or `..` (a dot segment moves a path built from it — the origin's preview path — to
        /// another resource); no `/` in a value that fills one path segment; no empty, `.` or `..` segment in a
        /// wildcard tail.
        public func refusal(of value: String) -> String? {
            if value.isEmpty { return "is empty" }
            if DotSegment.matches(value) { return "is '\(value)', a dot segment" }
            if fillsSegment, value.contains("/") { return "fills one path segment and must not contain '/'" }
            if fillsTail, value.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || DotSegment.matches($0) }) {
                return "must not have an empty, '.' or '..' segment"
            }
            guard type.accepts(Substring(value)) else { return "is not a valid \(type.rawValue)" }
            return nil
        }
    }

    /// The params its patterns and query declare (the ones a URL carries).
    public var declaredURLParams: [String: DeclaredParam] {
        var declared: [String: DeclaredParam] = [:]
        var inEveryPattern: Set<String>?
        for text in patterns {
            guard let pattern = try? PathPattern(parsing: text) else { continue }
            var here = Set<String>()
            for (segment, optional) in pattern.segments {
                switch segment {
                case .param(let name, let type):
                    declared[name, default: DeclaredParam(type: type, required: false)].type = type
                    declared[name]?.fillsSegment = true
                    if !optional { here.insert(name) }
                case .wildcard(let name):
                    declared[name, default: DeclaredParam(type: .string, required: false)].type = .string
                    declared[name]?.fillsTail = true
                    if !optional { here.insert(name) }
                case .literal:
                    break
                }
            }
            inEveryPattern = inEveryPattern.map { $0.intersection(here) } ?? here
        }
        for name in inEveryPattern ?? [] { declared[name]?.required = true }
        for (name, spec) in query {
            declared[name, default: DeclaredParam(type: spec.type, required: spec.required)].type = spec.type
            declared[name]?.required = spec.required
        }
        return declared
    }

    /// Every param a share link to the route may carry: its URL's and its `params`.
    public var declaredParams: [String: DeclaredParam] {
        var declared = declaredURLParams
        for (name, type) in params {
            declared[name, default: DeclaredParam(type: type, required: true)].type = type
            declared[name]?.required = true
        }
        return declared
    }
}

/// `.` and `..`: path segments that name the segment itself or its parent (RFC 3986 §5.2.4), never a value.
public enum DotSegment {
    /// Whether `text` is `.` or `..`.
    public static func matches(_ text: some StringProtocol) -> Bool {
        let bytes = text.utf8
        guard bytes.count <= 2 else { return false }
        return bytes.allSatisfy { $0 == UInt8(ascii: ".") } && !bytes.isEmpty
    }
}
