/// A page's template context as typed values: what Mustache is given (as a `[String: Any]`, `mustacheContext`), and
/// what a compiled template needs without building that dictionary: the context's shape and its strings in order
/// (`shapeAndSlots`). Keys are string literals, so the shape can name a key by its literal's address.
struct TemplateObject {
    /// The keys and their values, in the order they were set; each key once.
    private(set) var entries: [(key: StaticString, value: TemplateValue)] = []

    /// An empty object with room for `capacity` entries.
    init(capacity: Int = 0) { entries.reserveCapacity(capacity) }

    /// Adds `key` with `value`. A key is set at most once per object (a page builder decides each value first).
    mutating func set(_ key: StaticString, _ value: TemplateValue) { entries.append((key: key, value: value)) }

    /// Adds `key` with a string, or nothing when `value` is nil (Mustache sees no key).
    mutating func set(_ key: StaticString, _ value: String?) {
        if let value { entries.append((key: key, value: .string(value))) }
    }

    /// Adds `key` with a bool.
    mutating func set(_ key: StaticString, _ value: Bool) { entries.append((key: key, value: .bool(value))) }

    /// The context Mustache renders: each object a `[String: Any]`, each list an `[Any]`, strings and bools as they
    /// are. `substitutes`, when given, replaces the non-empty strings, one for one in `shapeAndSlots`' slot order
    /// (how a compiled template renders its marker and probe contexts); it must have one string per slot.
    func mustacheContext(substituting substitutes: [String]? = nil) -> [String: Any] {
        var next = 0
        return mustacheObject(substituting: substitutes, next: &next)
    }

    /// The object as Mustache takes it (see `mustacheContext(substituting:)`); `next` counts the slots passed.
    fileprivate func mustacheObject(substituting substitutes: [String]?, next: inout Int) -> [String: Any] {
        var object: [String: Any] = .init(minimumCapacity: entries.count)
        for (key, value) in entries {
            object[key.description] = value.mustacheValue(substituting: substitutes, next: &next)
        }
        return object
    }

    /// The context's shape (which keys are present; each bool; whether each string is empty; each list's length and
    /// its elements' shapes) and its non-empty strings (the slots), in one depth-first walk in entry order: the order
    /// `mustacheContext(substituting:)` replaces them in.
    func shapeAndSlots() -> (shape: TemplateShape, slots: [String]) {
        var words: [UInt] = []
        words.reserveCapacity(2 * entries.count + 16)
        var slots: [String] = []
        slots.reserveCapacity(entries.count + 8)
        record(into: &words, slots: &slots)
        return (TemplateShape(words: words), slots)
    }

    /// Records the object: its entry count, then per entry its key (`identity`) and its value (`TemplateValue.record`).
    fileprivate func record(into words: inout [UInt], slots: inout [String]) {
        words.append(UInt(entries.count))
        for (key, value) in entries {
            let (identity, keyKind) = Self.identity(of: key)
            words.append(identity)
            value.record(into: &words, slots: &slots, keyKind: keyKind)
        }
    }

    /// A key literal's identity: its address and (in `keyKind`, beside the value's kind) its length — one address and
    /// length always hold one text; two literals of one text may have two addresses, which only makes two shapes of
    /// one —, or a one-scalar literal's scalar, flagged in `keyKind`.
    private static func identity(of key: StaticString) -> (identity: UInt, keyKind: UInt) {
        key.hasPointerRepresentation
            ? (UInt(bitPattern: key.utf8Start), UInt(key.utf8CodeUnitCount) << 8)
            : (UInt(key.unicodeScalar.value), 0x80)
    }
}

/// One value of a `TemplateObject`.
enum TemplateValue {
    /// A string: shown escaped (`{{x}}`) or raw (`{{{x}}}`); an empty one is part of the shape, not a slot.
    case string(String)
    /// A bool: part of the shape.
    case bool(Bool)
    /// A nested object (`{{#preview}}…{{/preview}}`).
    case object(TemplateObject)
    /// A list (`{{#badges}}…{{/badges}}`): its length and its elements' shapes are part of the shape.
    case list([TemplateValue])

    /// Kind of an empty string, in the low bits of its shape word (the key's length and flag are above them).
    fileprivate static let emptyString: UInt = 1
    /// Kind of a non-empty string: a slot.
    fileprivate static let slot: UInt = 2
    /// Kind of `false`.
    fileprivate static let falseBool: UInt = 3
    /// Kind of `true`.
    fileprivate static let trueBool: UInt = 4
    /// Kind of an object; its entries follow.
    fileprivate static let object: UInt = 5
    /// Kind of a list; its length and elements follow.
    fileprivate static let list: UInt = 6

    /// Records the value: one word, its kind with `keyKind` (its key's length and flag; 0 in a list), then an object's
    /// entries or a list's length and elements; a non-empty string is added to `slots`.
    fileprivate func record(into words: inout [UInt], slots: inout [String], keyKind: UInt = 0) {
        switch self {
        case .string(let string):
            if string.isEmpty {
                words.append(keyKind | Self.emptyString)
            } else {
                words.append(keyKind | Self.slot)
                slots.append(string)
            }
        case .bool(let bool):
            words.append(keyKind | (bool ? Self.trueBool : Self.falseBool))
        case .object(let object):
            words.append(keyKind | Self.object)
            object.record(into: &words, slots: &slots)
        case .list(let elements):
            words.append(keyKind | Self.list)
            words.append(UInt(elements.count))
            for element in elements { element.record(into: &words, slots: &slots) }
        }
    }

    /// The value as Mustache takes it; a non-empty string is replaced by the next of `substitutes` when given.
    fileprivate func mustacheValue(substituting substitutes: [String]?, next: inout Int) -> Any {
        switch self {
        case .string(let string):
            guard !string.isEmpty, let substitutes else { return string }
            defer { next += 1 }
            return substitutes[next]
        case .bool(let bool):
            return bool
        case .object(let object):
            return object.mustacheObject(substituting: substitutes, next: &next)
        case .list(let elements):
            return elements.map { $0.mustacheValue(substituting: substitutes, next: &next) } as [Any]
        }
    }
}

/// A context's shape (`TemplateObject.shapeAndSlots`): two contexts of one shape differ only in their non-empty
/// strings, so a template renders them to the same text around those strings.
struct TemplateShape: Hashable, Sendable {
    /// The walk's words: key identities and value kinds, list lengths.
    let words: [UInt]
}
