/// The compiled matchers of one manifest: the route trie and the share-path trie.
struct RouteMatcher: Sendable {
    struct Collisions: Error { var list: [RouteTrie.Collision] }

    let routes: RouteTrie
    let share: RouteTrie?

    /// Compiles every pattern; fails with every collision and ambiguity.
    static func compile(_ manifest: AppManifest) -> Result<RouteMatcher, Collisions> {
        var trie = RouteTrie(caseInsensitive: manifest.caseInsensitivePaths)
        var collisions: [RouteTrie.Collision] = []
        for id in manifest.routeOrder {
            guard let route = manifest.routes[id] else { continue }
            for (index, text) in route.patterns.enumerated() {
                guard let pattern = try? PathPattern(parsing: text) else { continue }
                let mark = index < route.patternMarks.count ? route.patternMarks[index] : route.mark
                for variant in pattern.expanded {
                    let names = variant.compactMap { segment -> String? in
                        switch segment {
                        case .param(let name, _), .wildcard(let name): name
                        case .literal: nil
                        }
                    }
                    do {
                        try trie.insert(variant, terminal: .init(route: id, paramNames: names, pattern: text, mark: mark))
                    } catch {
                        collisions.append(error)
                    }
                }
            }
        }
        collisions += trie.ambiguities()
        trie.freeze()
        var shareTrie: RouteTrie?
        if let share = manifest.share, let pattern = try? PathPattern(parsing: share.path) {
            var built = RouteTrie(caseInsensitive: manifest.caseInsensitivePaths)
            let mark = SourceMark(file: manifest.sourceFile, line: 1, column: 1)
            for variant in pattern.expanded {
                try? built.insert(variant, terminal: .init(route: share.route, paramNames: pattern.paramNames, pattern: share.path, mark: mark))
            }
            built.freeze()
            shareTrie = built
        }
        guard collisions.isEmpty else { return .failure(Collisions(list: collisions)) }
        return .success(RouteMatcher(routes: trie, share: shareTrie))
    }
}
