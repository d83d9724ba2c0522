import Foundation
public import Logging

/// A swift-log handler that keeps every line it is given, for tests that check what the server logs.
public final class LogCapture: @unchecked Sendable {  // `lines` behind `lock`
    /// One logged line.
    public struct Line: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: [String: String]

        /// Message and metadata as one string, to look for text that must never be logged.
        public var text: String { message + " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
    }

    private let lock = NSLock()
    private var captured: [Line] = []

    /// An empty capture.
    public init() {}

    /// Everything logged so far.
    public var lines: [Line] { lock.withLock { captured } }

    /// A logger writing here.
    public func logger(label: String = "linkd") -> Logger {
        Logger(label: label) { _ in Handler(capture: self) }
    }

    fileprivate func append(_ line: Line) { lock.withLock { captured.append(line) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var all = metadata
            for (key, value) in event.metadata ?? [:] { all[key] = value }
            capture.append(Line(level: event.level, message: "\(event.message)", metadata: all.mapValues { "\($0)" }))
        }
    }
}
