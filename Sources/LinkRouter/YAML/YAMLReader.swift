internal import Yams

/// Reads a manifest's composed YAML node tree, recording every problem with its mark instead of stopping at the
/// first; scalars are read as `YAMLValue` reads them (the typed reading the configuration file shares).
final class YAMLReader {
    let file: String
    private(set) var errors: [ManifestError] = []

    init(file: String) { self.file = file }

    func mark(_ node: Node?) -> SourceMark {
        guard let mark = node?.mark else { return SourceMark(file: file, line: 1, column: 1) }
        return SourceMark(file: file, line: mark.line, column: mark.column)
    }

    func fail(_ code: ManifestError.Code, _ node: Node?, _ message: String, hint: String) {
        errors.append(ManifestError(code, at: mark(node), message, hint: hint))
    }

    func fail(_ code: ManifestError.Code, at mark: SourceMark, _ message: String, hint: String) {
        errors.append(ManifestError(code, at: mark, message, hint: hint))
    }

    /// The key → value pairs of a mapping, checking keys against `allowed` (typo hint) and `required`.
    func mapping(_ node: Node?, context: String, allowed: [String], required: [String] = []) -> [String: Node] {
        guard let node else { return [:] }
        guard case .mapping(let mapping) = node else {
            fail(.wrongType, node, "\(context) must be a mapping", hint: "write it as 'key: value' lines")
            return [:]
        }
        var result: [String: Node] = [:]
        for (keyNode, value) in mapping {
            guard let key = keyNode.scalar?.string else {
                fail(.wrongType, keyNode, "a key in \(context) is not a plain string", hint: "use a plain key")
                continue
            }
            guard allowed.contains(key) else {
                let suggestion = Self.closest(key, in: allowed).map { "did you mean '\($0)'?" }
                    ?? "allowed keys: \(allowed.joined(separator: ", "))"
                fail(.unknownKey, keyNode, "unknown key '\(key)' in \(context)", hint: suggestion)
                continue
            }
            if result[key] != nil {
                fail(.duplicateID, keyNode, "key '\(key)' appears twice in \(context)", hint: "keep one")
            }
            result[key] = value
        }
        for key in required where result[key] == nil {
            fail(.missingKey, node, "\(context) has no '\(key)'", hint: "add '\(key):'")
        }
        return result
    }

    /// Key → value pairs of a free-form mapping (keys are data, e.g. state names).
    func pairs(_ node: Node?, context: String) -> [(key: String, keyNode: Node, value: Node)] {
        guard let node else { return [] }
        guard case .mapping(let mapping) = node else {
            fail(.wrongType, node, "\(context) must be a mapping", hint: "write it as 'key: value' lines")
            return []
        }
        var result: [(String, Node, Node)] = []
        for (keyNode, value) in mapping {
            guard let key = keyNode.scalar?.string else {
                fail(.wrongType, keyNode, "a key in \(context) is not a plain string", hint: "use a plain key")
                continue
            }
            result.append((key, keyNode, value))
        }
        return result
    }

    /// A non-empty scalar (`YAMLValue.string()`), else a recorded `wrongType`.
    func string(_ node: Node?, context: String) -> String? {
        guard let node else { return nil }
        guard let text = try? YAMLValue(node).string(), !text.isEmpty else {
            fail(.wrongType, node, "\(context) must be a non-empty string", hint: "write a plain value")
            return nil
        }
        return text
    }

    /// `YAMLValue.bool()`, else a recorded `wrongType`.
    func bool(_ node: Node?, context: String) -> Bool? {
        guard let node else { return nil }
        guard let value = try? YAMLValue(node).bool() else {
            fail(.wrongType, node, "\(context) must be true or false", hint: "write true or false")
            return nil
        }
        return value
    }

    /// `YAMLValue.int()`, else a recorded `wrongType`.
    func int(_ node: Node?, context: String) -> Int? {
        guard let node else { return nil }
        guard let value = try? YAMLValue(node).int() else {
            fail(.wrongType, node, "\(context) must be an integer", hint: "write digits")
            return nil
        }
        return value
    }

    /// A sequence of nodes; a single scalar counts as a one-element list.
    func list(_ node: Node?, context: String) -> [Node] {
        guard let node else { return [] }
        switch node {
        case .sequence(let sequence): return Array(sequence)
        case .scalar: return [node]
        default:
            fail(.wrongType, node, "\(context) must be a list", hint: "write '[a, b]' or '- a' lines")
            return []
        }
    }

    func strings(_ node: Node?, context: String) -> [(String, Node)] {
        list(node, context: context).compactMap { item in string(item, context: "an item of \(context)").map { ($0, item) } }
    }

    /// The allowed word nearest to `word` (edit distance ≤ 2, or a case-insensitive match).
    static func closest(_ word: String, in candidates: [String]) -> String? {
        var best: (String, Int)?
        for candidate in candidates {
            if candidate.lowercased() == word.lowercased() { return candidate }
            let distance = editDistance(Array(word.lowercased()), Array(candidate.lowercased()))
            if distance <= 2, distance < (best?.1 ?? .max) { best = (candidate, distance) }
        }
        return best?.0
    }

    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
