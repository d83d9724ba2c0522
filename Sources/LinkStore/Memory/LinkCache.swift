import Synchronization

/// A cache of link records sized by memory: each record packed into about 70 bytes (`PackedLinkRecord`) in an
/// arena of segments (`RecordArena`), found by its id or its short id through two open-addressing indexes
/// (`SlotTable`, 8 bytes a slot). At most `maxBytes` (arena and indexes together) and `capacity` records.
///
/// When a bound is passed, the oldest segment is dropped whole, its records with it; a record read from the oldest
/// quarter of the segments is first copied to the newest, so links still opened stay — an LRU approximation with
/// no per-entry list. A million typical links take about 101 MiB.
///
/// `fill` puts in records read in bulk (the warm-up at start: `StoreFront.warmLinkCache`) without evicting any,
/// and only when nothing was removed since the read began (`removalMark`), so a revocation or deletion that another
/// instance made meanwhile is never hidden by an older copy.
///
/// A refresh (`beginRefresh`, `refresh`, `endRefresh`: a shared store's full reload) reads every record again while
/// the cache keeps answering: each record read is written anew at the arena's head, and at the end the records
/// not read again — in segments older than where the refresh began — are dropped, so a link deleted where the
/// change feed did not say so leaves the cache, and no moment finds the cache empty.
public final class LinkCache: Sendable {
    /// What `fill` did.
    public enum Fill: Equatable, Sendable {
        /// Put in this many records (those already cached were left as they were).
        case filled(Int)
        /// Put in this many, then stopped: the cache is nine tenths full.
        case full(Int)
        /// Put in none: a record was removed since `removalMark` was read (read the records again).
        case changed
    }

    private let state: Mutex<PackedLinks>

    /// The default of `maxBytes`: 128 MiB, about a million typical links.
    public static let defaultMaxBytes = 128 << 20

    /// A cache of at most `capacity` records and `maxBytes` bytes.
    public init(capacity: Int, maxBytes: Int = LinkCache.defaultMaxBytes) {
        state = Mutex(PackedLinks(capacity: max(1, capacity), maxBytes: max(64 << 10, maxBytes)))
    }

    /// The cached record with this id, if any.
    public func get(_ id: String) -> LinkRecord? {
        let key = PackedKey(id: id)
        return state.withLock { $0.get(key) }
    }

    /// The cached record with this short id, if any.
    public func get(shortID: String) -> LinkRecord? {
        state.withLock { $0.get(shortID: shortID) }
    }

    /// Stores or replaces a record.
    public func put(_ record: LinkRecord) {
        _ = state.withLock { $0.put(record) }
    }

    /// Drops one record (it changed).
    public func remove(_ id: String) {
        let key = PackedKey(id: id)
        state.withLock { $0.remove(key) }
    }

    /// Drops every record.
    public func removeAll() {
        state.withLock { $0.removeAll() }
    }

    /// How many records are cached.
    public var count: Int {
        state.withLock { $0.byID.count }
    }

    /// The bytes the records and their indexes take.
    public var bytes: Int {
        state.withLock { $0.bytes }
    }

    /// A mark that changes whenever a record is removed: read it before reading records for `fill`.
    public var removalMark: UInt64 {
        state.withLock { $0.removals }
    }

    /// Puts in those of `records` not cached yet, unless a record was removed since `mark`, and never past nine
    /// tenths of either bound (it evicts nothing).
    public func fill(_ records: [LinkRecord], removalMark mark: UInt64) -> Fill {
        state.withLock { $0.fill(records, removalMark: mark) }
    }

    /// Starts a refresh: the records cached now are the old ones until `refresh` writes them again. A refresh
    /// already begun starts over from here.
    public func beginRefresh() {
        state.withLock { $0.beginRefresh() }
    }

    /// Writes `records` (read from the store since the refresh began) anew, replacing their old copies, unless a
    /// record was removed since `mark`; stops when the records written since the refresh began take nine tenths of
    /// either bound.
    public func refresh(_ records: [LinkRecord], removalMark mark: UInt64) -> Fill {
        state.withLock { $0.refresh(records, removalMark: mark) }
    }

