/// Text that is safe to put in a log line or on a terminal: the characters that could forge a line, move the cursor,
/// colour the output or reorder what a reader sees, found and escaped. The API refuses them in what it stores
/// (`firstUnsafe`), the daemon's log and the admin CLI's tables escape them (`escaped`), so one definition serves all.
public enum PrintableText {
    /// Whether `scalar` is unsafe: a control character (C0 with tab, newline and carriage return, DEL, C1), a line or
    /// paragraph separator, or a format character (bidirectional overrides and isolates, zero-width spaces, the
    /// byte-order mark) other than the joiners and tag characters that emoji are made of.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII without the Unicode tables (most text is ASCII): its unsafe characters are C0 and DEL.
        if scalar.isASCII { return scalar.value < 0x20 || scalar.value == 0x7F }
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator:
            return true
        case .format:
            // ZWNJ, ZWJ (emoji sequences) and the tag characters of subdivision flags are kept.
            return !(scalar == "\u{200C}" || scalar == "\u{200D}" || (0xE0020...0xE007F).contains(scalar.value))
        default:
            return false
        }
    }

    /// The first unsafe character of `text` and its position (0-based, in Unicode scalars); nil when there is none.
    public static func firstUnsafe(in text: String) -> (scalar: Unicode.Scalar, offset: Int)? {
        for (offset, scalar) in text.unicodeScalars.enumerated() where isUnsafe(scalar) { return (scalar, offset) }
        return nil
    }

    /// `text` with every unsafe character written as an escape: `\n`, `\r`, `\t`, else `\u{HEX}`.
    public static func escaped(_ text: String) -> String {
        guard firstUnsafe(in: text) != nil else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isUnsafe(scalar): out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// How a refusal names a character: `U+000A`.
    public static func name(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
