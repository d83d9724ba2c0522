import Foundation
import LinkStore
import TokenSigning

/// The opaque `cursor` of `GET /v1/links`: the place in the listing order after which the next page starts — the
/// last link's creation time (microseconds) and id — as `l1.` + base64url(`<microseconds>.<id>`). Only text this
/// type made reads back; anything else is a bad cursor.
enum LinkCursor {
    /// The longest cursor text read (a cursor this type makes is about 70 characters).
    static let maxLength = 200
    private static let prefix = "l1."

    /// The cursor text of `position`.
    static func text(_ position: LinkPosition) -> String {
        let payload = Data("\(position.createdMicroseconds).\(position.id)".utf8).base64EncodedString()
        return prefix + payload.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The position `text` names; nil for text this type did not make (bad base64url, a time out of range, an id
    /// that is not 32 lowercase hex characters).
    static func position(_ text: String) -> LinkPosition? {
        guard text.utf8.count <= maxLength, text.hasPrefix(prefix) else { return nil }
        let payload = text.dropFirst(prefix.count)
        guard !payload.isEmpty, payload.utf8.allSatisfy({ $0.isBase64URL }) else { return nil }
        var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let decoded = String(data: data, encoding: .utf8) else { return nil }
        let parts = decoded.split(separator: ".", omittingEmptySubsequences: false)
        // 0 ... year 9999, in microseconds.
        guard parts.count == 2, let microseconds = Int64(parts[0]), (0...253_402_300_799_000_000).contains(microseconds),
              LinkID(hex: String(parts[1]))?.hex == String(parts[1])
        else { return nil }
        let position = LinkPosition(createdMicroseconds: microseconds, id: String(parts[1]))
        // Canonical only: one position, one text (no padding bits or signs smuggled in).
        return self.text(position) == text ? position : nil
    }
}

private extension UInt8 {
    var isBase64URL: Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || self == UInt8(ascii: "-") || self == UInt8(ascii: "_")
    }
}