    /// Ends a refresh: drops every record it did not write again, or keeps them (`keepingUnread`: the store could
    /// not be read to the end, and an unchecked record serves better than none). How many were dropped.
    @discardableResult
    public func endRefresh(keepingUnread: Bool = false) -> Int {
        state.withLock { $0.endRefresh(keepingUnread: keepingUnread) }
    }
}

/// The cache's contents, under its lock.
struct PackedLinks {
    let arena: RecordArena
    var byID = SlotTable()
    var byShortID = SlotTable()
    /// The apps, routes and param names the records share (never emptied: a record keeps their indexes).
    var symbols = PackedSymbols()
    /// Counts removals (`LinkCache.removalMark`).
    var removals: UInt64 = 0
    /// While a refresh runs, the number of the first segment it writes to: older segments hold the records it has
    /// not read again. Reads move no record meanwhile (a moved record would look refreshed).
    var refreshMark: UInt64?
    /// The records written by the refresh that runs.
    var refreshed = 0
    let capacity: Int
    let maxBytes: Int

    init(capacity: Int, maxBytes: Int) {
        self.capacity = capacity
        self.maxBytes = maxBytes
        // About 32 segments fill the budget (1 MiB at most, 4 KiB at least), each with at most an eighth of the
        // records: dropping one frees a small part of the cache.
        arena = RecordArena(
            segmentBytes: min(1 << 20, max(4 << 10, maxBytes / 32)), segmentRecords: max(1, capacity / 8))
    }

    var bytes: Int { arena.allocatedBytes + byID.bytes + byShortID.bytes + symbols.bytes }

    mutating func get(_ key: PackedKey) -> LinkRecord? {
        guard let slot = findID(key) else { return nil }
        return read(at: byID.location(at: slot))
    }

    mutating func get(shortID: String) -> LinkRecord? {
        let arena = self.arena
        guard let slot = byShortID.find(hash: shortID.hashValue, matches: { location in
            arena.withRecord(at: location) { PackedLinkRecord.hasShortID($0, shortID) }
        }) else { return nil }
        return read(at: byShortID.location(at: slot))
    }

    /// The record at `location`; one from the oldest quarter of the segments is moved to the newest first.
    private mutating func read(at location: UInt64) -> LinkRecord {
        let symbols = self.symbols
        let record = arena.withRecord(at: location) { PackedLinkRecord.decode($0, symbols: symbols) }
        if refreshMark == nil, arena.isOld(location) {
            let copy = arena.withRecord(at: location) { Array($0.prefix(PackedLinkRecord.length($0))) }
            move(PackedKey(id: record.id), shortID: record.shortID, from: location, to: arena.append(copy))
            evictIfNeeded()
        }
        return record
    }

    /// Stores or replaces a record, evicting the oldest segments past a bound; the bytes it took (0: too large to
    /// pack, not cached, and its old copy gone).
    @discardableResult
    mutating func put(_ record: LinkRecord) -> Int {
        let key = PackedKey(id: record.id)
        removeEntry(key)
        guard let bytes = PackedLinkRecord.encode(record, symbols: &symbols) else { return 0 }
        insert(key, shortID: record.shortID, bytes: bytes)
        evictIfNeeded()
        return bytes.count
    }

    mutating func remove(_ key: PackedKey) {
        removeEntry(key)
        removals &+= 1
    }

    mutating func removeAll() {
        byID.removeAll()
        byShortID.removeAll()
        arena.removeAll()
        removals &+= 1
        // Nothing old is left: what a refresh writes from here on starts the arena again.
        if refreshMark != nil { (refreshMark, refreshed) = (0, 0) }
    }

    mutating func beginRefresh() {
        refreshMark = arena.sealLastSegment()
        refreshed = 0
    }

    mutating func refresh(_ records: [LinkRecord], removalMark mark: UInt64) -> LinkCache.Fill {
        guard mark == removals else { return .changed }
        guard let refreshMark else { return .filled(0) }
        var written = 0
        // What the records written since the refresh began take, their segments counted whole.
        var freshBytes = arena.allocatedBytes(from: refreshMark) + byID.bytes + byShortID.bytes + symbols.bytes
        for record in records {
            if refreshed >= capacity * 9 / 10 || freshBytes >= maxBytes / 10 * 9 { return .full(written) }
            // Past a bound the oldest segments go first: they hold the copies just replaced.
            let size = put(record)
            guard size > 0 else { continue }
            freshBytes += size
            written += 1
            refreshed += 1
        }
        return .filled(written)
    }

