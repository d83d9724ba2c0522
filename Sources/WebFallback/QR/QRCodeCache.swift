import Synchronization

/// QR codes as SVG, by text and module size, kept so that a share URL is encoded once (encoding scores all eight
/// masks: far more work than rendering the page around it). Bounded: when full it starts over.
public final class QRCodeCache: Sendable {
    private struct Key: Hashable {
        let text: String
        let moduleSize: Int
    }

    private let entries = Mutex<[Key: String]>([:])
    /// Most codes kept.
    public let capacity: Int

    /// How many codes are kept now.
    public var count: Int { entries.withLock { $0.count } }

    /// A cache of at most `capacity` codes.
    public init(capacity: Int = 10_000) { self.capacity = max(1, capacity) }

    /// The SVG of `text`'s QR code; nil when the text is too long for a code.
    public func svg(for text: String, moduleSize: Int) -> String? {
        let key = Key(text: text, moduleSize: moduleSize)
        if let cached = entries.withLock({ $0[key] }) { return cached }
        guard let svg = try? QRCode.encode(text).svg(moduleSize: moduleSize) else { return nil }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = svg
        }
        return svg
    }
}
