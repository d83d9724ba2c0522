/// The compiled matcher of one manifest: a trie keyed by path segment.
///
/// Lookup walks one node per URL segment (a dictionary lookup for literals, then the few typed-param edges,
/// then the wildcard), so its cost grows with the URL's length, not with the number of routes.
/// Most specific wins at each segment: literal, then typed param, then wildcard (with backtracking).
/// A segment of an http(s) URL not written canonically (`IncomingURL.Spelling`) skips the literals and the `uuid`
/// params, as the apple-app-site-association's patterns would (docs/matching.md). A dot segment (`.`, `..`) is
/// never captured by a param or a wildcard.
struct RouteTrie: Sendable {
    /// What a pattern leads to (a class: a match hands out one reference, not four copied fields).
    final class Terminal: Sendable {
        let route: String
        let paramNames: [String]
        let pattern: String
        let mark: SourceMark

        init(route: String, paramNames: [String], pattern: String, mark: SourceMark) {
            self.route = route
            self.paramNames = paramNames
            self.pattern = pattern
            self.mark = mark
        }
    }

    struct Node: Sendable {
        var literals: [String: Int] = [:]
        var params: [(type: ParamType, child: Int)] = []
        var wildcard: Terminal?
        var terminal: Terminal?
    }

    /// A collision found while building.
    struct Collision: Error, Sendable {
        var first: Terminal
        var second: Terminal
        var reason: String
    }

    private(set) var nodes: [Node] = [Node()]
    let caseInsensitive: Bool

    init(caseInsensitive: Bool) {
        self.caseInsensitive = caseInsensitive
    }

    /// Adds one expanded pattern variant. Throws when it collides with one already added.
    mutating func insert(_ segments: [PathPattern.Segment], terminal: Terminal) throws(Collision) {
        var current = 0
        for segment in segments {
            switch segment {
            case .literal(let text):
                let key = caseInsensitive ? Self.asciiLowercased(text) : text
                if let next = nodes[current].literals[key] {
                    current = next
                } else {
                    nodes.append(Node())
                    nodes[current].literals[key] = nodes.count - 1
                    current = nodes.count - 1
                }
            case .param(_, let type):
                if let edge = nodes[current].params.first(where: { $0.type == type }) {
                    current = edge.child
                } else {
                    nodes.append(Node())
                    nodes[current].params.append((type, nodes.count - 1))
                    current = nodes.count - 1
                }
            case .wildcard:
                if let existing = nodes[current].wildcard {
                    if existing.route == terminal.route && existing.pattern == terminal.pattern { return }
                    throw Collision(first: existing, second: terminal, reason: "both end in a wildcard at the same place")
                }
                nodes[current].wildcard = terminal
                return
            }
        }
        if let existing = nodes[current].terminal {
            if existing.route == terminal.route && existing.pattern == terminal.pattern { return }
            throw Collision(first: existing, second: terminal, reason: "they match exactly the same paths")
        }
        nodes[current].terminal = terminal
    }

    /// Finds pairs of patterns that can match one URL with neither more specific: typed-param edges of the same
    /// node whose types overlap and whose subtrees share a path.
    func ambiguities() -> [Collision] {
        var found: [Collision] = []
        for node in nodes where node.params.count > 1 {
            for i in 0..<node.params.count {
                for j in (i + 1)..<node.params.count where node.params[i].type.overlaps(node.params[j].type) {
                    if let (a, b) = witness(node.params[i].child, node.params[j].child, depth: 0) {
                        found.append(Collision(first: a, second: b, reason:
                            "params of types \(node.params[i].type.rawValue) and \(node.params[j].type.rawValue) overlap at the same segment"))
                    }
                }
            }
        }
        return found
    }

    /// Two terminals reachable by the same remaining segments from `a` and `b`, if any.
    private func witness(_ a: Int, _ b: Int, depth: Int) -> (Terminal, Terminal)? {
        guard depth < 64 else { return nil }
        let na = nodes[a], nb = nodes[b]
        if let ta = na.terminal, let tb = nb.terminal { return (ta, tb) }
        if let wa = na.wildcard, let tb = anyTerminal(below: b) { return (wa, tb) }
        if let wb = nb.wildcard, let ta = anyTerminal(below: a) { return (ta, wb) }
        for (key, ca) in na.literals {
            if let cb = nb.literals[key], let w = witness(ca, cb, depth: depth + 1) { return w }
            for edge in nb.params where edge.type.accepts(Substring(key)) {
                if let w = witness(ca, edge.child, depth: depth + 1) { return w }
            }
        }
        for edgeA in na.params {
            for (key, cb) in nb.literals where edgeA.type.accepts(Substring(key)) {
                if let w = witness(edgeA.child, cb, depth: depth + 1) { return w }
            }
            for edgeB in nb.params where edgeA.type.overlaps(edgeB.type) {
                if let w = witness(edgeA.child, edgeB.child, depth: depth + 1) { return w }
            }
        }
        return nil
    }

    /// Any terminal reachable from `index` by one or more segments.
    private func anyTerminal(below index: Int) -> Terminal? {
        var pending = Array(nodes[index].literals.values) + nodes[index].params.map(\.child)
        if let wildcard = nodes[index].wildcard { return wildcard }
        while let next = pending.popLast() {
            if let terminal = nodes[next].terminal ?? nodes[next].wildcard { return terminal }
            pending += Array(nodes[next].literals.values) + nodes[next].params.map(\.child)
        }
        return nil
    }

