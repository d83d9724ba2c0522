import NIOCore

/// The head of one HTTP/1.1 request at the front of a connection's bytes: where it ends, how long its body is, and
/// where the parts the fast path reads are (byte offsets from the front). `package` for the fuzz targets.
package struct ScannedHead: Equatable {
    /// GET, POST, or any other method (which the fast path never answers, but delimits to hand it on).
    package enum Method: Equatable {
        case get, post, other
    }

    /// The method.
    package var method: Method
    /// The request target (`/s/…?…`).
    package var target: Range<Int>
    /// The value of the `Host` field (surrounding whitespace trimmed), as Hummingbird reads the authority.
    package var host: Range<Int>?
    /// The value of the `User-Agent` field, and how many there were (several are joined by Hummingbird).
    package var userAgent: Range<Int>?
    package var userAgentCount = 0
    /// The value of the `Referer` field, and how many there were (several are joined by Hummingbird).
    package var referer: Range<Int>?
    package var refererCount = 0
    /// The value of the `Content-Type` field, and how many there were.
    package var contentType: Range<Int>?
    package var contentTypeCount = 0
    /// The value of the `Forwarded` field, and how many there were (read only from a trusted proxy).
    package var forwarded: Range<Int>?
    package var forwardedCount = 0
    /// The value of the `X-Forwarded-For` field, and how many there were (read only from a trusted proxy).
    package var xForwardedFor: Range<Int>?
    package var xForwardedForCount = 0
    /// The body's length (`Content-Length`, 0 without one).
    package var contentLength = 0
    /// The head's length, blank line included: the body starts here.
    package var headLength = 0

    /// The request's length, head and body.
    package var length: Int { headLength + contentLength }
}