    mutating func endRefresh(keepingUnread: Bool) -> Int {
        guard let mark = refreshMark else { return 0 }
        var dropped = 0
        while !keepingUnread, arena.segmentCount > 0, arena.firstSegment < mark {
            dropped += dropOldestSegment()
        }
        (refreshMark, refreshed) = (nil, 0)
        return dropped
    }

    mutating func fill(_ records: [LinkRecord], removalMark mark: UInt64) -> LinkCache.Fill {
        guard mark == removals else { return .changed }
        var added = 0
        for record in records {
            if byID.count >= capacity * 9 / 10 || bytes >= maxBytes / 10 * 9 { return .full(added) }
            let key = PackedKey(id: record.id)
            guard findID(key) == nil, let bytes = PackedLinkRecord.encode(record, symbols: &symbols) else { continue }
            insert(key, shortID: record.shortID, bytes: bytes)
            added += 1
        }
        return .filled(added)
    }

    // MARK: Entries

    private func findID(_ key: PackedKey) -> Int? {
        let arena = self.arena
        return byID.find(hash: key.hashValue) { location in
            arena.withRecord(at: location) { PackedLinkRecord.hasID($0, key) }
        }
    }

    /// The slot of the short-id entry pointing at `location`.
    private func findShortID(_ shortID: String, at location: UInt64) -> Int? {
        byShortID.find(hash: shortID.hashValue) { $0 == location }
    }

    private mutating func insert(_ key: PackedKey, shortID: String?, bytes: [UInt8]) {
        if arena.wouldOverflowLocations { removeAll() }
        let location = arena.append(bytes)
        let arena = self.arena
        byID.insert(hash: key.hashValue, location: location, hashOf: { arena.idHash(at: $0) })
        if let shortID {
            // A short id names one link for ever, but an entry left by an older record of another id would shadow it.
            if let stale = byShortID.find(hash: shortID.hashValue, matches: { location in
                arena.withRecord(at: location) { PackedLinkRecord.hasShortID($0, shortID) }
            }) {
                byShortID.remove(at: stale, hashOf: { arena.shortIDHash(at: $0) })
            }
            byShortID.insert(hash: shortID.hashValue, location: location, hashOf: { arena.shortIDHash(at: $0) })
        }
    }

    private mutating func removeEntry(_ key: PackedKey) {
        guard let slot = findID(key) else { return }
        let location = byID.location(at: slot)
        let arena = self.arena
        byID.remove(at: slot, hashOf: { arena.idHash(at: $0) })
        if let shortID = arena.withRecord(at: location, PackedLinkRecord.shortID),
            let shortSlot = findShortID(shortID, at: location) {
            byShortID.remove(at: shortSlot, hashOf: { arena.shortIDHash(at: $0) })
        }
    }

    private mutating func move(_ key: PackedKey, shortID: String?, from old: UInt64, to new: UInt64) {
        if let slot = byID.find(hash: key.hashValue, matches: { $0 == old }) { byID.relocate(slot, to: new) }
        if let shortID, let slot = findShortID(shortID, at: old) { byShortID.relocate(slot, to: new) }
    }

    /// Drops the oldest segments while a bound is passed (the newest segment always stays).
    private mutating func evictIfNeeded() {
        while byID.count > capacity || bytes > maxBytes, arena.segmentCount > 1 {
            dropOldestSegment()
        }
    }

    /// Drops the oldest segment and the index entries of its records still cached (not replaced since); how many.
    @discardableResult
    private mutating func dropOldestSegment() -> Int {
        let arena = self.arena
        var dropped = 0
        for location in arena.oldestSegmentLocations() {
            let (key, shortID) = arena.withRecord(at: location) { (PackedLinkRecord.idKey($0), PackedLinkRecord.shortID($0)) }
            if let slot = byID.find(hash: key.hashValue, matches: { $0 == location }) {
                byID.remove(at: slot, hashOf: { arena.idHash(at: $0) })
                dropped += 1
            }
            if let shortID, let slot = findShortID(shortID, at: location) {
                byShortID.remove(at: slot, hashOf: { arena.shortIDHash(at: $0) })
            }
        }
        arena.dropOldest()
        return dropped
    }
}

