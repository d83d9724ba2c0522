import Foundation

/// A link record as bytes, as `LinkCache` keeps it: about 70 bytes for a typical link, against some 500 for a
/// `LinkRecord` with its strings and dictionary, so a cache of a given size holds seven times the links.
///
/// Layout: `length` (UInt16, the whole record), the id (`PackedKey`: a 32-character lowercase hex id as its 16
/// bytes, any other as its UTF-8), the short id (its length, 0 for none, then its bytes), then the body: status,
/// which optional fields are present and the dates' form, generation (varint), created and expires, app, route, the
/// params (count, then key and value), then owner, title, campaign (its `label`) and path when present. Strings are
/// a varint length and UTF-8; app, route and param names are a symbol (`PackedSymbols`) where the table takes them.
/// Dates come back exactly: whole seconds, or whole milliseconds, since 2001 as varints (expires as its distance
/// from created) when that is exact and expires is not before created, else the 8 bytes of each
/// `timeIntervalSinceReferenceDate`.
enum PackedLinkRecord {
    /// The largest record kept; a larger one (a link with very long params) is simply not cached.
    static let maxBytes = Int(UInt16.max)

    /// The bytes of `record`, or nil when they would pass `maxBytes`.
    static func encode(_ record: LinkRecord, symbols: inout PackedSymbols) -> [UInt8]? {
        let key = PackedKey(id: record.id)
        if case .text(let text) = key, text.utf8.count > Int(UInt8.max) { return nil }
        var out: [UInt8] = [0, 0]
        out.reserveCapacity(128)
        key.write(into: &out)
        let shortID = Array((record.shortID ?? "").utf8)
        guard shortID.count <= Int(UInt8.max) else { return nil }
        out.append(UInt8(shortID.count))
        out.append(contentsOf: shortID)
        out.append(statusCode(record.status))
        let optionals = [record.owner, record.title, record.campaign?.label, record.path]
        var present: UInt8 = 0
        for (bit, value) in optionals.enumerated() where value != nil { present |= 1 << bit }
        let dates = PackedDates(created: record.created, expires: record.expires)
        out.append(present | dates.form << 4)
        writeVarint(UInt64(bitPattern: Int64(record.generation)), into: &out)
        dates.write(into: &out)
        writeSymbol(record.app, symbols: &symbols, into: &out)
        writeSymbol(record.route, symbols: &symbols, into: &out)
        writeVarint(UInt64(record.params.count), into: &out)
        for (key, value) in record.params.sorted(by: { $0.key < $1.key }) {
            writeSymbol(key, symbols: &symbols, into: &out)
            writeString(value, into: &out)
        }
        for value in optionals { if let value { writeString(value, into: &out) } }
        guard out.count <= maxBytes else { return nil }
        out[0] = UInt8(out.count & 0xFF)
        out[1] = UInt8(out.count >> 8)
        return out
    }

    /// The record whose bytes start at `bytes[0]`.
    static func decode(_ bytes: UnsafeRawBufferPointer, symbols: PackedSymbols) -> LinkRecord {
        var reader = PackedReader(bytes: bytes, at: 2)
        let id = PackedKey.readID(&reader)
        let shortLength = Int(reader.byte())
        let shortID = shortLength == 0 ? nil : reader.string(length: shortLength)
        let status = statuses[Int(reader.byte())]
        let flags = reader.byte()
        let present = flags & 0x0F
        let generation = Int(Int64(bitPattern: reader.varint()))
        let (created, expires) = PackedDates.read(form: flags >> 4, from: &reader)
        let app = reader.symbol(symbols)
        let route = reader.symbol(symbols)
        let paramCount = Int(reader.varint())
        var params: [String: String] = [:]
        params.reserveCapacity(paramCount)
        for _ in 0..<paramCount {
            let key = reader.symbol(symbols)
            params[key] = reader.string()
        }
        var optionals: [String?] = [nil, nil, nil, nil]
        for bit in 0..<4 where present & (1 << bit) != 0 { optionals[bit] = reader.string() }
        return LinkRecord(
            id: id, app: app, route: route, params: params, owner: optionals[0], title: optionals[1], created: created,
            expires: expires, generation: generation, status: status, campaign: optionals[2].flatMap(Campaign.init(label:)),
            shortID: shortID, path: optionals[3])
    }

