import Foundation

/// A one-time claim code of a deferred deep link: 22 base64url characters (128 random bits), as linkd makes them
/// when a person without the app follows a link's store button (`docs/deferred-links.md`).
///
/// The app reads it once after install — on Android from the Play Install Referrer (`fromInstallReferrer`), on iOS
/// from what the person copied on the link's page (`fromPasted`) — and trades it for the link's resolution with
/// `LinkdClient.claim(code:state:)`.
public struct ClaimCode: Sendable, Hashable, CustomStringConvertible {
    /// The code's text.
    public let value: String

    /// The name of the install-referrer parameter that carries a code (`linkd_claim=CODE`).
    public static let referrerParameter = "linkd_claim"
    /// Characters in a code.
    public static let length = 22

    /// The code `text` spells, surrounding whitespace aside; nil unless it is 22 base64url characters whose last one
    /// is canonical for 128 bits (`A`, `Q`, `g` or `w`).
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes = Array(trimmed.utf8)
        guard bytes.count == Self.length, bytes.allSatisfy(Self.isBase64URL), let last = bytes.last,
              [UInt8(ascii: "A"), UInt8(ascii: "Q"), UInt8(ascii: "g"), UInt8(ascii: "w")].contains(last)
        else { return nil }
        value = trimmed
    }

    /// The code in an Android install referrer (what `ReferrerDetails.getInstallReferrer()` returns): the value of
    /// `linkd_claim` among the referrer's `&`-separated parameters (`utm_source=google-play&linkd_claim=…`),
    /// percent-decoded; also when the whole referrer arrives percent-encoded once more (`linkd_claim%3D…`). Nil when
    /// the referrer carries no well-formed code (an organic install: the app opens as usual).
    public static func fromInstallReferrer(_ referrer: String) -> ClaimCode? {
        var text = referrer.trimmingCharacters(in: .whitespacesAndNewlines)
        // Decoded at most twice: the store URL's `referrer=` value is encoded once, and some paths encode it again.
        for _ in 0..<3 {
            if let code = code(inQuery: text) { return code }
            guard let decoded = formDecoded(text), decoded != text else { return nil }
            text = decoded
        }
        return nil
    }

    /// The code in what a person pasted on first launch (iOS: the page of the link's App Store button offers it to
    /// copy): a claim link (a URL with `linkd_claim=CODE` in its query or fragment, or ending in `/CODE`), such a link
    /// inside other text, or the bare code. Nil when there is none (the pasteboard held something else).
    public static func fromPasted(_ text: String) -> ClaimCode? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count <= 4096 else { return nil }
        if let code = ClaimCode(trimmed) { return code }
        for word in trimmed.split(whereSeparator: { $0.isWhitespace || $0 == "\"" || $0 == "<" || $0 == ">" }) {
            if let code = code(inLink: String(word)) { return code }
        }
        return nil
    }

    /// The code's text.
    public var description: String { value }

    /// The code a URL carries: `linkd_claim` in its query or fragment, else its last path segment.
    private static func code(inLink text: String) -> ClaimCode? {
        guard let components = URLComponents(string: text), components.scheme != nil else { return ClaimCode(text) }
        if let query = components.percentEncodedQuery, let code = code(inQuery: query) { return code }
        if let fragment = components.percentEncodedFragment, let code = code(inQuery: fragment) { return code }
        let last = components.percentEncodedPath.split(separator: "/").last.map(String.init) ?? ""
        return ClaimCode(last.removingPercentEncoding ?? last)
    }

    /// The code in `name=value&…` form text.
    private static func code(inQuery text: String) -> ClaimCode? {
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, formDecoded(String(parts[0])) == referrerParameter else { continue }
            return formDecoded(String(parts[1])).flatMap(ClaimCode.init)
        }
        return nil
    }

    /// Form decoding: `+` is a space, then percent-decoding; nil for a malformed escape.
    private static func formDecoded(_ text: String) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
