public import Logging
import PrintableText

/// A log handler that escapes, in every message and metadata value, the characters that could forge a line or
/// drive a terminal (`PrintableText`), then hands the line to `base`: a title, an owner or a label from before the
/// API refused them, or text in an error from a library, shows as `\n` or `\u{202E}`, never as a new line.
public struct EscapingLogHandler: LogHandler {
    /// The handler that writes the escaped lines.
    public var base: any LogHandler

    /// Escapes before `base`.
    public init(wrapping base: any LogHandler) {
        self.base = base
    }

    /// `LoggingSystem.bootstrap` with this handler over swift-log's standard-error stream: `linkd serve` calls it
    /// once before anything logs.
    public static func bootstrap() {
        LoggingSystem.bootstrap { label in EscapingLogHandler(wrapping: StreamLogHandler.standardError(label: label)) }
    }

    public var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = Self.escaped(newValue) }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue.map(Self.escaped) }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = "\(PrintableText.escaped(event.message.description))"
        event.metadata = event.metadata.map(Self.escaped)
        base.log(event: event)
    }

    /// Every key and value of `metadata` escaped.
    static func escaped(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var out: Logger.Metadata = [:]
        for (key, value) in metadata { out[PrintableText.escaped(key)] = escaped(value) }
        return out
    }

    /// A metadata value escaped: strings and descriptions as text, dictionaries and arrays element by element.
    static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(PrintableText.escaped(text))
        case .stringConvertible(let convertible): .string(PrintableText.escaped(convertible.description))
        case .dictionary(let dictionary): .dictionary(escaped(dictionary))
        case .array(let values): .array(values.map(escaped))
        }
    }
}
