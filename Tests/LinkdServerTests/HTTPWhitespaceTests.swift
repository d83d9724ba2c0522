import Testing

@testable import LinkdHTTP

/// HTTP's optional whitespace, trimmed as bytes around the forwarding headers' parts and an API key.
@Suite struct HTTPWhitespaceTests {
    @Test("spaces and tabs go at either end, nothing else does: not inner blanks, not a mark joined to a space")
    func trimsSpacesAndTabsOnly() {
        let cases: [(String, String)] = [
            (" \t key \t", "key"), ("key", "key"), ("", ""), (" \t ", ""), ("a b", "a b"), ("\u{A0}x\u{A0}", "\u{A0}x\u{A0}"),
            ("\r\nx", "\r\nx"), (" \u{301}x", "\u{301}x"), ("x \u{301}", "x \u{301}"), ("  é\t", "é"),
        ]
        for (input, expected) in cases {
            #expect(String(HTTPWhitespace.trimmed(Substring(input))) == expected, "\(input.debugDescription)")
        }
        let padded = Substring("[ key ]").dropFirst().dropLast()
        #expect(HTTPWhitespace.trimmed(padded) == "key", "a slice of a longer string")
    }
}
