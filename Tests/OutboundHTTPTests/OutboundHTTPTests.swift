import Foundation
import LinkdTestSupport
import OutboundHTTP
import Testing

/// `OutboundHTTP` against a real HTTP server on loopback (Python's): methods, bodies and headers both ways, the
/// caps and time limits, and each kind of failure a caller acts on.
@Suite struct OutboundHTTPTests {
    /// Echoes the method, path, headers and body as JSON; `/big` sends 200 KB, `/slow` answers after 3 s, `/away`
    /// redirects, `/headers` sends 70 KB of header lines.
    static let echo = #"""
        import http.server, json, socketserver, time
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'
            def log_message(self, *a): pass
            def answer(self):
                n = int(self.headers.get('Content-Length') or 0)
                body = self.rfile.read(n) if n else b''
                p = self.path
                if p == '/big': out, extra = b'x' * 200000, []
                elif p == '/slow': time.sleep(3); out, extra = b'late', []
                elif p == '/away': out, extra = b'', [('Location', '/there')]
                elif p == '/headers': out, extra = b'', [('X-Pad-%d' % i, 'p' * 1000) for i in range(70)]
                else:
                    out = json.dumps({"method": self.command, "path": p, "body": body.decode(),
                        "headers": {k.lower(): v for k, v in self.headers.items()}}).encode()
                    extra = [('X-Echo', 'yes'), ('Content-Type', 'application/json')]
                self.send_response(302 if p == '/away' else 201)
                for k, v in extra: self.send_header(k, v)
                self.send_header('Content-Length', str(len(out)))
                self.end_headers()
                if self.command != 'HEAD': self.wfile.write(out)
            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = answer
        class S(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
        s = S(('127.0.0.1', 0), H)
        print(s.server_address[1], flush=True)
        s.serve_forever()
        """#

    static let limits = OutboundLimits(connectTimeoutMilliseconds: 1000, totalTimeoutMilliseconds: 2000, maxResponseBytes: 65536)

    private struct Echo: Decodable {
        let method: String
        let path: String
        let body: String
        let headers: [String: String]
    }

    private func echoed(_ response: OutboundResponse) throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: Data(response.body))
    }

    @Test func sendsEachMethodWithItsBodyAndHeadersAndReadsTheAnswersHeaders() async throws {
        let server = try LoopbackOrigin(script: Self.echo)
        for method in ["POST", "PUT", "PATCH", "DELETE", "GET"] {
            let body: [UInt8] = method == "GET" ? [] : Array(#"{"m":"\#(method)"}"#.utf8)
            let request = OutboundRequest(
                method: method, url: "http://127.0.0.1:\(server.port)/v1/things?x=1",
                headers: [OutboundHeader("Authorization", "Bearer k"), OutboundHeader("Content-Type", "application/json")],
                body: body, limits: Self.limits)
            let response = try await OutboundHTTP.perform(request).get()
            #expect(response.status == 201)
            #expect(response.header("x-echo") == "yes")
            #expect(response.remoteAddress == "127.0.0.1")
            let echo = try echoed(response)
            #expect(echo.method == method)
            #expect(echo.path == "/v1/things?x=1")
            #expect(echo.body == String(decoding: body, as: UTF8.self))
            #expect(echo.headers["authorization"] == "Bearer k")
            #expect(echo.headers["expect"] == nil)
        }
        let head = try await OutboundHTTP.perform(OutboundRequest(method: "HEAD", url: "http://127.0.0.1:\(server.port)/", limits: Self.limits)).get()
        #expect(head.status == 201)
        #expect(head.body.isEmpty)
    }

    @Test func aLargeBodyIsSentWithoutExpectContinue() async throws {
        let server = try LoopbackOrigin(script: Self.echo)
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 2 * 1024 * 1024)
        var limits = Self.limits
        limits.maxResponseBytes = 4 * 1024 * 1024
        let response = try await OutboundHTTP.perform(
            OutboundRequest(method: "POST", url: "http://127.0.0.1:\(server.port)/", body: body, limits: limits)
        ).get()
        #expect(try echoed(response).body.utf8.count == body.count)
    }

    @Test func capsTheBodyAndTheHeadersAndDoesNotFollowRedirects() async throws {
        let server = try LoopbackOrigin(script: Self.echo)
        let big = await OutboundHTTP.perform(OutboundRequest(url: "http://127.0.0.1:\(server.port)/big", limits: Self.limits))
        #expect(big.failure?.kind == .tooLarge)
        let headers = await OutboundHTTP.perform(OutboundRequest(url: "http://127.0.0.1:\(server.port)/headers", limits: Self.limits))
        #expect(headers.failure?.kind == .tooLarge)
        let away = try await OutboundHTTP.perform(OutboundRequest(url: "http://127.0.0.1:\(server.port)/away", limits: Self.limits)).get()
        #expect(away.status == 302)
        #expect(away.redirectURL == "http://127.0.0.1:\(server.port)/there")
    }

    @Test func aStreamedBodyComesInPiecesPastTheCapAnErrorAnswerWhole() async throws {
        let server = try LoopbackOrigin(script: Self.echo)
        final class Collected: @unchecked Sendable {
            let lock = NSLock()
            var bytes: [UInt8] = []
            var pieces = 0
        }
        let collected = Collected()
        var request = OutboundRequest(url: "http://127.0.0.1:\(server.port)/big", limits: Self.limits)
        request.bodyStream = OutboundBodyStream(stallTimeoutMilliseconds: 2000) { piece in
            collected.lock.withLock {
                collected.bytes += piece
                collected.pieces += 1
            }
            return true
        }
        let streamed = try await OutboundHTTP.perform(request).get()
        #expect(streamed.status == 201 && streamed.body.isEmpty)
        #expect(collected.bytes.count == 200_000 && collected.bytes.allSatisfy { $0 == UInt8(ascii: "x") }, "past the 64 KB cap")
        #expect(collected.pieces > 1)
        // A 3xx is not streamed: it comes back as an answer.
        request.url = "http://127.0.0.1:\(server.port)/away"
        #expect(try await OutboundHTTP.perform(request).get().status == 302)
        // A writer that refuses ends the transfer; a stall past its limit is a timeout.
        request.url = "http://127.0.0.1:\(server.port)/big"
        request.bodyStream = OutboundBodyStream(stallTimeoutMilliseconds: 2000) { _ in false }
        #expect(await OutboundHTTP.perform(request).failure?.kind == .transport)
        request.url = "http://127.0.0.1:\(server.port)/slow"
        request.bodyStream = OutboundBodyStream(stallTimeoutMilliseconds: 1000) { _ in true }
        #expect(await OutboundHTTP.perform(request).failure?.kind == .timedOut)
    }

    @Test func namesEachFailure() async throws {
        let server = try LoopbackOrigin(script: Self.echo)
        let slow = await OutboundHTTP.perform(OutboundRequest(url: "http://127.0.0.1:\(server.port)/slow", limits: Self.limits))
        #expect(slow.failure?.kind == .timedOut)
        // Nothing listens on port 1 here (tcpmux is long gone): the kernel refuses at once.
        let refused = await OutboundHTTP.perform(OutboundRequest(url: "http://127.0.0.1:1/", limits: Self.limits))
        #expect(refused.failure?.kind == .couldNotConnect)
        let unresolved = await OutboundHTTP.perform(OutboundRequest(url: "http://no-such-host.invalid/", limits: Self.limits))
        #expect(unresolved.failure?.kind == .couldNotResolve)
        let scheme = await OutboundHTTP.perform(
            OutboundRequest(url: "http://127.0.0.1:\(server.port)/", limits: Self.limits, allowedSchemes: "https"))
        #expect(scheme.failure?.kind == .couldNotConnect)
        let method = await OutboundHTTP.perform(OutboundRequest(method: "TRACE", url: "http://127.0.0.1:\(server.port)/", limits: Self.limits))
        #expect(method.failure?.kind == .invalidRequest)
        let smuggled = await OutboundHTTP.perform(
            OutboundRequest(url: "http://127.0.0.1:\(server.port)/", headers: [OutboundHeader("X", "a\r\nHost: evil")], limits: Self.limits))
        #expect(smuggled.failure?.kind == .invalidRequest)
    }

    @Test func aPinnedAddressIsTheOneConnectedTo() async throws {
        let server = try LoopbackOrigin(script: Self.echo)
        let request = OutboundRequest(
            url: "http://hooks.example.test:\(server.port)/pinned", limits: Self.limits,
            pinnedAddresses: ["hooks.example.test:\(server.port):127.0.0.1"])
        let response = try await OutboundHTTP.perform(request).get()
        #expect(try echoed(response).headers["host"] == "hooks.example.test:\(server.port)")
        #expect(response.remoteAddress == "127.0.0.1")
    }
}

extension Result {
    /// The failure, or nil on success.
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
