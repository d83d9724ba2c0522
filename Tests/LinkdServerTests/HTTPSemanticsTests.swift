import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LinkdTestSupport
import Testing

@testable import LinkdHTTP
@testable import LinkdServer

/// RFC 9110 semantics on the live server, through both entrances (a kept-alive connection reaches the event-loop
/// fast path first; `Connection: close` goes straight to Hummingbird's router): `405` with `Allow` for a known path
/// and a method it does not take, and `HEAD` wherever `GET` is.
@Suite("HTTP semantics: 405 and HEAD")
struct HTTPSemanticsTests {
    /// One raw request: `method path`, with `Host`, extra header lines and `Connection: close` when asked.
    static func request(
        _ method: String, _ path: String, host: String = "127.0.0.1", headers: [String] = [], close: Bool = false
    ) -> String {
        "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\n" + headers.map { $0 + "\r\n" }.joined()
            + (close ? "Connection: close\r\n" : "") + "\r\n"
    }

    /// The header fields of a raw response as `name: value` lines, in order, without `Date`.
    static func fields(_ response: RawConnection.Response) -> [String] {
        response.headers.filter { $0.name.lowercased() != "date" }.map { "\($0.name): \($0.value)" }
    }

    /// A route pattern with every `{parameter}` replaced by `value`.
    static func path(_ pattern: String, _ value: String = "x") -> String {
        pattern.split(separator: "/").map { $0.hasPrefix("{") ? value : String($0) }.reduce("") { $0 + "/" + $1 }
    }

    /// The methods tried on every path.
    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    @Test("a known path with a method it does not take answers 405 with Allow, on both entrances")
    func methodNotAllowed() async throws {
        try await withAPI { api in
            let port = try #require(api.client.port)
            // Allow as a person reads the routes (the table is what the server was given, so check a few by hand).
            let expected = [
                "/healthz": "GET, HEAD", "/readyz": "GET, HEAD", "/metrics": "GET, HEAD", "/v1/links": "GET, HEAD, POST",
                "/v1/links/x": "GET, HEAD, DELETE", "/v1/resolve": "GET, HEAD, POST", "/v1/resolve/ics": "POST",
                "/s/x": "GET, HEAD", "/s/x/qr.svg": "GET, HEAD", "/v1/admin/api-keys": "GET, HEAD, POST",
                "/v1/admin/api-keys/x": "DELETE", "/v1/admin/keys/x/rotate": "POST",
            ]
            for (path, allow) in expected { #expect(api.routes.match(path: path)?.allow == allow, "\(path)") }
            #expect(api.routes.match(path: "/nope") == nil && api.routes.match(path: "/s") == nil)

            for entry in api.routes.entries {
                let pattern = entry.path.description
                let path = Self.path(pattern)
                let allowed = try #require(api.routes.match(path: path))
                #expect(allowed.pattern == pattern)
                for method in Self.methods where !allowed.methods.map(\.rawValue).contains(method) {
                    for close in [false, true] {
                        let connection = try RawConnection(port: port)
                        try await connection.send(Self.request(method, path, close: close))
                        let reply = method == "HEAD" ? try await connection.readHead() : try await connection.read()
                        #expect(reply.status == 405, "\(method) \(path), close \(close): \(reply.statusLine)")
                        #expect(reply.header("Allow") == allowed.allow, "\(method) \(path)")
                        #expect(reply.header("Content-Type") == "application/json")
                        if method != "HEAD" {
                            #expect(reply.text.contains(#""code":"method_not_allowed""#), "\(method) \(path): \(reply.text)")
                        }
                    }
                }
            }
            // Methods the fast path's scanner does not read at all go to NIO's decoder: the same answer.
            let trace = try RawConnection(port: port)
            try await trace.send(Self.request("PROPFIND", "/healthz"))
            let reply = try await trace.read()
            #expect(reply.status == 405 && reply.header("Allow") == "GET, HEAD")
            // A path no route has stays 404, whatever the method.
            #expect(try await api.call(.put, "/nope").status == 404)
            #expect(try await api.call(.put, "/nope").errorCode == "not_found")
            // Counted under the route's pattern.
            let metrics = try await api.call(.get, "/metrics").text
            #expect(metrics.contains(#"method="PUT",route="/s/{token}",status="405""#), "\(metrics.prefix(2000))")
        }
    }

    @Test("every method a path lists in Allow is answered by a route (the table agrees with the router)")
    func allowedMethodsAreRouted() async throws {
        try await withAPI { api in
            let port = try #require(api.client.port)
            for entry in api.routes.entries {
                let path = Self.path(entry.path.description)
                for method in entry.methods.map(\.rawValue) {
                    let connection = try RawConnection(port: port)
                    try await connection.send(Self.request(method, path, headers: method == "POST" ? ["Content-Length: 0"] : []))
                    let reply = method == "HEAD" ? try await connection.readHead() : try await connection.read()
                    #expect(reply.status != 405, "\(method) \(path)")
                    #expect(!(reply.status == 404 && reply.text.contains("no such endpoint")), "\(method) \(path)")
                }
            }
        }
    }

    @Test("the routes are the document's operations, HEAD aside")
    func routesAreDocumented() async throws {
        let document = try OpenAPIDocument()
        try await withAPI { api in
            var registered = Set<String>()
            for entry in api.routes.entries {
                for method in entry.methods where method != .head { registered.insert("\(method.rawValue) \(entry.path.description)") }
            }
            #expect(registered == document.operations.filter { !$0.hasPrefix("HEAD ") },
                    "registered only: \(registered.subtracting(document.operations).sorted()); documented only: \(document.operations.subtracting(registered).sorted())")
        }
    }

