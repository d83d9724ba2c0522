/// A problem the parser recovered from, with the line it was found on.
///
/// Recovery rules (documented in docs/ics.md): a line that cannot be read is skipped; an END with no open component
/// is ignored; an END naming a component further out closes the ones in between; an END naming nothing open is
/// ignored; components still open at the end are closed; bad UTF-8 is replaced with U+FFFD.
public struct ICalendarDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// A machine-readable kind of problem.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case missingColon, invalidName, invalidParameter, unterminatedQuote, invalidUTF8, foldWithoutLine,
                propertyOutsideComponent, endWithoutBegin, wrongEnd, missingEnd, invalidBegin
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A content line with no `:` outside quotes; the line is skipped.
        public static let missingColon = Code(.missingColon)
        /// A content line whose name is empty or has characters other than letters, digits and `-`; skipped.
        public static let invalidName = Code(.invalidName)
        /// A parameter with no `=`, an empty name, or a stray character; the line is skipped.
        public static let invalidParameter = Code(.invalidParameter)
        /// A quoted parameter value without its closing quote; the line is skipped.
        public static let unterminatedQuote = Code(.unterminatedQuote)
        /// Bytes that are not UTF-8; they are replaced with U+FFFD and the line is kept.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// A folded (space- or TAB-led) line with no line before it to continue; skipped.
        public static let foldWithoutLine = Code(.foldWithoutLine)
        /// A property outside any component; dropped.
        public static let propertyOutsideComponent = Code(.propertyOutsideComponent)
        /// An END while no component is open; ignored.
        public static let endWithoutBegin = Code(.endWithoutBegin)
        /// An END whose name is not the innermost open component.
        public static let wrongEnd = Code(.wrongEnd)
        /// A component never closed (reported at its BEGIN line); it is closed where the parser had to.
        public static let missingEnd = Code(.missingEnd)
        /// A BEGIN with an empty or invalid component name; ignored.
        public static let invalidBegin = Code(.invalidBegin)

        /// The code as a stable string, e.g. `missingColon`.
        public var description: String { value.rawValue }
    }

    /// The 1-based physical line number where the problem is.
    public let line: Int
    /// The kind of problem.
    public let code: Code
    /// What is wrong and what the parser did about it.
    public let message: String

    /// Creates a diagnostic.
    public init(line: Int, code: Code, message: String) {
        self.line = line
        self.code = code
        self.message = message
    }

    /// `line N: message (code)`.
    public var description: String { "line \(line): \(message) (\(code))" }
}