/// Reads the head of the HTTP/1.1 request at the front of a connection's bytes — strictly, and only the plain
/// kind: `METHOD SP origin-form SP HTTP/1.1`, `name: value` fields, a body only by `Content-Length`, no
/// `Transfer-Encoding`, `Expect`, `Upgrade`, or `Connection` other than `keep-alive`. Anything else (including what
/// NIO's decoder would refuse) is `unsupported`, and the connection's bytes go to NIO's decoder from then on: this
/// reader may refuse what NIO accepts, never the reverse. `package` for the fuzz targets.
package enum RequestScanner {
    /// What the front of the bytes holds.
    package enum Result: Equatable {
        /// A complete head (the body may still be arriving).
        case head(ScannedHead)
        /// The start of a head: more bytes are needed.
        case incomplete
        /// Not a request this reader reads (see above).
        case unsupported
    }

    /// The longest head read: past it, NIO's decoder (and its limits) decides.
    package static let maxHeadBytes = 16 * 1024
    /// The most header fields read.
    static let maxFields = 100

    /// Reads the head at the front of `bytes`.
    static func scan(_ bytes: ByteBuffer) -> Result {
        bytes.withUnsafeReadableBytes { scan(UnsafeRawBufferPointer($0)) }
    }

    /// Reads the head at the front of `p`.
    package static func scan(_ p: UnsafeRawBufferPointer) -> Result {
        let result = scanHead(p)
        if case .incomplete = result, p.count >= maxHeadBytes { return .unsupported }
        return result
    }

    /// Where a head being received ends, as far as the bytes searched so far tell.
    package enum HeadEnd: Equatable {
        /// Just past the blank line that ends the head.
        case found(Int)
        /// Not in the bytes yet: search again from `searched` when more come.
        case notYet(searched: Int)
        /// A bare LF or a head longer than `maxHeadBytes`: `scan` decides (it will not read it).
        case unreadable
    }

    /// Searches `p` for the end of the head at its front, from `start` on: the bytes before `start` were searched
    /// by an earlier call, so a head arriving a few bytes at a time is searched once in all, not again from byte 0
    /// on every read (`scan` runs once more when the end is found).
    package static func findHeadEnd(_ p: UnsafeRawBufferPointer, from start: Int) -> HeadEnd {
        let n = min(p.count, maxHeadBytes)
        var i = max(0, start)
        while i < n {
            if p[i] == lf {
                guard i > 0, p[i - 1] == cr else { return .unreadable }
                if i >= 3, p[i - 2] == lf, p[i - 3] == cr { return .found(i + 1) }
            }
            i += 1
        }
        return p.count >= maxHeadBytes ? .unreadable : .notYet(searched: n)
    }

    private static let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n"), sp = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

    private static func scanHead(_ p: UnsafeRawBufferPointer) -> Result {
        let n = min(p.count, maxHeadBytes)
        var i = 0
        // Method: a token, then one space.
        while i < n, isTokenByte(p[i]) { i += 1 }
        guard i < n else { return .incomplete }
        guard p[i] == sp, i > 0 else { return .unsupported }
        guard let method = Self.method(p, length: i) else { return .unsupported }
        i += 1
        // Target: origin form, visible ASCII.
        let targetStart = i
        guard i < n else { return .incomplete }
        guard p[i] == UInt8(ascii: "/") else { return .unsupported }
        while i < n, (0x21...0x7E).contains(p[i]) { i += 1 }
        guard i < n else { return .incomplete }
        guard p[i] == sp else { return .unsupported }
        let target = targetStart..<i
        i += 1
        // Version.
        for expected in "HTTP/1.1\r\n".utf8 {
            guard i < n else { return .incomplete }
            guard p[i] == expected else { return .unsupported }
            i += 1
        }
        var head = ScannedHead(method: method, target: target)
        var fields = 0
        var sawContentLength = false
        while true {
            guard i < n else { return .incomplete }
            if p[i] == cr {
                guard i + 1 < n else { return .incomplete }
                guard p[i + 1] == lf else { return .unsupported }
                head.headLength = i + 2
                return .head(head)
            }
            fields += 1
            guard fields <= maxFields else { return .unsupported }
            // Name: a token straight up to the colon (no whitespace before it; no obs-fold line).
            let nameStart = i
            while i < n, isTokenByte(p[i]) { i += 1 }
            guard i < n else { return .incomplete }
            guard p[i] == UInt8(ascii: ":"), i > nameStart else { return .unsupported }
            let name = nameStart..<i
            i += 1
            while i < n, p[i] == sp || p[i] == tab { i += 1 }
            let valueStart = i
            var valueEnd = i
            while i < n, p[i] != cr {
                let byte = p[i]
                guard byte == tab || byte >= 0x20 && byte != 0x7F else { return .unsupported }
                i += 1
                if byte != sp && byte != tab { valueEnd = i }
            }
            guard i + 1 < n else { return .incomplete }
            guard p[i + 1] == lf else { return .unsupported }
            i += 2
            let value = valueStart..<valueEnd
            switch name.count {
            case 4 where equalsLowercased(p, name, "host"):
                guard head.host == nil else { return .unsupported }  // two Host fields: a bad request, NIO's to answer
                head.host = value
            case 10 where equalsLowercased(p, name, "user-agent"):
                head.userAgent = head.userAgent ?? value
                head.userAgentCount += 1
            case 7 where equalsLowercased(p, name, "referer"):
                head.referer = head.referer ?? value
                head.refererCount += 1
            case 12 where equalsLowercased(p, name, "content-type"):
                head.contentType = head.contentType ?? value
                head.contentTypeCount += 1
            case 14 where equalsLowercased(p, name, "content-length"):
                // Digits only, nothing after them (NIO refuses trailing whitespace here).
                guard !sawContentLength, (1...9).contains(value.count), value.upperBound == i - 2,
                      value.allSatisfy({ (0x30...0x39).contains(p[$0]) })
                else { return .unsupported }
                sawContentLength = true
                head.contentLength = value.reduce(0) { $0 * 10 + Int(p[$1] - 0x30) }
            case 9 where equalsLowercased(p, name, "forwarded"):
                head.forwarded = head.forwarded ?? value
                head.forwardedCount += 1
            case 15 where equalsLowercased(p, name, "x-forwarded-for"):
                head.xForwardedFor = head.xForwardedFor ?? value
                head.xForwardedForCount += 1
            case 10 where equalsLowercased(p, name, "connection"):
                guard equalsLowercased(p, value, "keep-alive") else { return .unsupported }
            case 17 where equalsLowercased(p, name, "transfer-encoding"): return .unsupported
            case 6 where equalsLowercased(p, name, "expect"): return .unsupported
            case 7 where equalsLowercased(p, name, "upgrade"): return .unsupported
            default: break
            }
        }
    }

    /// GET, POST, or one of the other methods a plain request may have (NIO's decoder refuses methods it does not
    /// know; CONNECT's target is not a path); nil for any other.
    private static func method(_ p: UnsafeRawBufferPointer, length: Int) -> ScannedHead.Method? {
        let range = 0..<length
        if equals(p, range, "GET") { return .get }
        if equals(p, range, "POST") { return .post }
        for other: StaticString in ["PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"] where equals(p, range, other) { return .other }
        return nil
    }

    /// RFC 9110's `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Whether the bytes in `range` are `lowercase` (ASCII, any case).
    private static func equalsLowercased(_ p: UnsafeRawBufferPointer, _ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        guard range.count == lowercase.utf8CodeUnitCount else { return false }
        return (0..<range.count).allSatisfy { offset in
            let byte = p[range.lowerBound + offset]
            return ((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte) == lowercase.utf8Start[offset]
        }
    }

    /// Whether the bytes in `range` are exactly `literal`.
    static func equals(_ p: UnsafeRawBufferPointer, _ range: Range<Int>, _ literal: StaticString) -> Bool {
        range.count == literal.utf8CodeUnitCount && (0..<range.count).allSatisfy { p[range.lowerBound + $0] == literal.utf8Start[$0] }
    }
}
