import Foundation

/// An incoming URL split and normalized for matching (see docs/matching.md for every rule).
struct IncomingURL: Sendable {
    /// Lowercased scheme.
    var scheme: String
    /// Lowercased host ("" for `coinapp:///x`).
    var host: String
    /// Port, if written.
    var port: Int?
    /// Path segments, each percent-decoded once; empty segments dropped. For a custom scheme the host comes first.
    var segments: [String]
    /// Query items, percent-decoded once; later duplicates are ignored.
    var query: [String: String]

    /// Whether the scheme is http(s).
    var isWeb: Bool { scheme == "https" || scheme == "http" }

    /// Parses `text`; never traps on any input. Works on the UTF-8 bytes with offsets (every delimiter is ASCII);
    /// allocates only the segments, the query and what needs lowercasing or decoding.
    static func parse(_ text: String, maxBytes: Int) -> Result<IncomingURL, ResolutionProblem> {
        guard text.utf8.count <= maxBytes else {
            return .failure(.init(.urlTooLong, "URL is \(text.utf8.count) bytes, over the cap of \(maxBytes)"))
        }
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Result<IncomingURL, ResolutionProblem> {
        func string(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        func find(_ byte: UInt8, in range: Range<Int>) -> Int? {
            var index = range.lowerBound
            while index < range.upperBound {
                if bytes[index] == byte { return index }
                index += 1
            }
            return nil
        }
        let end = bytes.count
        guard let colon = find(UInt8(ascii: ":"), in: 0..<end), colon + 2 < end,
              bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else {
            return .failure(.init(.malformedURL, "URL has no scheme (expected scheme://…)"))
        }
        guard colon > 0, isAlpha(bytes[0]),
              bytes[0..<colon].allSatisfy({ isAlpha($0) || ($0 >= 48 && $0 <= 57) || $0 == 43 || $0 == 45 || $0 == 46 })
        else {
            return .failure(.init(.malformedURL, "URL scheme '\(string(0..<colon))' is not valid"))
        }
        var restEnd = find(UInt8(ascii: "#"), in: (colon + 3)..<end) ?? end   // fragments are ignored
        var queryRange = restEnd..<restEnd
        if let question = find(UInt8(ascii: "?"), in: (colon + 3)..<restEnd) {
            queryRange = (question + 1)..<restEnd
            restEnd = question
        }
        let authorityStart = colon + 3
        let authorityEnd = find(UInt8(ascii: "/"), in: authorityStart..<restEnd) ?? restEnd
        var hostEnd = authorityEnd
        if find(UInt8(ascii: "@"), in: authorityStart..<authorityEnd) != nil {
            return .failure(.init(.userinfoRefused, "URL carries user info ('…@'); links never do"))
        }
        if authorityStart < authorityEnd, bytes[authorityStart] == UInt8(ascii: "[") {
            return .failure(.init(.malformedURL, "IP-literal hosts are not link hosts"))
        }
        var port: Int?
        var portColon: Int?
        var index = authorityEnd
        while index > authorityStart {
            index -= 1
            if bytes[index] == UInt8(ascii: ":") { portColon = index; break }
        }
        if let portColon {
            let digits = (portColon + 1)..<authorityEnd
            guard !digits.isEmpty, digits.count <= 5, bytes[digits].allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                return .failure(.init(.malformedURL, "URL port '\(string(digits))' is not a number"))
            }
            let value = bytes[digits].reduce(0) { $0 * 10 + Int($1 - 48) }
            guard value <= 65535 else { return .failure(.init(.malformedURL, "URL port '\(value)' is not a number")) }
            port = value
            hostEnd = portColon
        }
        let lowerScheme = lowercasedASCII(bytes, 0..<colon)
        let isWeb = lowerScheme == "https" || lowerScheme == "http"
        let authority = authorityStart..<hostEnd
        var host = isWeb ? lowercasedASCII(bytes, authority) : ""
        if !bytes[authority].allSatisfy({ $0 < 0x80 }) {
            // IDN: a Unicode host is matched by its punycode form.
            guard let ascii = Punycode.asciiHost(string(authority)) else {
                return .failure(.init(.malformedURL, "host '\(string(authority))' is not a valid internationalized name"))
            }
            host = ascii
        }
        var segments: [String] = []
        segments.reserveCapacity(8)
        if !isWeb, !authority.isEmpty {
            guard let decoded = percentDecode(bytes, authority) else {
                return .failure(.init(.malformedURL, "bad percent-encoding in '\(string(authority))'"))
            }
            segments.append(decoded)
        }
        var start = authorityEnd
        while start < restEnd {
            let stop = find(UInt8(ascii: "/"), in: start..<restEnd) ?? restEnd
            if stop > start {
                guard let decoded = percentDecode(bytes, start..<stop) else {
                    return .failure(.init(.malformedURL, "bad percent-encoding in path segment '\(string(start..<stop))'"))
                }
                segments.append(decoded)
            }
            start = stop + 1
        }
        var query: [String: String] = [:]
        start = queryRange.lowerBound
        while start < queryRange.upperBound {
            let stop = find(UInt8(ascii: "&"), in: start..<queryRange.upperBound) ?? queryRange.upperBound
            if stop > start {
                let equals = find(UInt8(ascii: "="), in: start..<stop)
                guard let name = percentDecode(bytes, start..<(equals ?? stop)),
                      let value = percentDecode(bytes, (equals.map { $0 + 1 } ?? stop)..<stop)
                else {
                    return .failure(.init(.malformedURL, "bad percent-encoding in query item '\(string(start..<stop))'"))
                }
                if query[name] == nil { query[name] = value }
            }
            start = stop + 1
        }
        return .success(IncomingURL(scheme: lowerScheme, host: isWeb ? host : "", port: port,
                                    segments: segments, query: query))
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
    }

    /// The bytes in `range` with ASCII letters lowercased (other bytes kept).
    private static func lowercasedASCII(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        guard slice.contains(where: { $0 >= 65 && $0 <= 90 }) else { return String(decoding: slice, as: UTF8.self) }
        return String(decoding: slice.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// `percentDecode` over a byte range; nil for a bad escape or bytes that are not UTF-8.
    private static func percentDecode(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        guard slice.contains(UInt8(ascii: "%")) else { return String(decoding: slice, as: UTF8.self) }
        return percentDecode(Substring(String(decoding: slice, as: UTF8.self)))
    }

    /// Decodes `%XX` once; nil for a bad escape or bytes that are not UTF-8. `+` stays `+`.
    static func percentDecode(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }
}
