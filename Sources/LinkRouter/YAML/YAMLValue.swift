internal import Yams

/// One value of a YAML document, read as the type its reader wants: the one typed YAML reading that manifests
/// (`YAMLReader`) and the daemon's configuration file share. YAML's own scalar typing is not used (Yams resolves
/// it with `NSRegularExpression`, which loads ICU: megabytes of resident memory for a few scalars), so `8080` and
/// `"8080"` read alike as an integer, and `true` as a boolean wherever a boolean is wanted.
public struct YAMLValue {
    /// The value is not of the wanted type; `expected` says what would be ("an integer").
    public struct TypeMismatch: Error, Sendable {
        /// What the value should have been.
        public let expected: String
    }

    /// The text is not YAML; `description` is the parser's own message, with its line.
    public struct SyntaxError: Error, Sendable, CustomStringConvertible {
        /// The parser's message.
        public let description: String
    }

    let node: Node

    init(_ node: Node) { self.node = node }

    /// The document in `text`, composed without YAML's scalar typing; nil for an empty document (comments only).
    /// Aliases (`*name`) are refused (`YAMLAliases`).
    public static func document(_ text: String) throws(SyntaxError) -> YAMLValue? {
        if let (line, column) = YAMLAliases.firstAlias(in: text) {
            throw SyntaxError(description: "line \(line), column \(column): YAML aliases (*name) are not supported")
        }
        do { return try Yams.compose(yaml: text, .basic).map(YAMLValue.init) } catch { throw SyntaxError(description: "\(error)") }
    }

    /// The 1-based line the value starts on.
    public var line: Int { node.mark?.line ?? 1 }

    /// A plain `null` or `~` (or nothing at all).
    public var isNull: Bool {
        guard case .scalar(let scalar) = node, scalar.style == .plain else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// A mapping's entries in document order (keys as plain text); nil when the value is not a mapping.
    public func entries() -> [(key: String, line: Int, value: YAMLValue)]? {
        guard case .mapping(let mapping) = node else { return nil }
        return mapping.map { (key: $0.key.scalar?.string ?? "", line: $0.key.mark?.line ?? 1, value: YAMLValue($0.value)) }
    }

    /// A sequence's items in document order; nil when the value is not a sequence.
    public func items() -> [YAMLValue]? {
        guard case .sequence(let sequence) = node else { return nil }
        return sequence.map(YAMLValue.init)
    }

    /// Any scalar, as written (empty allowed).
    public func string() throws(TypeMismatch) -> String {
        guard case .scalar(let scalar) = node else { throw TypeMismatch(expected: "a string") }
        return scalar.string
    }

    /// A scalar that is a decimal integer.
    public func int() throws(TypeMismatch) -> Int {
        guard case .scalar(let scalar) = node, let value = Int(scalar.string) else { throw TypeMismatch(expected: "an integer") }
        return value
    }

    /// A scalar that is a finite number.
    public func double() throws(TypeMismatch) -> Double {
        guard case .scalar(let scalar) = node, let value = Double(scalar.string), value.isFinite else {
            throw TypeMismatch(expected: "a number")
        }
        return value
    }

    /// `true` or `false` (also `True`, `TRUE`, `False`, `FALSE`, as YAML's core schema writes them).
    public func bool() throws(TypeMismatch) -> Bool {
        guard case .scalar(let scalar) = node else { throw TypeMismatch(expected: "true or false") }
        switch scalar.string {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: throw TypeMismatch(expected: "true or false")
        }
    }

    /// A sequence of scalars.
    public func strings() throws(TypeMismatch) -> [String] {
        guard case .sequence(let sequence) = node else { throw TypeMismatch(expected: "a list of strings") }
        return try sequence.map { item throws(TypeMismatch) in
            guard case .scalar(let scalar) = item else { throw TypeMismatch(expected: "a list of strings") }
            return scalar.string
        }
    }

    /// A mapping of scalars to scalars.
    public func stringMapping() throws(TypeMismatch) -> [String: String] {
        guard case .mapping(let mapping) = node else { throw TypeMismatch(expected: "a mapping of strings") }
        var result: [String: String] = [:]
        for (key, value) in mapping {
            guard case .scalar(let name) = key, case .scalar(let text) = value else {
                throw TypeMismatch(expected: "a mapping of strings")
            }
            result[name.string] = text.string
        }
        return result
    }
}
