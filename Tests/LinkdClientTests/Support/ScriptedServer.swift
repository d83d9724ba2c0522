import Foundation
import LinkdTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for what the real daemon cannot be made to do on demand: answer a scripted
/// status, headers and body (a replay of what the daemon sent, a code it sends only when its store fails), or accept
/// a request and never answer. One request per connection (`Connection: close`); blocking sockets on threads of its
/// own, off Swift's cooperative pool.
final class ScriptedServer: @unchecked Sendable {
    /// What the server does with the n-th request (0-based).
    enum Reply: Sendable {
        /// Answers with this status, extra header fields and body.
        case answer(status: Int, headers: [String: String], body: String)
        /// Reads the request and never answers (until the server stops).
        case silence
    }

    let port: Int
    private let listener: Int32
    private let script: @Sendable (Int) -> Reply
    private let lock = NSLock()
    private var heads: [String] = []
    private var stopped = false
    private let released = DispatchSemaphore(value: 0)

    /// Starts listening; `script` is asked what to do with each request.
    init(_ script: @escaping @Sendable (Int) -> Reply) throws {
        self.script = script
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = ipv4Address(host: "127.0.0.1", port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw HarnessError("cannot listen on 127.0.0.1")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// `http://127.0.0.1:PORT`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The request heads received so far (request line and fields).
    var requests: [String] { lock.withLock { heads } }

    /// Stops accepting and lets silent connections go.
    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for _ in 0..<64 { released.signal() }
    }

    deinit { stop() }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        // The head, then the body by Content-Length.
        while true {
            if let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count - end.upperBound >= length {
                    let index = lock.withLock { () -> Int in
                        heads.append(head)
                        return heads.count - 1
                    }
                    respond(script(index), on: connection)
                    return
                }
            }
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            received.append(contentsOf: chunk[..<count])
        }
    }

    private func respond(_ reply: Reply, on connection: Int32) {
        switch reply {
        case .silence:
            _ = released.wait(timeout: .now() + 60)
        case .answer(let status, let headers, let body):
            var text = "HTTP/1.1 \(status) Scripted\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            text += "\r\n" + body
            let bytes = Array(text.utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return }
                sent += count
            }
        }
    }
}