    /// The trie flattened for lookups (built by `freeze` once every pattern is in): plain nodes with no
    /// reference-counted fields, the param edges in one array, the literal edges in one dictionary.
    final class Lookup: Sendable {
        struct FlatNode {
            var paramStart: Int32
            var paramCount: Int32
            var terminal: Int32
            var wildcard: Int32
        }
        struct Edge {
            var type: ParamType
            var child: Int32
        }
        struct LiteralKey: Hashable {
            var node: Int32
            var text: String
        }

        let nodes: [FlatNode]
        let edges: [Edge]
        let literals: [LiteralKey: Int32]
        let terminals: [Terminal]

        init(_ source: [Node]) {
            var nodes: [FlatNode] = []
            var edges: [Edge] = []
            var literals: [LiteralKey: Int32] = [:]
            var terminals: [Terminal] = []
            func add(_ terminal: Terminal?) -> Int32 {
                guard let terminal else { return -1 }
                terminals.append(terminal)
                return Int32(terminals.count - 1)
            }
            for (index, node) in source.enumerated() {
                nodes.append(FlatNode(paramStart: Int32(edges.count), paramCount: Int32(node.params.count),
                                      terminal: add(node.terminal), wildcard: add(node.wildcard)))
                edges += node.params.map { Edge(type: $0.type, child: Int32($0.child)) }
                for (text, child) in node.literals { literals[LiteralKey(node: Int32(index), text: text)] = Int32(child) }
            }
            self.nodes = nodes
            self.edges = edges
            self.literals = literals
            self.terminals = terminals
        }
    }

    private(set) var lookup: Lookup?

    /// Builds the lookup form; call after the last `insert`.
    mutating func freeze() {
        lookup = Lookup(nodes)
    }

    /// Matches decoded path segments; returns the terminal and the captured values in order. `spellings` (nil: all
    /// canonical) says how each segment was written: one not canonical matches no literal and no `uuid` param (one
    /// canonical but for the case of its hex digits does, when the trie is case-insensitive).
    func match(_ segments: [String], spellings: [IncomingURL.Spelling]? = nil) -> (Terminal, [String])? {
        let lookup = self.lookup ?? Lookup(nodes)
        var captures: [String] = []
        return lookup.nodes.withUnsafeBufferPointer { nodes in
            lookup.edges.withUnsafeBufferPointer { edges in
                guard let (terminal, values) = Self.match(
                    lookup, nodes, edges, segments, spellings, at: 0, node: 0, caseInsensitive: caseInsensitive, captures: &captures)
                else { return nil }
                return (lookup.terminals[Int(terminal)], values)
            }
        }
    }

    private static func match(
        _ lookup: Lookup, _ nodes: UnsafeBufferPointer<Lookup.FlatNode>, _ edges: UnsafeBufferPointer<Lookup.Edge>,
        _ segments: [String], _ spellings: [IncomingURL.Spelling]?, at position: Int, node index: Int, caseInsensitive: Bool,
        captures: inout [String]
    ) -> (Int32, [String])? {
        let node = nodes[index]
        if position == segments.count {
            return node.terminal >= 0 ? (node.terminal, captures) : nil
        }
        let segment = segments[position]
        let canonical = switch spellings?[position] {
        case nil, .canonical?: true
        case .hexCase?: caseInsensitive
        case .other?: false
        }
        if canonical,
           let next = lookup.literals[Lookup.LiteralKey(node: Int32(index), text: caseInsensitive ? asciiLowercased(segment) : segment)],
           let found = match(lookup, nodes, edges, segments, spellings, at: position + 1, node: Int(next),
                             caseInsensitive: caseInsensitive, captures: &captures) {
            return found
        }
        // A dot segment (`.`, `..`, or `%2E%2E` decoded) is never a param's value: a path built from it would move.
        let dot = DotSegment.matches(segment)
        var edgeIndex = Int(node.paramStart)
        let edgeEnd = dot ? edgeIndex : edgeIndex + Int(node.paramCount)
        while edgeIndex < edgeEnd {
            let edge = edges[edgeIndex]
            edgeIndex += 1
            guard canonical || edge.type != .uuid, edge.type.accepts(Substring(segment)) else { continue }
            captures.append(segment)
            if let found = match(lookup, nodes, edges, segments, spellings, at: position + 1, node: Int(edge.child),
                                 caseInsensitive: caseInsensitive, captures: &captures) { return found }
            captures.removeLast()
        }
        if node.wildcard >= 0, !dot, !segments[(position + 1)...].contains(where: { DotSegment.matches($0) }) {
            captures.append(segments[position...].joined(separator: "/"))
            return (node.wildcard, captures)
        }
        return nil
    }

    /// `text` with ASCII letters lowercased and every other character kept: the fold of `caseInsensitivePaths`, the
    /// one Apple's `caseSensitive: false` makes on a percent-encoded path. Returns `text` itself when it has no
    /// capital.
    static func asciiLowercased(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) else { return text }
        return String(decoding: text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
