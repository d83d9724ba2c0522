import Foundation

/// A real HTTP origin on loopback: a small Python ThreadingHTTPServer started by the test on an ephemeral port.
public final class LoopbackOrigin: @unchecked Sendable {
    /// The origin's behaviour, by path prefix: `/items/ok…` a preview whose title holds `<script>`, `slow` (3 s),
    /// `missing` 404, `gone` 410, `big` (200 KB), `away` (a redirect to another host), `within` (a redirect on the
    /// origin), `badjson`, `extra` (an unknown key), `error` 500, `badges` a preview listing the badges
    /// `privateUpload` (twice) and `unknownBadge`, `toomanybadges` one listing 9, `badbadge` one listing `<b>`,
    /// `echo/<id>` a preview titled `Flow <id>` (which item the origin was asked for).
    public static let script = #"""
        import http.server, json, socketserver, sys, time
        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a): pass
            def send(self, code, body=b'', headers=()):
                self.send_response(code)
                for k, v in headers: self.send_header(k, v)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def do_GET(self):
                p = self.path
                if p.startswith('/items/ok'):
                    self.send(200, json.dumps({"title": "Morning <script>x</script>", "creatorName": "Ana",
                        "allowCreatorName": True, "updatedAt": "2026-09-21T10:00:00Z",
                        "imageURL": "https://cdn.example.com/a.jpg"}).encode())
                elif p.startswith('/items/slow'):
                    time.sleep(3); self.send(200, b'{"title":"late"}')
                elif p.startswith('/items/missing'): self.send(404)
                elif p.startswith('/items/gone'): self.send(410)
                elif p.startswith('/items/big'): self.send(200, b'{"title":"' + b'x' * 200000 + b'"}')
                elif p.startswith('/items/away'):
                    self.send(302, headers=[('Location', 'http://127.0.0.2:%d/items/ok' % self.server.server_address[1])])
                elif p.startswith('/items/within'): self.send(302, headers=[('Location', '/items/ok')])
                elif p.startswith('/items/badjson'): self.send(200, b'{"title": ')
                elif p.startswith('/items/extra'): self.send(200, b'{"title":"t","evil":1}')
                elif p.startswith('/items/error'): self.send(500)
                elif p.startswith('/items/badges'):
                    self.send(200, json.dumps({"title": "Guard pass flow",
                        "badges": ["unknownBadge", "privateUpload", "privateUpload"]}).encode())
                elif p.startswith('/items/toomanybadges'):
                    self.send(200, json.dumps({"title": "t", "badges": ["b%d" % i for i in range(9)]}).encode())
                elif p.startswith('/items/badbadge'): self.send(200, b'{"title":"t","badges":["<b>"]}')
                elif p.startswith('/items/echo/'):
                    self.send(200, json.dumps({"title": "Flow " + p[len('/items/echo/'):]}).encode())
                else: self.send(404)
        class S(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
        s = S(('127.0.0.1', 0), H)
        print(s.server_address[1], flush=True)
        s.serve_forever()
        """#

    private let process = Process()
    /// The port it listens on (127.0.0.1).
    public let port: Int

    /// Starts the origin on an ephemeral port; `script` is a Python program that prints its port on its first line
    /// and serves on 127.0.0.1 (the default is the origin above).
    public init(script: String = LoopbackOrigin.script) throws {
        let python = try ExternalTool.path("python3", install: "apt-get install python3")
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script]
        let stdout = Pipe()
        process.standardOutput = stdout
        try process.run()
        var line: [UInt8] = []
        while true {
            let byte = stdout.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first else { break }
            if first == UInt8(ascii: "\n") { break }
            line.append(first)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            kill(process.processIdentifier, SIGKILL)
            throw ExternalTool.Failure(description: "loopback origin did not start")
        }
        self.port = port
    }

    deinit { stop() }

    /// SIGKILL: the child may inherit a blocked SIGTERM from the test runner's threads.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
