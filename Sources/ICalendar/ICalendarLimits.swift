/// Hard caps the parser enforces; hitting one stops parsing with an ``ICalendarError``.
///
/// Every cap bounds time or memory, so that no input, however crafted, can make a parse expensive.
/// Defaults (all configurable):
/// - `maxBytes`: 1 MiB (1,048,576) — the whole input, checked before anything is read.
/// - `maxLineLength`: 256 KiB — one logical (unfolded) content line, in bytes.
/// - `maxPropertiesPerComponent`: 1,000 — properties directly inside one component.
/// - `maxParametersPerProperty`: 64 — parameters on one property line.
/// - `maxProperties`: 100,000 — properties in the whole input.
/// - `maxParameters`: 100,000 — parameters in the whole input.
/// - `maxComponents`: 10,000 — components (BEGIN lines) in the whole input.
/// - `maxDepth`: 16 — components nested inside each other (VCALENDAR > VEVENT > VALARM is 3).
/// - `maxDiagnostics`: 100 — diagnostics recorded before the parser gives up on the input.
public struct ICalendarLimits: Sendable, Equatable {
    /// Largest input accepted, in bytes.
    public var maxBytes: Int
    /// Longest logical (unfolded) content line, in bytes.
    public var maxLineLength: Int
    /// Most properties directly inside one component.
    public var maxPropertiesPerComponent: Int
    /// Most parameters on one property.
    public var maxParametersPerProperty: Int
    /// Most properties in the whole input.
    public var maxProperties: Int
    /// Most parameters in the whole input.
    public var maxParameters: Int
    /// Most components in the whole input.
    public var maxComponents: Int
    /// Deepest nesting of components.
    public var maxDepth: Int
    /// Most diagnostics before the input is refused as too broken.
    public var maxDiagnostics: Int

    /// Creates limits; every argument has the default documented on the type.
    public init(
        maxBytes: Int = 1 << 20,
        maxLineLength: Int = 256 << 10,
        maxPropertiesPerComponent: Int = 1_000,
        maxParametersPerProperty: Int = 64,
        maxProperties: Int = 100_000,
        maxParameters: Int = 100_000,
        maxComponents: Int = 10_000,
        maxDepth: Int = 16,
        maxDiagnostics: Int = 100
    ) {
        self.maxBytes = maxBytes
        self.maxLineLength = maxLineLength
        self.maxPropertiesPerComponent = maxPropertiesPerComponent
        self.maxParametersPerProperty = maxParametersPerProperty
        self.maxProperties = maxProperties
        self.maxParameters = maxParameters
        self.maxComponents = maxComponents
        self.maxDepth = maxDepth
        self.maxDiagnostics = maxDiagnostics
    }
}
