import NIOCore
import TokenSigning

/// What a request costs in per-client rate-limit tokens: 1 for most, more for the expensive ones, so that a client
/// cannot spend the server's CPU at the price of its cheapest request.
///
/// Measured costs (docs/operating.md, "Limits"): checking an Ed25519 share token is a signature verification, tens of
/// microseconds, where an HMAC-SHA256 token takes about one; a calendar file is parsed whole, up to 1 MiB.
enum RequestCost {
    /// What a request that checks an Ed25519 token costs in all.
    static let ed25519Token: Double = 5
    /// A calendar body costs one token more per this many bytes.
    static let calendarBytesPerToken = 16 * 1024

    /// A `.ics` body's cost: 1, plus 1 per 16 KiB (a 1 MiB file: 65).
    static func calendar(bodyBytes: Int) -> Double {
        1 + Double(bodyBytes / calendarBytesPerToken)
    }

    /// The cost of a request whose target and body are `parts`: `ed25519Token` when one of them carries an Ed25519
    /// share token (a run of exactly 126 base64url characters; `%XX` escapes end a run), else 1.
    static func token(in parts: UnsafeRawBufferPointer...) -> Double {
        parts.contains(where: carriesEd25519Token) ? ed25519Token : 1
    }

    private static let ed25519Length = TokenSuite.ed25519.encodedLength

    private static func carriesEd25519Token(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var run = 0
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                run += 1
            default:
                if run == ed25519Length { return true }
                run = 0
                if byte == UInt8(ascii: "%") { i += 2 }
            }
            i += 1
        }
        return run == ed25519Length
    }
}
