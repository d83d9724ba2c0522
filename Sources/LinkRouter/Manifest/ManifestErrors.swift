/// One problem in a manifest: where, what is wrong, what to change.
public struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Machine code of a manifest problem.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String { case syntax, tooLarge, missingKey, unknownKey, wrongType, unknownRoute,
            unknownState, unknownTab, duplicateID, parentCycle, ambiguousPatterns, badPattern, badValue, io }
        private let value: Value
        /// Text form.
        public var description: String { value.rawValue }
        /// The YAML does not parse.
        public static let syntax = Code(value: .syntax)
        /// The file is over `ManifestLoader.maxBytes`.
        public static let tooLarge = Code(value: .tooLarge)
        /// A required key is missing.
        public static let missingKey = Code(value: .missingKey)
        /// A key that is not part of the format.
        public static let unknownKey = Code(value: .unknownKey)
        /// A value of the wrong YAML kind.
        public static let wrongType = Code(value: .wrongType)
        /// A route id that no route declares.
        public static let unknownRoute = Code(value: .unknownRoute)
        /// A state that `states` does not declare.
        public static let unknownState = Code(value: .unknownState)
        /// A tab id that `tabs` does not declare.
        public static let unknownTab = Code(value: .unknownTab)
        /// Two things with one id.
        public static let duplicateID = Code(value: .duplicateID)
        /// Parents that loop.
        public static let parentCycle = Code(value: .parentCycle)
        /// Two patterns that can match the same URL.
        public static let ambiguousPatterns = Code(value: .ambiguousPatterns)
        /// A pattern that does not parse.
        public static let badPattern = Code(value: .badPattern)
        /// A value out of its allowed set.
        public static let badValue = Code(value: .badValue)
        /// The file could not be read.
        public static let io = Code(value: .io)
    }

    /// Code.
    public var code: Code
    /// Where.
    public var mark: SourceMark
    /// What is wrong.
    public var message: String
    /// What to change.
    public var hint: String

    /// Creates a problem.
    public init(_ code: Code, at mark: SourceMark, _ message: String, hint: String) {
        self.code = code
        self.mark = mark
        self.message = message
        self.hint = hint
    }

    /// `file:line:column: error: message — hint`.
    public var description: String {
        "\(mark.file):\(mark.line):\(mark.column): error: \(message) — \(hint)"
    }
}

/// Every problem found in one load, in file order.
public struct ManifestErrors: Error, Sendable, CustomStringConvertible {
    /// The problems.
    public var errors: [ManifestError]
    /// Creates the list.
    public init(_ errors: [ManifestError]) { self.errors = errors }
    /// One problem per line.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
