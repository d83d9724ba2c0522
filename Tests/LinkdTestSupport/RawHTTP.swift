public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to a server on a loopback address, for byte-exact HTTP/1.1 exchanges: pipelined requests, a
/// `Connection: close` request, headers compared as sent. Its blocking socket calls run on a Dispatch thread, never
/// on Swift's cooperative pool, which the in-process server under test needs.
public final class RawConnection: @unchecked Sendable {
    /// One response as read off the wire.
    public struct Response: Sendable {
        /// `HTTP/1.1 200 OK`
        public let statusLine: String
        /// Header fields in order, names as sent.
        public let headers: [(name: String, value: String)]
        /// The body (by `Content-Length`).
        public let body: [UInt8]

        /// The status code.
        public var status: Int { Int(statusLine.split(separator: " ")[1]) ?? 0 }
        /// The first value of a header, by case-insensitive name.
        public func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
        /// The body as text.
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// Everything but `Date` and `Connection`, which may differ between two answers to the same request.
        public var comparable: String {
            let kept = headers.filter { !["date", "connection"].contains($0.name.lowercased()) }
            return ([statusLine] + kept.map { "\($0.name): \($0.value)" }).joined(separator: "\n") + "\n\n" + text
        }
    }

    private let socket: Int32
    private var pending: [UInt8] = []

    /// Connects to `host`:`port` (an IPv4 address, 127.0.0.1 by default) from `source` (another loopback address,
    /// such as 127.0.0.2, makes the connection another client's); reads time out after `receiveTimeout` seconds
    /// (10), sends after `sendTimeout` seconds; `receiveBuffer` sets a small receive buffer (a client that does not
    /// read then stops the server's writes after a few KB, whatever the load).
    public init(
        port: Int, host: String = "127.0.0.1", from source: String? = nil, sendTimeout: Int = 10, receiveTimeout: Int = 10,
        receiveBuffer: Int? = nil
    ) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw HarnessError("socket() failed") }
        if var size = receiveBuffer.map(Int32.init) {  // before connect, so the window offered is this small
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sendTimeoutValue = timeval(tv_sec: sendTimeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &sendTimeoutValue, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = ipv4Address(host: source, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(socket)
                throw HarnessError("cannot bind to \(source)")
            }
        }
        var address = ipv4Address(host: host, port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw HarnessError("cannot connect to \(host):\(port)")
        }
    }

    deinit { close(socket) }

    /// Sends bytes as they are (one or more requests).
    public func send(_ text: String) async throws {
        try await Self.offPool { try self.sendBlocking(text) }
    }

    /// Sends as much of `bytes` as the socket takes before its send timeout; how many bytes it took (a client that
    /// writes without reading learns here when the server stopped reading).
    public func sendSome(_ bytes: [UInt8]) async -> Int {
        (try? await Self.offPool {
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { Glibc.send(self.socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { break }
                sent += count
            }
            return sent
        }) ?? 0
    }

    /// Reads the next response.
    public func read() async throws -> Response {
        try await Self.offPool { try self.readBlocking(hasBody: true) }
    }

    /// Reads the next response as the answer to a `HEAD` request: its head only, whatever its `Content-Length` says
    /// (body bytes sent after it would be read as the start of the next response).
    public func readHead() async throws -> Response {
        try await Self.offPool { try self.readBlocking(hasBody: false) }
    }

    /// A `GET path` on a new connection from `source`, with `X-Forwarded-For: forwardedFor` and `Authorization: Bearer
    /// key` when given; the answer's status.
    public static func get(_ port: Int, _ path: String, from source: String, forwardedFor: String? = nil, key: String? = nil) async throws -> Int {
        let connection = try RawConnection(port: port, from: source)
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let forwardedFor { request += "X-Forwarded-For: \(forwardedFor)\r\n" }
        if let key { request += "Authorization: Bearer \(key)\r\n" }
        try await connection.send(request + "\r\n")
        return try await connection.read().status
    }

    /// Whether the server closed the connection: what it sent is read and dropped until the end of the stream (true)
    /// or the 10 s read timeout (false).
    public func isClosedByServer() async -> Bool {
        (try? await Self.offPool { self.closedBlocking() }) ?? false
    }

    /// Every byte the server sends until it closes the connection (after a `Connection: close` request), as it came:
    /// head and body, a chunked body with its chunk framing.
    public func readUntilClosed() async throws -> [UInt8] {
        try await Self.offPool {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(self.socket, $0.baseAddress, $0.count, 0) }
                if count == 0 { return self.pending }
                guard count > 0 else { throw HarnessError("the read timed out before the server closed") }
                self.pending.append(contentsOf: chunk[..<count])
            }
        }
    }

    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    private func sendBlocking(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw HarnessError("send failed") }
            sent += count
        }
    }

    private func readBlocking(hasBody: Bool) throws -> Response {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var end: Int?
        while end == nil {
            end = pending.indices.dropLast(3).first { Array(pending[$0..<$0 + 4]) == separator }
            if end == nil { try fill() }
        }
        let head = String(decoding: pending[..<end!], as: UTF8.self).components(separatedBy: "\r\n")
        pending.removeFirst(end! + 4)
        let headers = head.dropFirst().map { line -> (name: String, value: String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        let length = hasBody ? Int(headers.first { $0.name.lowercased() == "content-length" }?.value ?? "0") ?? 0 : 0
        while pending.count < length { try fill() }
        let body = Array(pending[..<length])
        pending.removeFirst(length)
        return Response(statusLine: head[0], headers: headers, body: body)
    }

    /// Reads (and drops) what the server sent until it closes (true) or the read times out (false).
    private func closedBlocking() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw HarnessError("the connection ended or timed out") }
        pending.append(contentsOf: chunk[..<count])
    }
}

/// The IPv4 socket address of `host` (a dotted quad) and `port`, for `connect` and `bind`.
public func ipv4Address(host: String, port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr(host)
    return address
}
