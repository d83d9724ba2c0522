import Foundation
import HTTPTypes
import HummingbirdTesting
import LinkRouter
import LinkdTestSupport
import Testing

@testable import LinkdServer

/// Firebase Dynamic Links–style long links on an app's host (`https://links.handz.example/?link=<deep link>&apn=…
/// &ibi=…&ofl=…`): resolved as the deep link they carry, when it is a URL of the same app; a browser gets that deep
/// link's page, never a redirect to a fallback (`ofl`, `ifl`, `afl`: no manifest names hosts they may go to); the
/// query is capped, names one link, and a nested long link is not followed.
///
/// Seed 001 §7.2: "If app is not installed: open web fallback (… a simple landing page that prompts App Store install)."
@Suite("Long links (FDL style)", .serialized)
struct LongLinkTests {
    static let host = "links.handz.example"
    static let flow = "6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b"

    /// The long link on Handz's host carrying `link`, with the FDL parameters people printed.
    static func longLink(_ link: String, extra: String = "") -> String {
        "https://\(host)/?link=\(FastPathTests.encoded(link))&apn=com.handz.android&ibi=com.handz.app&isi=6470000001"
            + "&ifl=https%3A%2F%2Fevil.example%2Fios&afl=https%3A%2F%2Fevil.example%2Fandroid&ofl=https%3A%2F%2Fevil.example%2F"
            + "&efr=1&utm_source=poster" + extra
    }

    /// The path and query of a URL on Handz's host.
    static func target(_ url: String) -> String { String(url.dropFirst("https://\(host)".count)) }

