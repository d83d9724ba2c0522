/// HTTP's optional whitespace (RFC 9110, section 5.6.3): the spaces and horizontal tabs a field value may have around
/// its parts.
package enum HTTPWhitespace {
    /// `text` without the spaces and tabs at either end.
    package static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.utf8.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { text = text.dropFirst() }
        while let last = text.utf8.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { text = text.dropLast() }
        return text
    }
}
