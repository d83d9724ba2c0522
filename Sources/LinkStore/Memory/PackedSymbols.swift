/// The strings many packed records share — apps, routes, param names — kept once, each record holding its index
/// instead (`PackedLinkRecord`): a million links of a few apps carry a few hundred such strings, not a million copies.
///
/// Append-only and bounded: at most `maxCount` strings of at most `maxBytes` bytes each are ever taken; a string past
/// either bound is written into the record itself. An index, once given, names the same string for the table's life,
/// so a record's bytes stay valid however long they are kept. Not thread-safe: it lives under `LinkCache`'s lock.
struct PackedSymbols {
    /// The most strings kept.
    static let maxCount = 4_096
    /// The longest string kept, in UTF-8 bytes.
    static let maxBytes = 64

    private var indexes: [String: UInt32] = [:]
    private var strings: [String] = []
    /// The UTF-8 bytes of the strings kept.
    private var textBytes = 0

    /// The bytes the table takes, about: its strings and two entries each.
    var bytes: Int { textBytes + strings.count * 48 }

    /// The index of `text`, taken now if it is new and the bounds allow; nil when it must be written inline.
    mutating func index(of text: String) -> UInt32? {
        if let known = indexes[text] { return known }
        let length = text.utf8.count
        guard strings.count < Self.maxCount, length <= Self.maxBytes else { return nil }
        let index = UInt32(strings.count)
        indexes[text] = index
        strings.append(text)
        textBytes += length
        return index
    }

    /// The string at `index` (given by `index(of:)`).
    func string(at index: Int) -> String { strings[index] }
}
