import Foundation
import HTTPTypes
import HummingbirdTesting
import LinkStore
import LinkdTestSupport
import Logging
import Testing

@testable import LinkdHTTP
@testable import LinkdServer


/// Polls `condition` every 20 ms until it holds or `seconds` pass; true when it held.
private func eventually(within seconds: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// The `link.delete` audit entries, newest first, as (actor, detail).
private func deletionAudit(_ api: API) async throws -> [[String]] {
    let entries = try await api.call(.get, "/v1/admin/audit?limit=100", key: api.adminKey).json["entries"] as? [[String: Any]] ?? []
    return entries.filter { $0["action"] as? String == LinkDeletions.action.rawValue }
        .map { [$0["actor"] as? String ?? "", $0["detail"] as? String ?? ""] }
}

/// An origin's 404/410 made durable (the link marked deleted), `.ics` items counted as resolutions, and the
/// manifest's `share.message` on the unavailable page — against the live server.
@Suite("Links deleted by their origin, .ics resolutions counted, the manifest's unavailable message", .serialized)
struct LinkDeletionTests {
    @Test("an origin's 404/410 marks the link deleted, once: the 410 page, the inspector, /v1/resolve, verdicts, audit, log",
          arguments: StoreKind.allCases)
    func originDeletesTheLink(backend: StoreKind) async throws {
        let origin = try LoopbackOrigin()
        defer { origin.stop() }
        let manifests = try WebPagesTests.manifests(originBaseURL: "http://127.0.0.1:\(origin.port)")
        let capture = LogCapture()
        try await withAPI(on: backend, logger: capture.logger(), { $0.links.manifests = manifests; $0.pages.previewWaitMilliseconds = 5000; $0.ops.logLevel = "notice" }) { api in
            let key = try await api.clientKey(app: "ordentus")
            let (missingID, missing) = try await WebPagesTests.link(api, key: key, eventId: "missing-1")  // the origin answers 404
            let (goneID, gone) = try await WebPagesTests.link(api, key: key, eventId: "gone-1")  // and 410
            let (liveID, live) = try await WebPagesTests.link(api, key: key, eventId: "ok-1")
            func status(_ id: String) async throws -> String? { try await api.call(.get, "/v1/links/\(id)", key: key).string("status") }
            func resolved(_ token: String) async throws -> (outcome: String?, id: String?, status: String?) {
                let resolution = try await api.resolve("https://links.ordentus.example/s/\(token)", state: "signedIn")
                let link = resolution["link"] as? [String: Any]
                return (resolution["outcome"] as? String, link?["id"] as? String, link?["status"] as? String)
            }
            // Until someone opens the link, nothing has asked the origin: active.
            #expect(try await status(missingID) == "active")
            #expect(try await resolved(missing).status == "active")
            let before = try await ServerMetricsTests.samples(api)
            func moved(_ series: String, _ now: [String: Double]) -> Double { (now[series] ?? 0) - (before[series] ?? 0) }

            for (id, token) in [(missingID, missing), (goneID, gone)] {
                // Visitors before the write lands and after it: each gets the 410 page, none counts a click.
                for _ in 0..<3 {
                    let page = try await WebPagesTests.open(api, "/s/\(token)")
                    #expect(page.status == 410 && page.text.contains("This link is no longer available."))
                }
                #expect(try await eventually { try await status(id) == "deleted" }, "\(id) was never marked deleted")
                #expect(try await WebPagesTests.open(api, "/s/\(token)").status == 410)
                let resolution = try await resolved(token)
                #expect(resolution.outcome == "linkUnavailable" && resolution.id == id && resolution.status == "deleted")
                #expect(try await api.call(.get, "/v1/links/\(id)", key: key).json["clicks"] as? Int == 0)
            }
            // The link whose item exists stays active.
            #expect(try await WebPagesTests.open(api, "/s/\(live)").status == 200)
            #expect(try await status(liveID) == "active")

            let after = try await ServerMetricsTests.samples(api)
            // Per deleted link: 4 share-page answers and 1 resolution; the live link's page once.
            #expect(moved(#"linkd_token_verdicts_total{verdict="deleted"}"#, after) == 10)
            #expect(moved(#"linkd_token_verdicts_total{verdict="active"}"#, after) == 1)
            #expect(moved(#"linkd_resolutions_total{outcome="linkUnavailable"}"#, after) == 2)

            // One audit entry per link by the actor "origin", however many visitors and reports.
            let expected: Set<[String]> = [["origin", "ordentus \(missingID)"], ["origin", "ordentus \(goneID)"]]
            #expect(try await eventually { Set(try await deletionAudit(api)) == expected })
            let late = LinkDeletions(store: api.store, logger: Logger(label: "test"))
            await late.record(linkID: missingID)  // a report racing the first, or from another instance
            #expect(try await deletionAudit(api).count == 2)
            #expect(try await status(missingID) == "deleted", "a deleted link is never active again")
            let logged = capture.lines.filter { $0.metadata["action"] == LinkDeletions.action.rawValue }
            #expect(Set(logged.map { $0.metadata["link"] ?? "" }) == [missingID, goneID] && logged.count == 2)
            #expect(logged.allSatisfy { $0.level == .notice && $0.metadata["actor"] == "origin" && $0.metadata["app"] == "ordentus" })
        }
    }

    @Test("a deletion the store cannot write is not lost: the next visit reports it again", arguments: StoreKind.allCases)
    func failedWriteIsRetried(backend: StoreKind) async throws {
        let origin = try LoopbackOrigin()
        defer { origin.stop() }
        let manifests = try WebPagesTests.manifests(originBaseURL: "http://127.0.0.1:\(origin.port)")
        let capture = LogCapture()
        try await withAPI(on: backend, logger: capture.logger(), { $0.links.manifests = manifests; $0.pages.previewWaitMilliseconds = 5000 }) { api in
            let key = try await api.clientKey(app: "ordentus")
            let (id, token) = try await WebPagesTests.link(api, key: key, eventId: "missing-2")
            #expect(try await api.call(.get, "/v1/links/\(id)", key: key).string("status") == "active")  // the record is cached
            api.faults.fault = .unavailable
            #expect(try await WebPagesTests.open(api, "/s/\(token)").status == 410, "the page never waits for the store")
            #expect(await eventually { capture.lines.contains { $0.level == .warning && $0.metadata["link"] == id } })
            api.faults.fault = .none
            #expect(try await api.call(.get, "/v1/links/\(id)", key: key).string("status") == "active", "the write failed")
            #expect(try await WebPagesTests.open(api, "/s/\(token)").status == 410)
            #expect(try await eventually { try await api.call(.get, "/v1/links/\(id)", key: key).string("status") == "deleted" })
            #expect(try await eventually { try await deletionAudit(api) == [["origin", "ordentus \(id)"]] })
        }
    }

    @Test("each .ics item's resolution counts in linkd_resolutions_total by outcome; an item no rule maps counts nothing")
    func calendarResolutionsCount() async throws {
        try await withAPI { api in
            let key = try await api.clientKey(app: "ordentus")
            let (_, live) = try await WebPagesTests.link(api, key: key, eventId: "e1")
            let (revokedID, revoked) = try await WebPagesTests.link(api, key: key, eventId: "e2")
            #expect(try await api.call(.delete, "/v1/links/\(revokedID)", key: key).status == 200)
            let before = try await ServerMetricsTests.samples(api)
            func moved(_ series: String, _ now: [String: Double]) -> Double { (now[series] ?? 0) - (before[series] ?? 0) }

            let ics = [
                "BEGIN:VCALENDAR", "VERSION:2.0",
                "BEGIN:VEVENT", "UID:standup-1", "SUMMARY:Standup", "END:VEVENT",  // the rule's route
                "BEGIN:VEVENT", "UID:2", "URL:https://links.ordentus.example/s/\(live)", "END:VEVENT",  // a live link: route
                "BEGIN:VEVENT", "UID:3", "URL:https://links.ordentus.example/s/\(revoked)", "END:VEVENT",  // linkUnavailable
                "BEGIN:VJOURNAL", "UID:4", "END:VJOURNAL",  // no rule: no resolution
                "END:VCALENDAR", "",
            ].joined(separator: "\r\n")
            let reply = try await api.call(.post, "/v1/resolve/ics?state=signedIn&app=ordentus", raw: ics, contentType: "text/calendar")
            #expect(reply.status == 200)
            let items = reply.json["items"] as? [[String: Any]] ?? []
            let outcomes = items.map { ($0["resolution"] as? [String: Any])?["outcome"] as? String }
            #expect(outcomes == ["route", "route", "linkUnavailable", nil])

            let after = try await ServerMetricsTests.samples(api)
            #expect(moved(#"linkd_resolutions_total{outcome="route"}"#, after) == 2)
            #expect(moved(#"linkd_resolutions_total{outcome="linkUnavailable"}"#, after) == 1)
            #expect(moved(#"linkd_resolutions_total{outcome="notFound"}"#, after) == 0)
            #expect(moved(#"linkd_resolutions_total{outcome="intercept"}"#, after) == 0)
            #expect(moved(#"linkd_token_verdicts_total{verdict="active"}"#, after) == 1)
            #expect(moved(#"linkd_token_verdicts_total{verdict="revoked"}"#, after) == 1)
        }
    }

    @Test("the unavailable page shows the manifest's share.message, escaped, on the 410 and on the app's 404 page")
    func manifestMessage() async throws {
        let ordentus = try String(contentsOfFile: exampleManifests.first { $0.hasSuffix("ordentus.yaml") }!, encoding: .utf8)
        let original = #"  message: "This link is no longer available.""#
        #expect(ordentus.contains(original))
        let path = temporaryDataDir() + "-ordentus.yaml"
        try ordentus.replacingOccurrences(of: original, with: #"  message: "This event is <b>gone</b> & archived.""#)
            .write(toFile: path, atomically: true, encoding: .utf8)
        let manifests = exampleManifests.filter { !$0.hasSuffix("ordentus.yaml") } + [path]
        try await withAPI({ $0.links.manifests = manifests }) { api in
            let port = try #require(api.client.port)
            let key = try await api.clientKey(app: "ordentus")
            let (id, token) = try await WebPagesTests.link(api, key: key, eventId: "e1")
            #expect(try await api.call(.delete, "/v1/links/\(id)", key: key).status == 200)
            let headline = #"<h1 id="message">This event is &lt;b&gt;gone&lt;/b&gt; &amp; archived.</h1>"#
            let gone = try await WebPagesTests.rawRequest(port: port, "/s/\(token)", host: "links.ordentus.example")
            #expect(gone.status == 410)
            #expect(gone.text.contains(headline))
            #expect(!gone.text.contains("<b>gone</b>") && !gone.text.contains("This link is no longer available."))
            let unknown = try await WebPagesTests.rawRequest(port: port, "/s/abc", host: "links.ordentus.example")
            #expect(unknown.status == 404 && unknown.body == gone.body)
            // Another app's page keeps its own (default) message.
            let handz = try await WebPagesTests.rawRequest(port: port, "/s/abc", host: "links.handz.example")
            #expect(handz.status == 404 && handz.text.contains(#"<h1 id="message">This link is no longer available.</h1>"#))
            let resolution = try await api.resolve("https://links.ordentus.example/s/\(token)", state: "signedIn")
            #expect(resolution["message"] as? String == "This event is <b>gone</b> & archived.")
        }
    }
}
