/// A parsed iCalendar stream: its top-level components (normally VCALENDARs; bare components are kept too) and
/// the problems the parser recovered from.
public struct ICalendarDocument: Sendable, Equatable {
    /// Top-level components in input order: VCALENDARs, or components that appeared without one.
    public var components: [ICalendarComponent]
    /// Recovered problems, in line order.
    public var diagnostics: [ICalendarDiagnostic]

    /// Creates a document.
    public init(components: [ICalendarComponent] = [], diagnostics: [ICalendarDiagnostic] = []) {
        self.components = components
        self.diagnostics = diagnostics
    }

    /// The top-level VCALENDAR components.
    public var calendars: [ICalendarComponent] { components.filter { $0.name == "VCALENDAR" } }
}

/// One component (`BEGIN:NAME` … `END:NAME`) with its properties and sub-components. Names are upper-case.
public struct ICalendarComponent: Sendable, Equatable {
    /// The component name, upper-cased (`VEVENT`, `X-FOO`, …).
    public var name: String
    /// Properties in input order.
    public var properties: [ICalendarProperty]
    /// Sub-components in input order.
    public var components: [ICalendarComponent]
    /// The line of its BEGIN.
    public var line: Int

    /// Creates a component.
    public init(
        name: String, properties: [ICalendarProperty] = [], components: [ICalendarComponent] = [], line: Int = 0
    ) {
        self.name = name
        self.properties = properties
        self.components = components
        self.line = line
    }

    /// The first property with this name (case-insensitive), if any.
    public func property(_ name: String) -> ICalendarProperty? {
        let wanted = name.uppercased()
        return properties.first { $0.name == wanted }
    }

    /// Every property with this name (case-insensitive), in order.
    public func properties(named name: String) -> [ICalendarProperty] {
        let wanted = name.uppercased()
        return properties.filter { $0.name == wanted }
    }
}

/// One content line: `NAME;PARAM=VALUE:value`.
public struct ICalendarProperty: Sendable, Equatable {
    /// The property name, upper-cased.
    public var name: String
    /// Parameters in input order.
    public var parameters: [ICalendarParameter]
    /// The value: TEXT values unescaped (`\\ \; \, \n \N`); URI, CAL-ADDRESS, RECUR and other non-TEXT values as
    /// written.
    public var value: String
    /// The value exactly as written (after unfolding and UTF-8 decoding).
    public var rawValue: String
    /// The line the property starts on.
    public var line: Int

    /// Creates a property.
    public init(name: String, parameters: [ICalendarParameter] = [], value: String, rawValue: String? = nil, line: Int = 0) {
        self.name = name
        self.parameters = parameters
        self.value = value
        self.rawValue = rawValue ?? value
        self.line = line
    }

    /// The first value of the first parameter with this name (case-insensitive), if any.
    public func parameter(_ name: String) -> String? {
        let wanted = name.uppercased()
        return parameters.first { $0.name == wanted }?.values.first
    }

    /// A multi-valued TEXT value (e.g. CATEGORIES) split on unescaped commas, each part unescaped.
    public var textValues: [String] { TextEscaping.splitAndUnescape(Array(rawValue.utf8)) }
}

/// One parameter: `NAME=value` or `NAME=v1,"v,2"`. Quotes are removed and RFC 6868 escapes (`^n ^^ ^'`) decoded.
public struct ICalendarParameter: Sendable, Equatable {
    /// The parameter name, upper-cased.
    public var name: String
    /// The values, in order (most parameters have one).
    public var values: [String]

    /// Creates a parameter.
    public init(name: String, values: [String]) {
        self.name = name
        self.values = values
    }

    /// The values joined with commas.
    public var value: String { values.joined(separator: ",") }
}
