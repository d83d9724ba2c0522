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

    /// Parses `text`; never traps on any input.
    static func parse(_ text: String, maxBytes: Int) -> Result<IncomingURL, ResolutionProblem> {
        guard text.utf8.count <= maxBytes else {
            return .failure(.init(.urlTooLong, "URL is \(text.utf8.count) bytes, over the cap of \(maxBytes)"))
        }
        // A plain scan: Foundation's range(of:) is slow on Linux.
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else {
            return .failure(.init(.malformedURL, "URL has no scheme (expected scheme://…)"))
        }
        let scheme = text[..<colon]
        let afterScheme = text.index(colon, offsetBy: 3)
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
              scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) })
        else {
            return .failure(.init(.malformedURL, "URL scheme '\(scheme)' is not valid"))
        }
        var rest = text[afterScheme...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }   // fragments are ignored
        var queryText: Substring = ""
        if let question = rest.firstIndex(of: "?") {
            queryText = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        let path = rest[authorityEnd...]
        if authority.contains("@") {
            return .failure(.init(.userinfoRefused, "URL carries user info ('…@'); links never do"))
        }
        if authority.hasPrefix("[") {
            return .failure(.init(.malformedURL, "IP-literal hosts are not link hosts"))
        }
        var port: Int?
        if let colon = authority.lastIndex(of: ":") {
            let digits = authority[authority.index(after: colon)...]
            guard !digits.isEmpty, digits.count <= 5, let value = Int(digits), value <= 65535 else {
                return .failure(.init(.malformedURL, "URL port '\(digits)' is not a number"))
            }
            port = value
            authority = authority[..<colon]
        }
        let lowerScheme = scheme.lowercased()
        let isWeb = lowerScheme == "https" || lowerScheme == "http"
        var host = isWeb ? authority.lowercased() : ""
        if !authority.unicodeScalars.allSatisfy({ $0.isASCII }) {
            // IDN: a Unicode host is matched by its punycode form.
            guard let ascii = Punycode.asciiHost(String(authority)) else {
                return .failure(.init(.malformedURL, "host '\(authority)' is not a valid internationalized name"))
            }
            host = ascii
        }
        var segments: [String] = []
        segments.reserveCapacity(8)
        if !isWeb, !authority.isEmpty {
            guard let decoded = percentDecode(authority) else {
                return .failure(.init(.malformedURL, "bad percent-encoding in '\(authority)'"))
            }
            segments.append(decoded)
        }
        for raw in path.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = percentDecode(raw) else {
                return .failure(.init(.malformedURL, "bad percent-encoding in path segment '\(raw)'"))
            }
            segments.append(decoded)
        }
        var query: [String: String] = [:]
        for item in queryText.split(separator: "&", omittingEmptySubsequences: true) {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecode(pair[0]), let value = percentDecode(pair.count > 1 ? pair[1] : "") else {
                return .failure(.init(.malformedURL, "bad percent-encoding in query item '\(item)'"))
            }
            if query[name] == nil { query[name] = value }
        }
        return .success(IncomingURL(scheme: lowerScheme, host: isWeb ? host : "", port: port,
                                    segments: segments, query: query))
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