    @Test("a long link resolves as its deep link: a Handz route, a share URL, a custom path; refused when not Handz's, repeated, nested or oversized")
    func resolution() async throws {
        try await withAPI { api in
            // Seed 001 §4.3: Library/FlowDetail, `/flows/<uuid>` in examples/handz.yaml.
            let deep = "https://\(Self.host)/flows/\(Self.flow)"
            let byLongLink = try await api.resolve(Self.longLink(deep), state: "free")
            #expect(byLongLink["outcome"] as? String == "route")
            #expect(byLongLink["route"] as? String == "Library/FlowDetail")
            #expect((byLongLink["params"] as? [String: String])?["flowId"] == Self.flow)
            #expect(CustomPathTests.same(byLongLink)
                == CustomPathTests.same(try await api.resolve(deep, state: "free")))
            // The fast path's GET answers the same.
            let viaGet = try await api.call(.get, "/v1/resolve?url=\(FastPathTests.encoded(Self.longLink(deep)))&state=free")
            #expect(viaGet.json["route"] as? String == "Library/FlowDetail")
            // The custom scheme's deep link too.
            let scheme = try await api.resolve(Self.longLink("handz://flows/\(Self.flow)"), state: "free")
            #expect(scheme["route"] as? String == "Library/FlowDetail")

            // A share URL and a custom path carried by a long link: the link's resolution.
            let key = try await api.clientKey(app: "handz")
            let link = try await api.createHandzLink(key: key)
            let id = try #require(link["id"] as? String)
            let byShare = try await api.resolve(Self.longLink(try #require(link["url"] as? String)), state: "free")
            #expect((byShare["link"] as? [String: Any])?["id"] as? String == id)
            let withPath = try await CustomPathTests.create(api, key: key, path: "/long-link-flow")
            let pathID = try #require(withPath.string("id"))
            let byPath = try await api.resolve(Self.longLink("https://\(Self.host)/long-link-flow"), state: "free")
            #expect((byPath["link"] as? [String: Any])?["id"] as? String == pathID)

            // Refusals: notFound with `badLongLink`.
            let refused = [
                Self.longLink("https://links.coin.example/projects"),  // another app's URL
                Self.longLink("https://evil.example/flows/\(Self.flow)"),  // no app's
                Self.longLink(deep, extra: "&link=\(FastPathTests.encoded(deep))"),  // two links
                Self.longLink(Self.longLink(deep)),  // nested
                Self.longLink(deep, extra: "&pad=" + String(repeating: "x", count: 2_100)),  // over the query cap
                "https://\(Self.host)/?link=",  // empty
            ]
            for url in refused {
                let resolution = try await api.resolve(url, state: "free")
                #expect(resolution["outcome"] as? String == "notFound", "\(url.prefix(120))")
                #expect((resolution["problem"] as? [String: Any])?["code"] as? String == "badLongLink", "\(url.prefix(120)): \(resolution)")
            }
            let huge = try await api.resolve(Self.longLink(deep, extra: "&pad=" + String(repeating: "x", count: 5_000)), state: "free")
            #expect((huge["problem"] as? [String: Any])?["code"] as? String == "urlTooLong")
            // Not a long link: `/` without `link` is no route of Handz.
            let plain = try await api.resolve("https://\(Self.host)/?apn=com.handz.android", state: "free")
            #expect((plain["problem"] as? [String: Any])?["code"] as? String == "noMatch")
        }
    }

    @Test("a browser on a long link gets its deep link's landing page, never a redirect to a fallback; refused ones the 404 page")
    func pages() async throws {
        try await withAPI { api in
            let deep = "https://\(Self.host)/flows/\(Self.flow)"
            for agent in [UserAgent.iPhone, UserAgent.android, UserAgent.desktop] {
                let page = try await CustomPathTests.page(api, Self.target(Self.longLink(deep)), userAgent: agent)
                #expect(page.status == 200, "\(agent)")
                #expect(page.headers[.location] == nil)
                #expect(page.text.contains(deep), "\(agent): the deep link is the page's URL")
                #expect(!page.text.contains("evil.example"), "\(agent): no fallback is linked")
            }
            let iPhone = try await CustomPathTests.page(api, Self.target(Self.longLink(deep)), userAgent: UserAgent.iPhone)
            #expect(iPhone.text.contains("handz://flows/\(Self.flow)"), "Open in Handz opens the deep link")
            for url in [Self.longLink("https://links.coin.example/projects"), Self.longLink(Self.longLink(deep))] {
                let page = try await CustomPathTests.page(api, Self.target(url), userAgent: UserAgent.desktop)
                #expect(page.status == 404)
                #expect(!page.text.contains("evil.example"))
            }
        }
    }

    @Test("LongLink reads a long link's query: one link, percent-decoded once; nothing else is a long link")
    func parsing() {
        #expect(LongLink.parse("https://h.example/?link=https%3A%2F%2Fh.example%2Fa&ofl=x") == .inner("https://h.example/a"))
        #expect(LongLink.parse("https://h.example?link=handz%3A%2F%2Fa") == .inner("handz://a"))
        #expect(LongLink.parse("https://h.example/x?link=a") == nil, "a path")
        #expect(LongLink.parse("https://h.example/?ofl=a") == nil, "no link")
        #expect(LongLink.parse("handz://?link=a") == nil, "a custom scheme")
        guard case .refused = LongLink.parse("https://h.example/?link=a&link=b") else { Issue.record("two links"); return }
        guard case .refused = LongLink.parse("https://h.example/?link=https%3A%2F%2Fh.example%2F%3Flink%3Dx") else { Issue.record("nested"); return }
        guard case .refused = LongLink.parse("https://h.example/?link=%ZZ") else { Issue.record("a bad escape"); return }
        #expect(LongLink.parse("HTTPS://h.example/?%6Cink=handz%3A%2F%2Fa#frag") == .inner("handz://a"), "scheme case, an encoded name")
        #expect(LongLink.parse("https://h.example/?link=a+b%20c") == .inner("a+b c"), "`+` stays `+`")
        #expect(LongLink.parse("ftp://h.example/?link=a") == nil)
        #expect(LongLink.parse("https:/h.example/?link=a") == nil, "no ://")
    }

    @Test("LongLink.pathAndQuery: http(s) in any case, the first `:` opening `://`; anything else nil")
    func pathAndQuery() {
        func read(_ url: String) -> [String?]? { LongLink.pathAndQuery(url).map { [String($0.path), $0.query.map(String.init)] } }
        #expect(read("https://h.example/s/abc?x=1#f") == ["/s/abc", "x=1"])
        #expect(read("HtTp://h.example") == ["", nil])
        #expect(read("https://h.example?q") == ["", "q"])
        #expect(read("https://h.example/a:b//c") == ["/a:b//c", nil], "a later colon is the path's")
        #expect(read("http:x://h.example/a") == nil, "a colon before ://: the scheme would be http:x")
        #expect(read("httpss://h.example/a") == nil)
        #expect(read("htt://h.example/a") == nil)
        #expect(read("mailto:a@h.example") == nil)
        #expect(read("h.example/a") == nil)
        #expect(read("https:") == nil && read("https:/") == nil && read("") == nil)
    }

    @Test("LongLink.items: every item in order, decoded once; one that does not decode kept as written")
    func items() throws {
        let items = try #require(LongLink.items("https://h.example/?link=x%2Fy&utm_source=news%20letter&ofl=%ZZ&&bare&st=%F0%9F%A6%8A#f"))
        #expect(items.map(\.name) == ["link", "utm_source", "ofl", "bare", "st"])
        #expect(items.map(\.value) == ["x/y", "news letter", "%ZZ", "", "🦊"])
        #expect(LongLink.items("https://h.example/?" + String(repeating: "a", count: LongLink.maxQueryBytes + 1)) == nil)
        #expect(LongLink.items("handz://h/?link=a") == nil)
    }
}
