/// Why a calendar was refused as a whole: a hard cap of ``ICalendarLimits`` was hit.
///
/// Recoverable problems do not throw; they become ``ICalendarDiagnostic``s on the document.
public struct ICalendarError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A machine-readable reason.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case inputTooLarge, lineTooLong, tooManyProperties, tooManyParameters, tooManyComponents, nestingTooDeep,
                tooManyDiagnostics
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The input is larger than `maxBytes`.
        public static let inputTooLarge = Code(.inputTooLarge)
        /// A logical line is longer than `maxLineLength`.
        public static let lineTooLong = Code(.lineTooLong)
        /// `maxPropertiesPerComponent` or `maxProperties` was exceeded.
        public static let tooManyProperties = Code(.tooManyProperties)
        /// `maxParametersPerProperty` or `maxParameters` was exceeded.
        public static let tooManyParameters = Code(.tooManyParameters)
        /// `maxComponents` was exceeded.
        public static let tooManyComponents = Code(.tooManyComponents)
        /// `maxDepth` was exceeded.
        public static let nestingTooDeep = Code(.nestingTooDeep)
        /// `maxDiagnostics` was exceeded: the input is too broken to be worth reading on.
        public static let tooManyDiagnostics = Code(.tooManyDiagnostics)

        /// The code as a stable string, e.g. `inputTooLarge`.
        public var description: String { value.rawValue }
    }

    /// The reason.
    public let code: Code
    /// A human-readable message naming the cap.
    public let message: String
    /// The 1-based line where the cap was hit, when there is one.
    public let line: Int?

    /// Creates an error.
    public init(code: Code, message: String, line: Int? = nil) {
        self.code = code
        self.message = message
        self.line = line
    }

    /// `line N: message (code)` or `message (code)`.
    public var description: String {
        if let line { return "line \(line): \(message) (\(code))" }
        return "\(message) (\(code))"
    }
}
