import Foundation
import HummingbirdTesting
import LinkdTestSupport
import Testing

@testable import LinkdServer
@testable import TokenSigning

/// A request that carries a token has the token's tag checked once: on the event loop's fast path and through
/// Hummingbird, whether the link's record is in memory or read from the store (`Keyring.tagChecks`, counted in
/// debug builds). A forged token costs one check too, and no store read.
@Suite("One signature check per request")
struct SignatureCheckTests {
    /// The token's tag checks and the store's link reads that one request cost, and its status.
    struct Cost: CustomStringConvertible {
        let status: Int
        let checks: Int
        let reads: Int
        var description: String { "status \(status), \(checks) tag checks, \(reads) store reads" }
    }

    /// Sends `request` on `connection` (kept alive: the fast path answers what memory has) or, when nil, on a new
    /// connection with `Connection: close` (always Hummingbird), and counts what it cost.
    static func cost(_ api: API, _ request: String, on connection: RawConnection?) async throws -> Cost {
        let (checks, reads) = (api.keys.keyring.tagChecks, api.faults.linkReads)
        let status: Int
        if let connection {
            try await connection.send(request)
            status = try await connection.read().status
        } else {
            let reference = try RawConnection(port: try #require(api.client.port))
            try await reference.send(request.replacingOccurrences(of: "\r\n\r\n", with: "\r\nConnection: close\r\n\r\n"))
            status = try await reference.read().status
        }
        return Cost(status: status, checks: api.keys.keyring.tagChecks - checks, reads: api.faults.linkReads - reads)
    }

    /// The share page (on `host`), `GET /v1/resolve` and `POST /v1/resolve` for a share URL and its token.
    static func requests(url: String, token: String, host: String) -> [(name: String, text: String)] {
        let json = #"{"url":"\#(url)","state":"free"}"#
        return [
            ("GET /s/{token} on \(host)", "GET /s/\(token) HTTP/1.1\r\nHost: \(host)\r\nUser-Agent: \(UserAgent.desktop)\r\n\r\n"),
            ("GET /v1/resolve", FastPathTests.get("/v1/resolve?url=\(FastPathTests.encoded(url))&state=free")),
            ("POST /v1/resolve", FastPathTests.post("/v1/resolve", json: json)),
        ]
    }

    /// The host the Handz example's share links are on.
    static let shareHost = "links.handz.example"

    @Test("a share page and a resolution check the token's tag once, cached or read from the store, on either entrance")
    func oneCheckPerRequest() async throws {
        let origin = try LoopbackOrigin()
        let manifests = try WebPagesTests.handzBadgeManifests(originBaseURL: "http://127.0.0.1:\(origin.port)")
        // A cache of one record: three links take turns in it, so a request for the
        // one least recently read reads the store.
        try await withAPI({
            $0.links.manifests = manifests
            $0.pages.previewWaitMilliseconds = 5000
            $0.store.linkCacheCapacity = 1
        }) { api in
            let key = try await api.clientKey(app: "handz")
            var links: [(url: String, token: String)] = []
            for _ in 0..<3 {
                let link = try await api.createHandzLink(key: key)
                links.append((try #require(link["url"] as? String), try #require(link["token"] as? String)))
            }
            let kept = try RawConnection(port: try #require(api.client.port))
            var fromStore = 0, fromMemory = 0
            // Each link twice in a row (the second time from memory), then the next one.
            for link in [0, 0, 1, 1, 2, 2, 0, 0, 1].map({ links[$0] }) {
                for (name, request) in Self.requests(url: link.url, token: link.token, host: Self.shareHost) {
                    for connection in [kept, nil] {
                        let cost = try await Self.cost(api, request, on: connection)
                        let entrance = connection == nil ? "through Hummingbird" : "on the fast path"
                        #expect(cost.status == 200, "\(name) \(entrance): \(cost)")
                        #expect(cost.checks == 1, "\(name) \(entrance): \(cost)")
                        if cost.reads > 0 { fromStore += 1 } else { fromMemory += 1 }
                    }
                }
            }
            // Both kinds were exercised: answers from memory and answers that read the link's record.
            #expect(fromStore >= 3, "requests that read the store: \(fromStore)")
            #expect(fromMemory >= 3, "requests answered from memory: \(fromMemory)")
        }
    }

    @Test("on a host no app claims, a share page whose link is cached checks the token with its link's app alone")
    func unclaimedHostCachedLink() async throws {
        try await withAPI { api in
            let link = try await api.createHandzLink(key: try await api.clientKey(app: "handz"))
            let token = try #require(link["token"] as? String)
            let kept = try RawConnection(port: try #require(api.client.port))
            let request = "GET /s/\(token) HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: \(UserAgent.crawler)\r\n\r\n"
            // The first page reads the link's record from the store (checking the token with each app in turn
            // until one verifies it, before the read); from then on the record is cached.
            #expect(try await Self.cost(api, request, on: kept).reads == 1)
            for connection in [kept, nil] {
                let cost = try await Self.cost(api, request, on: connection)
                #expect(cost.status == 200, "\(cost)")
                #expect(cost.checks == 1, "\(connection == nil ? "Hummingbird" : "fast path"): \(cost)")
            }
        }
    }

    @Test("a forged token costs one tag check and no store read, whatever its key id")
    func forgedTokenOneCheck() async throws {
        try await withAPI { api in
            let key = try await api.clientKey(app: "handz")
            let link = try await api.createHandzLink(key: key)
            let url = try #require(link["url"] as? String), token = try #require(link["token"] as? String)
            // A bad tag; and the key id's first byte changed: a key id nobody has (decoy).
            let badTag = ForgedToken.badTag(token)
            var unknownKey = Array(token)
            unknownKey[2] = unknownKey[2] == "z" ? "y" : "z"
            let kept = try RawConnection(port: try #require(api.client.port))
            for forged in [badTag, String(unknownKey)] {
                let forgedURL = url.replacingOccurrences(of: token, with: forged)
                for (name, request) in Self.requests(url: forgedURL, token: forged, host: Self.shareHost) {
                    for connection in [kept, nil] {
                        let cost = try await Self.cost(api, request, on: connection)
                        #expect(cost.status == 404 || cost.status == 200, "\(name): \(cost)")
                        #expect(cost.checks == 1, "\(name) with \(forged): \(cost)")
                        #expect(cost.reads == 0, "\(name) with \(forged): \(cost)")
                    }
                }
            }
        }
    }
}