/// The bytes of packed records in segments written in order, the oldest dropped whole. A location is the segment's
/// number (counted since the arena was made or emptied) and the offset in it.
final class RecordArena {
    private var segments: [[UInt8]] = []
    private var recordsInLast = 0
    /// The number of `segments[0]`.
    private var first: UInt64 = 0
    /// The bytes the segments hold (their capacity).
    private(set) var allocatedBytes = 0
    let segmentBytes: Int
    let segmentRecords: Int
    private static let offsetBits: UInt64 = 21

    init(segmentBytes: Int, segmentRecords: Int) {
        self.segmentBytes = segmentBytes
        self.segmentRecords = segmentRecords
    }

    var segmentCount: Int { segments.count }

    /// The number of the oldest segment.
    var firstSegment: UInt64 { first }

    /// Ends the newest segment: the next record starts a new one. The number that segment will have.
    func sealLastSegment() -> UInt64 {
        if !segments.isEmpty { recordsInLast = segmentRecords }
        return first + UInt64(segments.count)
    }

    /// The bytes held by the segments numbered `segment` and newer.
    func allocatedBytes(from segment: UInt64) -> Int {
        let start = Int(min(UInt64(segments.count), segment > first ? segment - first : 0))
        return segments[start...].reduce(0) { $0 + $1.capacity }
    }

    /// Whether the next segment's locations would pass what a `SlotTable` slot holds (after years of churn): the
    /// cache then starts over.
    var wouldOverflowLocations: Bool {
        (first + UInt64(segments.count) + 1) << Self.offsetBits >= SlotTable.locationLimit
    }

    /// Appends a record; its location.
    func append(_ bytes: [UInt8]) -> UInt64 {
        if segments.isEmpty || segments[segments.count - 1].count + bytes.count > segmentBytes || recordsInLast >= segmentRecords {
            var segment: [UInt8] = []
            segment.reserveCapacity(max(segmentBytes, bytes.count))
            allocatedBytes += segment.capacity
            segments.append(segment)
            recordsInLast = 0
        }
        let last = segments.count - 1
        let offset = segments[last].count
        segments[last].append(contentsOf: bytes)
        recordsInLast += 1
        return (first + UInt64(last)) << Self.offsetBits | UInt64(offset)
    }

    /// Calls `body` with the bytes from the record at `location` to the end of its segment.
    func withRecord<T>(at location: UInt64, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let segment = Int((location >> Self.offsetBits) - first)
        let offset = Int(location & ((1 << Self.offsetBits) - 1))
        return segments[segment].withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
    }

    /// Whether `location` is in the oldest quarter of the segments (of four or more).
    func isOld(_ location: UInt64) -> Bool {
        segments.count >= 4 && (location >> Self.offsetBits) < first + UInt64(segments.count / 4)
    }

    /// The locations of the records in the oldest segment.
    func oldestSegmentLocations() -> [UInt64] {
        var locations: [UInt64] = []
        segments[0].withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                locations.append(first << Self.offsetBits | UInt64(offset))
                offset += PackedLinkRecord.length(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            }
        }
        return locations
    }

    func dropOldest() {
        allocatedBytes -= segments[0].capacity
        segments.removeFirst()
        first += 1
        if segments.isEmpty { recordsInLast = 0 }
    }

    func removeAll() {
        segments = []
        first = 0
        recordsInLast = 0
        allocatedBytes = 0
    }

    /// The hash of the id of the record at `location`, as the id index keys it.
    func idHash(at location: UInt64) -> Int {
        withRecord(at: location) { PackedLinkRecord.idKey($0) }.hashValue
    }

    /// The hash of the short id of the record at `location`, as the short-id index keys it.
    func shortIDHash(at location: UInt64) -> Int {
        (withRecord(at: location, PackedLinkRecord.shortID) ?? "").hashValue
    }
}