    /// The length of the record starting at `bytes[0]`.
    static func length(_ bytes: UnsafeRawBufferPointer) -> Int {
        Int(bytes[0]) | Int(bytes[1]) << 8
    }

    /// Whether the record starting at `bytes[0]` has this id.
    static func hasID(_ bytes: UnsafeRawBufferPointer, _ key: PackedKey) -> Bool {
        key.matches(bytes, at: 2)
    }

    /// The record's id as a key.
    static func idKey(_ bytes: UnsafeRawBufferPointer) -> PackedKey {
        var reader = PackedReader(bytes: bytes, at: 3)
        if bytes[2] == 1 { return .hex(reader.bigEndian(), reader.bigEndian()) }
        return .text(reader.string(length: Int(reader.byte())))
    }

    /// Where the short id's length byte is.
    static func shortIDOffset(_ bytes: UnsafeRawBufferPointer) -> Int {
        2 + PackedKey.storedLength(bytes, at: 2)
    }

    /// The record's short id, nil for none.
    static func shortID(_ bytes: UnsafeRawBufferPointer) -> String? {
        let offset = shortIDOffset(bytes)
        let length = Int(bytes[offset])
        guard length > 0 else { return nil }
        var reader = PackedReader(bytes: bytes, at: offset + 1)
        return reader.string(length: length)
    }

    /// Whether the record's short id is `shortID`.
    static func hasShortID(_ bytes: UnsafeRawBufferPointer, _ shortID: String) -> Bool {
        let offset = shortIDOffset(bytes)
        let length = Int(bytes[offset])
        var shortID = shortID
        return shortID.withUTF8 { utf8 in
            utf8.count == length && length > 0 && memcmp(utf8.baseAddress!, bytes.baseAddress! + offset + 1, length) == 0
        }
    }

    private static let statuses: [LinkRecordStatus] = [.active, .revoked, .deleted]

    private static func statusCode(_ status: LinkRecordStatus) -> UInt8 {
        switch status {
        case .active: 0
        case .revoked: 1
        case .deleted: 2
        }
    }

    static func writeVarint(_ value: UInt64, into out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    static func writeFixed(_ value: UInt64, into out: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8((value >> UInt64(shift)) & 0xFF)) }
    }

    private static func writeString(_ text: String, into out: inout [UInt8]) {
        writeVarint(UInt64(text.utf8.count), into: &out)
        out.append(contentsOf: text.utf8)
    }

    /// A string many records share: its symbol's index (varint `index << 1 | 1`), or, when the table does not take
    /// it, its length (varint `length << 1`) and UTF-8.
    private static func writeSymbol(_ text: String, symbols: inout PackedSymbols, into out: inout [UInt8]) {
        if let index = symbols.index(of: text) {
            writeVarint(UInt64(index) << 1 | 1, into: &out)
        } else {
            writeVarint(UInt64(text.utf8.count) << 1, into: &out)
            out.append(contentsOf: text.utf8)
        }
    }
}

/// A record's two dates in the fewest bytes that give them back exactly (`PackedLinkRecord`'s layout).
struct PackedDates {
    /// 0: the 8 bytes of each date; 1: whole seconds; 2: whole milliseconds (since 2001, as varints: created, then
    /// expires minus created).
    let form: UInt8
    private let first: UInt64
    private let second: UInt64

    init(created: Date, expires: Date) {
        let (start, end) = (created.timeIntervalSinceReferenceDate, expires.timeIntervalSinceReferenceDate)
        for (form, unitsPerSecond) in [(UInt8(1), 1.0), (2, 1000.0)] {
            if let from = Self.whole(start, unitsPerSecond), let to = Self.whole(end, unitsPerSecond), to >= from {
                (self.form, first, second) = (form, from, to - from)
                return
            }
        }
        (form, first, second) = (0, start.bitPattern, end.bitPattern)
    }

    func write(into out: inout [UInt8]) {
        if form == 0 {
            PackedLinkRecord.writeFixed(first, into: &out)
            PackedLinkRecord.writeFixed(second, into: &out)
        } else {
            PackedLinkRecord.writeVarint(first, into: &out)
            PackedLinkRecord.writeVarint(second, into: &out)
        }
    }

