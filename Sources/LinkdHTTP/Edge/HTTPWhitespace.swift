/// HTTP's optional whitespace (RFC 9110, section 5.6.3): the spaces and horizontal tabs a field value may have around
/// its parts.
package enum HTTPWhitespace {
    /// `text` without the spaces and tabs at either end, cut as bytes (a mark joined to a space is kept: it is no
    /// whitespace).
    package static func trimmed(_ text: Substring) -> Substring {
        let bytes = text.utf8
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, isBlank(bytes[start]) { start = bytes.index(after: start) }
        while end > start, isBlank(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return text[start..<end]
    }
}