    /// Sends `HEAD` then `GET` of `path`, pipelined on one connection, and checks the HEAD answer is the GET answer
    /// without its body: same status and header fields (`Content-Length` of the GET's body), no body bytes (the
    /// GET's answer is read right after the HEAD's head). Returns the GET's answer.
    @discardableResult
    static func headMatchesGet(
        port: Int, _ path: String, host: String = "127.0.0.1", headers: [String] = [], sameBody: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> RawConnection.Response {
        let connection = try RawConnection(port: port)
        try await connection.send(request("HEAD", path, host: host, headers: headers) + request("GET", path, host: host, headers: headers))
        let head = try await connection.readHead()
        let get = try await connection.read()
        #expect(head.status == get.status, "\(path)", sourceLocation: sourceLocation)
        #expect(get.statusLine.hasPrefix("HTTP/1.1 "), "\(path): body bytes after the HEAD answer?", sourceLocation: sourceLocation)
        if sameBody {
            #expect(fields(head) == fields(get), "\(path)", sourceLocation: sourceLocation)
            #expect(head.header("Content-Length") == String(get.body.count), "\(path)", sourceLocation: sourceLocation)
        } else {
            #expect(head.header("Content-Type") == get.header("Content-Type"), "\(path)", sourceLocation: sourceLocation)
            #expect(head.header("Content-Length") != nil, "\(path)", sourceLocation: sourceLocation)
        }
        // The connection is still in step: one more request on it is answered.
        try await connection.send(request("GET", "/healthz"))
        #expect(try await connection.read().text == #"{"status":"ok"}"#, "\(path)", sourceLocation: sourceLocation)
        return get
    }

    @Test("HEAD answers every GET route with the GET's status and headers and no body, pipelining included")
    func headEverywhere() async throws {
        try await withAPI { api in
            let port = try #require(api.client.port)
            let key = try await api.clientKey(app: "handz")
            let link = try await api.createHandzLink(key: key)
            let id = try #require(link["id"] as? String), token = try #require(link["token"] as? String)
            let auth = ["Authorization: Bearer \(api.adminKey)"]
            let handz = "links.handz.example"
            // Hot routes (their GET answered on the event loop), the router's routes, errors, app-link pages.
            try await Self.headMatchesGet(port: port, "/healthz")
            try await Self.headMatchesGet(port: port, "/v1/resolve?url=handz://library&state=free")
            try await Self.headMatchesGet(port: port, "/s/\(token)", host: handz)
            try await Self.headMatchesGet(port: port, "/s/\(token)/qr.svg", host: handz)
            try await Self.headMatchesGet(port: port, "/s/unknown", host: handz)
            try await Self.headMatchesGet(port: port, "/static/linkd.css")
            try await Self.headMatchesGet(port: port, "/.well-known/apple-app-site-association", host: handz)
            try await Self.headMatchesGet(port: port, "/.well-known/assetlinks.json", host: handz)
            try await Self.headMatchesGet(port: port, "/readyz")
            try await Self.headMatchesGet(port: port, "/metrics", sameBody: false)
            try await Self.headMatchesGet(port: port, "/v1/links/\(id)", headers: auth)
            try await Self.headMatchesGet(port: port, "/v1/admin/keys?app=handz", headers: auth)
            try await Self.headMatchesGet(port: port, "/v1/admin/api-keys", headers: auth)
            try await Self.headMatchesGet(port: port, "/v1/admin/audit?limit=5", headers: auth)
            // Error answers: no key, a bad parameter, no such path, an app's page (200 and its HTML 404).
            #expect(try await Self.headMatchesGet(port: port, "/v1/links/\(id)").status == 401)
            #expect(try await Self.headMatchesGet(port: port, "/v1/resolve").status == 400)
            #expect(try await Self.headMatchesGet(port: port, "/nope").status == 404)
            let page = try await Self.headMatchesGet(port: port, "/flows/\(UUID().uuidString.lowercased())", host: handz)
            #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(try await Self.headMatchesGet(port: port, "/no/such/page", host: handz).status == 404)
            // With Connection: close (Hummingbird's entrance from the first byte): the head only, then the end.
            let closing = try RawConnection(port: port)
            try await closing.send(Self.request("HEAD", "/healthz", close: true))
            let head = try await closing.readHead()
            #expect(head.status == 200 && head.header("Content-Length") == "15")
            #expect(await closing.isClosedByServer())
        }
    }

    @Test("HEAD of a share link counts no click; GET does")
    func headCountsNoClick() async throws {
        try await withAPI { api in
            let port = try #require(api.client.port)
            let key = try await api.clientKey(app: "handz")
            let link = try await api.createHandzLink(key: key)
            let id = try #require(link["id"] as? String), token = try #require(link["token"] as? String)
            func clicks() async throws -> Int { try await api.call(.get, "/v1/links/\(id)", key: key).json["clicks"] as? Int ?? -1 }
            for _ in 0..<3 {
                let connection = try RawConnection(port: port)
                try await connection.send(Self.request("HEAD", "/s/\(token)", host: "links.handz.example", headers: ["User-Agent: \(UserAgent.desktop)"]))
                #expect(try await connection.readHead().status == 200)
            }
            #expect(try await clicks() == 0)
            let connection = try RawConnection(port: port)
            try await connection.send(Self.request("GET", "/s/\(token)", host: "links.handz.example", headers: ["User-Agent: \(UserAgent.desktop)"]))
            #expect(try await connection.read().status == 200)
            #expect(try await clicks() == 1)
        }
    }
}
