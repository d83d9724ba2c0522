/// The params a route declares, wherever they come from: its path patterns, its query and its `params`.
extension AppManifest.Route {
    /// One declared param: its type, and whether a share link to the route must carry it.
    public struct DeclaredParam: Sendable, Equatable {
        /// The value type.
        public var type: ParamType
        /// Whether a share link to the route must carry it: a `params` entry, a required query param, or a path
        /// param that every pattern of the route has and none makes optional.
        public var required: Bool
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
                    declared[name] = DeclaredParam(type: type, required: false)
                    if !optional { here.insert(name) }
                case .wildcard(let name):
                    declared[name] = DeclaredParam(type: .string, required: false)
                    if !optional { here.insert(name) }
                case .literal:
                    break
                }
            }
            inEveryPattern = inEveryPattern.map { $0.intersection(here) } ?? here
        }
        for name in inEveryPattern ?? [] { declared[name]?.required = true }
        for (name, spec) in query { declared[name] = DeclaredParam(type: spec.type, required: spec.required) }
        return declared
    }

    /// Every param a share link to the route may carry: its URL's and its `params`.
    public var declaredParams: [String: DeclaredParam] {
        var declared = declaredURLParams
        for (name, type) in params { declared[name] = DeclaredParam(type: type, required: true) }
        return declared
    }
}