    static func read(form: UInt8, from reader: inout PackedReader) -> (created: Date, expires: Date) {
        guard form != 0 else {
            let created = Date(timeIntervalSinceReferenceDate: Double(bitPattern: reader.fixed()))
            return (created, Date(timeIntervalSinceReferenceDate: Double(bitPattern: reader.fixed())))
        }
        let unitsPerSecond = form == 1 ? 1.0 : 1000.0
        let start = reader.varint()
        let end = start + reader.varint()
        return (Date(timeIntervalSinceReferenceDate: Double(start) / unitsPerSecond),
                Date(timeIntervalSinceReferenceDate: Double(end) / unitsPerSecond))
    }

    /// `seconds` as a whole count of units when that count, divided back, gives exactly the same bits.
    private static func whole(_ seconds: Double, _ unitsPerSecond: Double) -> UInt64? {
        let units = (seconds * unitsPerSecond).rounded()
        // `seconds.sign`: -0.0 counts as 0 units but would come back as +0.0.
        guard seconds.sign == .plus, units < 9_007_199_254_740_992, (units / unitsPerSecond).bitPattern == seconds.bitPattern
        else { return nil }
        return UInt64(units)
    }
}

/// A link id as `LinkCache` keys it: a 32-character lowercase hex id as its two 64-bit halves (16 bytes stored),
/// any other id as its text.
enum PackedKey: Hashable {
    /// A 32-character lowercase hex id.
    case hex(UInt64, UInt64)
    /// Any other id.
    case text(String)

    /// The key of a link id.
    init(id: String) {
        self = HexLinkID.halves(id).map { .hex($0.high, $0.low) } ?? .text(id)
    }

    /// Writes the key: kind 1 and 16 bytes, or kind 0, a length byte and the UTF-8 (at most 255 bytes: a record with a
    /// longer id is not cached).
    func write(into out: inout [UInt8]) {
        switch self {
        case .hex(let high, let low):
            out.append(1)
            for half in [high, low] {
                for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((half >> UInt64(shift)) & 0xFF)) }
            }
        case .text(let text):
            let utf8 = Array(text.utf8.prefix(255))
            out.append(0)
            out.append(UInt8(utf8.count))
            out.append(contentsOf: utf8)
        }
    }

    /// Whether the key written at `offset` is this one.
    func matches(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        switch self {
        case .hex(let high, let low):
            guard bytes[offset] == 1 else { return false }
            var reader = PackedReader(bytes: bytes, at: offset + 1)
            return reader.bigEndian() == high && reader.bigEndian() == low
        case .text(let text):
            guard bytes[offset] == 0 else { return false }
            let length = Int(bytes[offset + 1])
            var text = text
            return text.withUTF8 { utf8 in
                utf8.count == length && (length == 0 || memcmp(utf8.baseAddress!, bytes.baseAddress! + offset + 2, length) == 0)
            }
        }
    }

    /// How many bytes the key written at `offset` takes.
    static func storedLength(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int {
        bytes[offset] == 1 ? 17 : 2 + Int(bytes[offset + 1])
    }

    /// Reads a key written by `write` as the id's text.
    static func readID(_ reader: inout PackedReader) -> String {
        if reader.byte() == 1 {
            let (high, low) = (reader.bigEndian(), reader.bigEndian())
            return String(unsafeUninitializedCapacity: 32) { buffer in
                for index in 0..<32 {
                    let half = index < 16 ? high : low
                    let nibble = Int((half >> UInt64(60 - (index % 16) * 4)) & 0xF)
                    buffer[index] = hexDigits[nibble]
                }
                return 32
            }
        }
        return reader.string(length: Int(reader.byte()))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

}

/// Reads a packed record's fields in order.
struct PackedReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    init(bytes: UnsafeRawBufferPointer, at offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    mutating func byte() -> UInt8 {
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = byte()
            value |= UInt64(next & 0x7F) << shift
            if next < 0x80 { return value }
            shift += 7
        }
    }

    /// Eight bytes, least significant first.
    mutating func fixed() -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) { value |= UInt64(byte()) << UInt64(shift) }
        return value
    }

    /// Eight bytes, most significant first.
    mutating func bigEndian() -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return value
    }

    mutating func string() -> String {
        string(length: Int(varint()))
    }

    /// A string written by `PackedLinkRecord.writeSymbol`.
    mutating func symbol(_ symbols: PackedSymbols) -> String {
        let value = varint()
        if value & 1 == 1 { return symbols.string(at: Int(value >> 1)) }
        return string(length: Int(value >> 1))
    }

    mutating func string(length: Int) -> String {
        defer { offset += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
    }
}
