import Foundation

/// An incoming URL split and normalized for matching (see docs/matching.md for every rule). `package` for the fuzz
/// targets.
package struct IncomingURL: Sendable {
    /// Lowercased scheme.
    package var scheme: String
    /// Lowercased host ("" for `coinapp:///x`).
    package var host: String
    /// Port, if written.
    package var port: Int?
    /// Path segments, each percent-decoded once; empty segments dropped (a custom scheme's anywhere, an http(s)
    /// path's last one: its trailing `/`). For a custom scheme the host comes first.
    package var segments: [String]
    /// Query items, percent-decoded once; later duplicates are ignored.
    package var query: [String: String]
    /// How each segment of an http(s) URL is written (`Spelling`), parallel to `segments`; nil when every one is
    /// canonical — always for a custom scheme, and the common case (no array is made for it).
    package var spellings: [Spelling]?
    /// The first segment of an http(s) URL not written canonically, as written (for messages).
    package var firstNonCanonical: String?
    /// The path as written when an http(s) path has an empty segment (`/tab//recents`, `//x`, `/x//`): such a URL
    /// does not resolve (`nonCanonicalPath`), as iOS does not open it in the app. nil otherwise.
    package var emptySegmentPath: String?

    /// How a path segment of an http(s) URL is written, against the spelling the apple-app-site-association gives a
    /// literal with the same decoded value (`AppManifest.appleEncoded`: unreserved characters and the sub-delimiters
    /// but `*`, `:` and `@` as they are, every other byte as `%XX`, hex uppercase). iOS compares its patterns with the
    /// path as written, so only a canonical segment may match a literal or a `uuid` param (`RouteTrie.match`).
    package enum Spelling: UInt8, Sendable {
        /// Written exactly as `appleEncoded` writes its decoded value.
        case canonical
        /// Canonical but for lowercase hex digits in an escape (`caf%c3%a9`): what `caseSensitive: false` folds.
        case hexCase
        /// Anything else: an escape of a character written as it is (`t%61b`, `%2D`), or a byte that the canonical
        /// form escapes written raw (`*`, a space, a non-ASCII byte).
        case other
    }

    /// Whether the scheme is http(s).
    package var isWeb: Bool { scheme == "https" || scheme == "http" }

    /// Parses `text`; never traps on any input. Works on the UTF-8 bytes with offsets (every delimiter is ASCII);
    /// allocates only the segments, the query and what needs lowercasing or decoding.
    package static func parse(_ text: String, maxBytes: Int) -> Result<IncomingURL, ResolutionProblem> {
        guard text.utf8.count <= maxBytes else {
            return .failure(.init(.urlTooLong, "URL is \(text.utf8.count) bytes, over the cap of \(maxBytes)"))
        }
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// Parses the URL's bytes step by step: scheme, where the path ends and the query starts, host and port, path
    /// segments, query items. The first problem found is the result.
    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Result<IncomingURL, ResolutionProblem> {
        do throws(ResolutionProblem) {
            let colon = try schemeEnd(bytes)
            let authorityStart = colon + 3
            let (pathEnd, queryRange) = pathEndAndQuery(bytes, from: authorityStart)
            let authorityEnd = find(UInt8(ascii: "/"), in: authorityStart..<pathEnd, of: bytes) ?? pathEnd
            let (hostRange, port) = try hostAndPort(bytes, authority: authorityStart..<authorityEnd)
            let lowerScheme = lowercasedASCII(bytes, 0..<colon)
            let isWeb = lowerScheme == "https" || lowerScheme == "http"
            let host = try host(bytes, hostRange, isWeb: isWeb)
            var url = IncomingURL(scheme: lowerScheme, host: isWeb ? host : "", port: port, segments: [], query: [:])
            try url.readPath(bytes, host: hostRange, isWeb: isWeb, path: authorityEnd..<pathEnd)
            url.query = try queryItems(bytes, queryRange)
            return .success(url)
        } catch {
            return .failure(error)
        }
    }

    /// The index of the `:` that ends the scheme: a letter, then letters, digits, `+`, `-` or `.`, and `//` after it.
    private static func schemeEnd(_ bytes: UnsafeBufferPointer<UInt8>) throws(ResolutionProblem) -> Int {
        let end = bytes.count
        guard let colon = find(UInt8(ascii: ":"), in: 0..<end, of: bytes), colon + 2 < end,
              bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else {
            throw ResolutionProblem(.malformedURL, "URL has no scheme (expected scheme://…)")
        }
        guard colon > 0, isAlpha(bytes[0]),
              bytes[0..<colon].allSatisfy({ isAlpha($0) || ($0 >= 48 && $0 <= 57) || $0 == 43 || $0 == 45 || $0 == 46 })
        else {
            throw ResolutionProblem(.malformedURL, "URL scheme '\(string(bytes, 0..<colon))' is not valid")
        }
        return colon
    }

    /// Where the authority and path end (at the `?`, the `#` or the end) and the query's range (empty without a `?`),
    /// from `start` on. Fragments are ignored.
    private static func pathEndAndQuery(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int
    ) -> (pathEnd: Int, query: Range<Int>) {
        let end = bytes.count
        var restEnd = find(UInt8(ascii: "#"), in: start..<end, of: bytes) ?? end
        var queryRange = restEnd..<restEnd
        if let question = find(UInt8(ascii: "?"), in: start..<restEnd, of: bytes) {
            queryRange = (question + 1)..<restEnd
            restEnd = question
        }
        return (restEnd, queryRange)
    }

    /// The host's range in `authority` and the port, if written. User info and IP-literal hosts are refused.
    private static func hostAndPort(
        _ bytes: UnsafeBufferPointer<UInt8>, authority: Range<Int>
    ) throws(ResolutionProblem) -> (host: Range<Int>, port: Int?) {
        let authorityStart = authority.lowerBound
        let authorityEnd = authority.upperBound
        if find(UInt8(ascii: "@"), in: authorityStart..<authorityEnd, of: bytes) != nil {
            throw ResolutionProblem(.userinfoRefused, "URL carries user info ('…@'); links never do")
        }
        if authorityStart < authorityEnd, bytes[authorityStart] == UInt8(ascii: "[") {
            throw ResolutionProblem(.malformedURL, "IP-literal hosts are not link hosts")
        }
        var portColon: Int?
        var index = authorityEnd
        while index > authorityStart {
            index -= 1
            if bytes[index] == UInt8(ascii: ":") { portColon = index; break }
        }
        guard let portColon else { return (authorityStart..<authorityEnd, nil) }
        return (authorityStart..<portColon, try port(bytes, (portColon + 1)..<authorityEnd))
    }

    /// The port written in `digits`: 1 to 5 digits, at most 65535.
    private static func port(_ bytes: UnsafeBufferPointer<UInt8>, _ digits: Range<Int>) throws(ResolutionProblem) -> Int {
        guard !digits.isEmpty, digits.count <= 5, bytes[digits].allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw ResolutionProblem(.malformedURL, "URL port '\(string(bytes, digits))' is not a number")
        }
        let value = bytes[digits].reduce(0) { $0 * 10 + Int($1 - 48) }
        guard value <= 65535 else { throw ResolutionProblem(.malformedURL, "URL port '\(value)' is not a number") }
        return value
    }

    /// The host in `range` as matched: lowercased for http(s) ("" for a custom scheme); a Unicode host (IDN) by its
    /// punycode form, whatever the scheme.
    private static func host(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, isWeb: Bool
    ) throws(ResolutionProblem) -> String {
        var host = isWeb ? lowercasedASCII(bytes, range) : ""
        if !bytes[range].allSatisfy({ $0 < 0x80 }) {
            // IDN: a Unicode host is matched by its punycode form.
            guard let ascii = Punycode.asciiHost(string(bytes, range)) else {
                throw ResolutionProblem(.malformedURL, "host '\(string(bytes, range))' is not a valid internationalized name")
            }
            host = ascii
        }
        return host
    }

    /// Reads the path segments in `path`, each percent-decoded once; for a custom scheme the host (percent-decoded)
    /// comes first and empty segments are dropped. For http(s) a trailing `/` is dropped, an empty segment elsewhere
    /// is noted in `emptySegmentPath`, and each segment's spelling is checked (`spellings`).
    private mutating func readPath(
        _ bytes: UnsafeBufferPointer<UInt8>, host: Range<Int>, isWeb: Bool, path: Range<Int>
    ) throws(ResolutionProblem) {
        segments.reserveCapacity(8)
        if !isWeb, !host.isEmpty {
            guard let decoded = Self.percentDecode(bytes, host) else {
                throw ResolutionProblem(.malformedURL, "bad percent-encoding in '\(Self.string(bytes, host))'")
            }
            segments.append(decoded)
        }
        // An http(s) path starts with `/` (the authority ends at the first one) or is empty.
        var start = path.lowerBound + (isWeb && !path.isEmpty ? 1 : 0)
        while start < path.upperBound {
            let stop = Self.find(UInt8(ascii: "/"), in: start..<path.upperBound, of: bytes) ?? path.upperBound
            if stop > start {
                guard let decoded = Self.percentDecode(bytes, start..<stop) else {
                    throw ResolutionProblem(.malformedURL, "bad percent-encoding in path segment '\(Self.string(bytes, start..<stop))'")
                }
                if isWeb { noteSpelling(Self.spelling(bytes, start..<stop), of: bytes, start..<stop) }
                segments.append(decoded)
            } else if isWeb, emptySegmentPath == nil {
                emptySegmentPath = Self.string(bytes, path)
            }
            start = stop + 1
        }
    }

    /// Records the spelling of the segment about to be appended; makes `spellings` at the first one not canonical.
    private mutating func noteSpelling(_ spelling: Spelling, of bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        if spellings == nil {
            guard spelling != .canonical else { return }
            spellings = Array(repeating: .canonical, count: segments.count)
            firstNonCanonical = Self.string(bytes, range)
        }
        spellings?.append(spelling)
    }

    /// Whether the canonical spelling (`AppManifest.appleEncoded`) carries `byte` as it is: ASCII letters, digits,
    /// `-._~` and `!$&'()+,;=:@`. Two 64-bit masks, bytes 0–63 and 64–127 (AppleAppSiteAssociationTests checks them
    /// against `appleEncoded`).
    static func isRaw(_ byte: UInt8) -> Bool {
        let low: UInt64 = 0x2FFF_7BD2_0000_0000, high: UInt64 = 0x47FF_FFFE_87FF_FFFF
        return byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 && high & (1 << UInt64(byte - 64)) != 0
    }

    /// How the segment in `range` (a valid percent-encoding: already decoded) is written.
    private static func spelling(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Spelling {
        var result = Spelling.canonical
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < range.upperBound else { return .other }
                let high = bytes[index + 1], low = bytes[index + 2]
                guard let value = hexValue(high).flatMap({ h in hexValue(low).map { h << 4 | $0 } }), !isRaw(value) else {
                    return .other
                }
                if high >= 97 || low >= 97 { result = .hexCase }
                index += 3
            } else {
                guard isRaw(byte) else { return .other }
                index += 1
            }
        }
        return result
    }

    /// The query items in `range`, names and values percent-decoded once; a later duplicate name is ignored.
    private static func queryItems(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>
    ) throws(ResolutionProblem) -> [String: String] {
        var query: [String: String] = [:]
        var start = range.lowerBound
        while start < range.upperBound {
            let stop = find(UInt8(ascii: "&"), in: start..<range.upperBound, of: bytes) ?? range.upperBound
            if stop > start {
                let equals = find(UInt8(ascii: "="), in: start..<stop, of: bytes)
                guard let name = percentDecode(bytes, start..<(equals ?? stop)),
                      let value = percentDecode(bytes, (equals.map { $0 + 1 } ?? stop)..<stop)
                else {
                    throw ResolutionProblem(.malformedURL, "bad percent-encoding in query item '\(string(bytes, start..<stop))'")
                }
                if query[name] == nil { query[name] = value }
            }
            start = stop + 1
        }
        return query
    }

    /// The first index of `byte` in `range` of `bytes`, if any.
    private static func find(_ byte: UInt8, in range: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = range.lowerBound
        while index < range.upperBound {
            if bytes[index] == byte { return index }
            index += 1
        }
        return nil
    }

    /// The bytes in `range` decoded as UTF-8 (bad bytes replaced), for messages and Unicode hosts.
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
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
