import FuzzSupport
import LinkdHTTP
import NIOCore
import NIOEmbedded
import NIOHTTP1

/// `RequestScanner.scan` on any bytes, the way the fast path sees a connection's front.
///
/// Invariants: a head's ranges lie inside the head, which ends with the blank line and is no longer than the input;
/// every prefix of the input is `incomplete` or gets the input's own answer (so reading more bytes never changes
/// an answer once given); and a head it reads, NIO's HTTP/1 decoder reads the same way — method, target, Host,
/// User-Agent and Content-Type values and counts, body length (the scanner may refuse what NIO accepts, never the
/// reverse).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestScanner(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let result = RequestScanner.scan(bytes)
    checkPrefixes(bytes, result)
    checkHeadEnd(bytes, result)
    if case .head(let head) = result {
        checkRanges(bytes, head)
        checkAgainstNIO(bytes, head)
    }
    return 0
}

/// Each prefix (all of them for short inputs, a sample and the last few bytes of the head for long ones) is
/// `incomplete` or the whole input's answer; a prefix as long as the head gives the same head.
private func checkPrefixes(_ bytes: UnsafeRawBufferPointer, _ result: RequestScanner.Result) {
    var ends = Set(stride(from: 0, to: bytes.count, by: max(1, bytes.count / 256)))
    if case .head(let head) = result {
        ends.formUnion(max(0, head.headLength - 8)...head.headLength)
    }
    for end in ends where end <= bytes.count {
        let prefix = RequestScanner.scan(UnsafeRawBufferPointer(rebasing: bytes[..<end]))
        Fuzz.require(prefix == .incomplete || prefix == result,
                     "the first \(end) of \(bytes.count) bytes read as \(prefix), the whole as \(result)")
    }
}

/// The incremental search for a head's end (`findHeadEnd`, what `EdgeHandler` runs while a head arrives in pieces),
/// resumed where a search of a prefix stopped, finds what one search of the whole finds; where `scan` reads a head,
/// that search ends just past it.
private func checkHeadEnd(_ bytes: UnsafeRawBufferPointer, _ result: RequestScanner.Result) {
    let whole = RequestScanner.findHeadEnd(bytes, from: 0)
    if case .head(let head) = result {
        Fuzz.require(whole == .found(head.headLength), "scan read a head of \(head.headLength) bytes, findHeadEnd says \(whole)")
    }
    for split in stride(from: 1, to: bytes.count, by: max(1, bytes.count / 64)) {
        guard case .notYet(let searched) = RequestScanner.findHeadEnd(UnsafeRawBufferPointer(rebasing: bytes[..<split]), from: 0)
        else { continue }
        let resumed = RequestScanner.findHeadEnd(bytes, from: max(0, searched - 3))
        Fuzz.require(resumed == whole, "resumed after \(searched) of \(bytes.count) bytes: \(resumed); the whole: \(whole)")
    }
}

/// The head's ranges lie inside it, it ends with CR LF CR LF, and the target is a path.
private func checkRanges(_ bytes: UnsafeRawBufferPointer, _ head: ScannedHead) {
    let length = head.headLength
    Fuzz.require(length >= 4 && length <= min(bytes.count, RequestScanner.maxHeadBytes), "head length \(length) of \(bytes.count)")
    Fuzz.require(Array(bytes[(length - 4)..<length]) == Array("\r\n\r\n".utf8), "the head does not end with a blank line")
    for range in [head.target, head.host, head.userAgent, head.contentType].compactMap({ $0 }) {
        Fuzz.require(range.lowerBound >= 0 && range.upperBound <= length, "range \(range) outside the head (\(length))")
    }
    Fuzz.require(!head.target.isEmpty && bytes[head.target.lowerBound] == UInt8(ascii: "/"), "the target is not a path")
    Fuzz.require(head.contentLength >= 0 && (head.userAgent == nil) == (head.userAgentCount == 0)
                 && (head.contentType == nil) == (head.contentTypeCount == 0), "counts disagree with the ranges")
}

/// NIO's decoder reads the request (head, and body when all of it is there) the same way.
private func checkAgainstNIO(_ bytes: UnsafeRawBufferPointer, _ head: ScannedHead) {
    let whole = head.length <= bytes.count
    let input = Array(bytes[..<(whole ? head.length : head.headLength)])
    let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)))
    defer { _ = try? channel.finish() }
    var parts: [HTTPServerRequestPart] = []
    do {
        try channel.writeInbound(ByteBuffer(bytes: input))
        while let part: HTTPServerRequestPart = try channel.readInbound() { parts.append(part) }
    } catch {
        Fuzz.require(false, "the scanner read a head NIO refuses (\(error)): \(String(decoding: input, as: UTF8.self).debugDescription)")
    }
    guard case .head(let nioHead)? = parts.first else {
        Fuzz.require(false, "NIO read no head from \(String(decoding: input, as: UTF8.self).debugDescription)")
        return
    }
    func text(_ range: Range<Int>?) -> String? { range.map { String(decoding: input[$0], as: UTF8.self) } }
    func field(_ name: String) -> String? { nioHead.headers.first(name: name).map(trimmed) }
    let method: ScannedHead.Method = nioHead.method == .GET ? .get : nioHead.method == .POST ? .post : .other
    Fuzz.require(method == head.method, "method \(head.method), NIO \(nioHead.method)")
    Fuzz.require(text(head.target) == nioHead.uri, "target \(text(head.target) ?? ""), NIO \(nioHead.uri)")
    Fuzz.require(nioHead.version == .http1_1 && nioHead.isKeepAlive, "NIO reads another version or no keep-alive")
    Fuzz.require(text(head.host) == field("host"), "host \(String(describing: text(head.host))), NIO \(String(describing: field("host")))")
    Fuzz.require(head.userAgentCount == nioHead.headers["user-agent"].count && text(head.userAgent) == field("user-agent"),
                 "user agents differ from NIO's")
    Fuzz.require(head.contentTypeCount == nioHead.headers["content-type"].count && text(head.contentType) == field("content-type"),
                 "content types differ from NIO's")
    if whole {
        var body = 0
        var ended = false
        for part in parts.dropFirst() {
            switch part {
            case .body(let buffer): body += buffer.readableBytes
            case .end: ended = true
            case .head: Fuzz.require(false, "NIO read a second head")
            }
        }
        Fuzz.require(ended && body == head.contentLength, "body \(head.contentLength), NIO \(body) (ended: \(ended))")
    }
}

/// `value` without surrounding spaces and tabs (HTTPFields, Hummingbird's view, keeps no trailing whitespace).
private func trimmed(_ value: String) -> String {
    var scalars = Substring(value).unicodeScalars
    while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
    while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
    return String(scalars)
}
