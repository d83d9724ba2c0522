import Synchronization

/// A revoked (link id, generation) pair in 20 bytes: no strings, so a million fit in a few tens of MB.
public struct RevocationKey: Hashable, Sendable {
    /// High 8 bytes of the link id.
    public var high: UInt64
    /// Low 8 bytes of the link id.
    public var low: UInt64
    /// The revoked generation.
    public var generation: UInt32

    /// Creates a key from the id's two halves.
    public init(high: UInt64, low: UInt64, generation: UInt32) {
        self.high = high
        self.low = low
        self.generation = generation
    }

    /// Creates a key from a 32-character hex link id; nil if it is not one.
    public init?(hex: String, generation: UInt32) {
        guard let (high, low) = HexLinkID.halves(hex) else { return nil }
        self.init(high: high, low: low, generation: generation)
    }
}

/// A link id of 32 lowercase hex characters as its two 64-bit halves: how the revocation set and the link cache
/// keep ids without strings.
enum HexLinkID {
    /// The halves of `id`; nil unless it is exactly 32 lowercase hex characters.
    static func halves(_ id: String) -> (high: UInt64, low: UInt64)? {
        var id = id
        return id.withUTF8 { utf8 in
            guard utf8.count == 32, let high = parse(utf8, from: 0), let low = parse(utf8, from: 16) else { return nil }
            return (high, low)
        }
    }

    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> UInt64? {
        var value: UInt64 = 0
        for digit in utf8[start..<(start + 16)] {
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(nibble)
        }
        return value
    }
}

/// The in-memory set of revoked links, kept current by every write of the store; read on the hot path.
///
/// Until the store's rows are loaded (`isLoaded`) the set holds only what was revoked since the open: a pair it
/// lacks may still be revoked, so a caller must then decide from the link record read from the store (which is).
public final class RevocationSet: Sendable {
    private let keys = Mutex<Set<RevocationKey>>([])
    private let loaded = Atomic<Bool>(false)

    /// Whether every revocation in the store is in the set (the load at open finished).
    public var isLoaded: Bool { loaded.load(ordering: .acquiring) }

    /// Notes that the store's revocations are all in the set.
    public func markLoaded() { loaded.store(true, ordering: .releasing) }

    /// Creates an empty set.
    public init() {}

    /// Whether the pair is revoked.
    public func contains(_ key: RevocationKey) -> Bool {
        keys.withLock { $0.contains(key) }
    }

    /// Adds revoked pairs.
    public func insert(_ newKeys: some Sequence<RevocationKey>) {
        keys.withLock { set in
            for key in newKeys { set.insert(key) }
        }
    }

    /// Adds revoked (link id in hex, generation) pairs; ids that are not 32 hex digits are skipped.
    public func insert(linkGenerations pairs: [(String, Int)]) {
        insert(pairs.compactMap { RevocationKey(hex: $0.0, generation: UInt32(truncatingIfNeeded: $0.1)) })
    }

    /// Reserves room for `count` entries.
    public func reserve(_ count: Int) {
        keys.withLock { $0.reserveCapacity(count) }
    }

    /// How many pairs are revoked.
    public var count: Int {
        keys.withLock { $0.count }
    }
}
