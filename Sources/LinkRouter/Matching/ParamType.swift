/// Type of a path or query param.
public enum ParamType: String, Sendable, CaseIterable, Codable {
    /// Any non-empty segment.
    case string
    /// Optional `-`, then 1–18 ASCII digits.
    case int
    /// 8-4-4-4-12 hex digits, any case.
    case uuid
    /// `[a-z0-9]+(-[a-z0-9]+)*`.
    case slug

    /// Whether `value` is valid for the type.
    public func accepts(_ value: Substring) -> Bool {
        if let result = value.utf8.withContiguousStorageIfAvailable({ accepts(bytes: $0) }) { return result }
        return Array(value.utf8).withUnsafeBufferPointer { accepts(bytes: $0) }
    }

    /// `accepts` over the value's UTF-8 bytes.
    private func accepts(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.isEmpty { return false }
        switch self {
        case .string:
            return true
        case .int:
            let start = bytes[0] == UInt8(ascii: "-") ? 1 : 0
            let count = bytes.count - start
            guard count > 0, count <= 18 else { return false }
            for index in start..<bytes.count where !(bytes[index] >= 48 && bytes[index] <= 57) { return false }
            return true
        case .uuid:
            guard bytes.count == 36 else { return false }
            for index in 0..<36 {
                let byte = bytes[index]
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    if byte != UInt8(ascii: "-") { return false }
                } else if !Self.isHex(byte) {
                    return false
                }
            }
            return true
        case .slug:
            var previousDash = true
            for byte in bytes {
                if byte == UInt8(ascii: "-") {
                    if previousDash { return false }
                    previousDash = true
                } else if (byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57) {
                    previousDash = false
                } else {
                    return false
                }
            }
            return !previousDash
        }
    }

    /// Whether some value is valid for both types (they would make two patterns ambiguous).
    public func overlaps(_ other: ParamType) -> Bool {
        if self == other || self == .string || other == .string { return true }
        let pair: Set<ParamType> = [self, other]
        // "12" is an int and a slug; a lowercase uuid is a slug. int and uuid never overlap.
        return pair == [.int, .slug] || pair == [.uuid, .slug]
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102)
    }
}
