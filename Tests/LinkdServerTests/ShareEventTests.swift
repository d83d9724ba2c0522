import Foundation
import HTTPTypes
import LinkStore
import LinkdTestSupport
import Prometheus
import Testing
import WebFallback

@testable import LinkdServer

/// The share-event buffer behind the running server: a failed flush keeps both kinds of counts for the next one,
/// and past the cap a new link's opens are dropped and counted in `linkd_share_events_dropped_total`.
@Suite("Share events through the server", .serialized)
struct ShareEventTests {
    @Test("a flush that fails keeps the click totals and the day rows; the next one writes each once", arguments: StoreKind.allCases)
    func failedFlushPutsBack(store: StoreKind) async throws {
        try await withAPI(on: store, { $0.store.clickFlushSeconds = 0.1 }) { api in
            let link = try await DeferredLinkTests.ordentusLink(api)
            // The record in memory, so that the share page needs no store while it fails.
            #expect(try await api.call(.get, "/v1/links/\(link.id)", key: api.adminKey).json["clicks"] as? Int == 0)
            api.faults.fault = .unavailable
            for agent in [UserAgent.iPhone, UserAgent.iPhone, UserAgent.crawler] {
                #expect(try await api.call(.get, "/s/\(link.token)", headers: [.userAgent: agent]).status == 200)
            }
            try await Task.sleep(for: .milliseconds(600))  // several flushes, each failing
            #expect(try await api.call(.get, "/v1/links/\(link.id)", key: api.adminKey).status == 503)
            api.faults.fault = .none

            let stats = try await AnalyticsTests.poll(api, "/v1/links/\(link.id)/stats", key: api.adminKey) { ($0["clicks"] as? Int) == 2 }
            #expect(stats["byPlatform"] as? [String: Int] == ["ios": 2, "android": 0, "desktop": 0])
            #expect(stats["previews"] as? Int == 1)
            #expect(stats["lastOpenedAt"] is String)
            try await Task.sleep(for: .milliseconds(400))  // more flushes: nothing is written twice
            let again = try await api.call(.get, "/v1/links/\(link.id)/stats", key: api.adminKey).json
            #expect(again["clicks"] as? Int == 2 && again["previews"] as? Int == 1, "\(again)")
            #expect(try await api.call(.get, "/v1/links/\(link.id)", key: api.adminKey).json["clicks"] as? Int == 2)
            #expect(try await api.store.clicks(linkID: link.id).count == 2, "written, not only pending")
        }
    }

    @Test("past the cap a new link's opens are dropped and counted; a link already pending keeps counting")
    func capDropsNewLinks() async throws {
        try await withAPI({ $0.store.shareEventBufferCapacity = 1; $0.store.clickFlushSeconds = 3600 }) { api in
            let pending = try await DeferredLinkTests.ordentusLink(api)
            let flood = try await DeferredLinkTests.ordentusLink(api, event: "retro")
            for _ in 0..<3 {
                #expect(try await api.call(.get, "/s/\(pending.token)", headers: [.userAgent: UserAgent.desktop]).status == 200)
            }
            for _ in 0..<2 {
                #expect(try await api.call(.get, "/s/\(flood.token)", headers: [.userAgent: UserAgent.desktop]).status == 200,
                        "a dropped open still gets its page")
            }
            #expect(try await api.call(.get, "/s/\(pending.token)", headers: [.userAgent: UserAgent.iPhone]).status == 200)
            #expect(try await api.call(.get, "/v1/links/\(pending.id)", key: api.adminKey).json["clicks"] as? Int == 4)
            #expect(try await api.call(.get, "/v1/links/\(flood.id)", key: api.adminKey).json["clicks"] as? Int == 0)
            let metrics = try await api.call(.get, "/metrics").text
            #expect(metrics.contains("linkd_share_events_dropped_total 2"), "\(metrics)")
            #expect(metrics.contains("linkd_link_opens_total{app=\"ordentus\",platform=\"desktop\"} 5"), "the open counters count every open")
        }
    }

    @Test("the drop counter: one per event refused, none for a link already pending")
    func dropCounter() throws {
        let metrics = ServerMetrics()
        let buffer = ShareEventBuffer(capacity: 3)
        let analytics = ShareAnalytics(buffer: buffer, metrics: AnalyticsMetrics(registry: metrics.registry, apps: ["handz"]))
        for n in 0..<10 { analytics.recordOpen(linkID: "link\(n)", app: "handz", client: .android) }
        analytics.recordStoreRedirect(linkID: "link0", app: "handz", platform: .ios)
        analytics.recordClaimMade(linkID: "link9", app: "handz")
        #expect(buffer.pendingLinks == 3)
        #expect(buffer.pendingClicks(linkID: "link0").count == 1)
        let text = metrics.registry.emitToString()
        #expect(text.contains("linkd_share_events_dropped_total 8"), "\(text)")
    }
}
