/// An open-addressing index from a key's hash to where its record is (a `RecordArena` location): linear probing,
/// 8 bytes a slot (16 bits of the hash as a tag, so most probes never read a record, and the location plus one),
/// grown at three quarters full, deletion by backward shift (no tombstones).
///
/// The table keeps no keys: comparing a key and finding an entry's hash again (to grow, to delete) read the record
/// at its location, through the closures its owner passes.
struct SlotTable {
    private(set) var slots: [UInt64]
    private(set) var count = 0
    private var mask: Int

    /// The most locations a slot can hold (47 bits: `RecordArena` keeps its locations below).
    static let locationLimit: UInt64 = 1 << 47

    init(minimumSlots: Int = 64) {
        var size = 64
        while size < minimumSlots { size <<= 1 }
        slots = Array(repeating: 0, count: size)
        mask = size - 1
    }

    /// The bytes the slots take.
    var bytes: Int { slots.count * 8 }

    /// The slot holding the entry with `hash` for which `matches(location)` holds.
    func find(hash: Int, matches: (UInt64) -> Bool) -> Int? {
        let tag = Self.tag(hash)
        var index = hash & mask
        while true {
            let slot = slots[index]
            if slot == 0 { return nil }
            if slot >> 48 == tag, matches((slot & Self.locationMask) - 1) { return index }
            index = (index + 1) & mask
        }
    }

    /// The location in `slot`.
    func location(at slot: Int) -> UInt64 {
        (slots[slot] & Self.locationMask) - 1
    }

    /// Points `slot` at another location of the same key.
    mutating func relocate(_ slot: Int, to location: UInt64) {
        slots[slot] = (slots[slot] & ~Self.locationMask) | (location + 1)
    }

    /// Adds an entry (its key must not be there yet); `hashOf` gives the hash of the record at a location, for growing.
    mutating func insert(hash: Int, location: UInt64, hashOf: (UInt64) -> Int) {
        if (count + 1) * 4 > slots.count * 3 { grow(hashOf: hashOf) }
        place(hash: hash, location: location)
        count += 1
    }

    /// Removes the entry in `slot`, shifting back the entries after it that probed past it.
    mutating func remove(at slot: Int, hashOf: (UInt64) -> Int) {
        var hole = slot
        var index = slot
        while true {
            index = (index + 1) & mask
            let entry = slots[index]
            if entry == 0 { break }
            let home = hashOf((entry & Self.locationMask) - 1) & mask
            // The entry may move into the hole when its home is not in (hole, index], cyclically.
            let stays = hole <= index ? (home > hole && home <= index) : (home > hole || home <= index)
            if !stays {
                slots[hole] = entry
                hole = index
            }
        }
        slots[hole] = 0
        count -= 1
    }

    /// Empties the table and shrinks it to its first size.
    mutating func removeAll() {
        self = SlotTable()
    }

    private mutating func grow(hashOf: (UInt64) -> Int) {
        let old = slots
        slots = Array(repeating: 0, count: old.count * 2)
        mask = slots.count - 1
        for entry in old where entry != 0 {
            place(hash: hashOf((entry & Self.locationMask) - 1), location: (entry & Self.locationMask) - 1)
        }
    }

    private mutating func place(hash: Int, location: UInt64) {
        var index = hash & mask
        while slots[index] != 0 { index = (index + 1) & mask }
        slots[index] = Self.tag(hash) << 48 | (location + 1)
    }

    private static let locationMask: UInt64 = (1 << 48) - 1

    private static func tag(_ hash: Int) -> UInt64 {
        UInt64(UInt(bitPattern: hash) >> 48) & 0xFFFF
    }
}
