import Testing
@testable import WebFallback

/// The rendered-page cache in front of the landing page: bounded, a page kept from its second offer on, and a page
/// opened again and again stays however many pages are rendered beside it.
@Suite struct RenderedPagesTests {
    static func key(_ token: String, _ client: UserAgentKind = .iOS) -> RenderedPageKey {
        RenderedPageKey(token: token, client: client)
    }

    /// Offers `page` twice, so that it is kept.
    static func keep(_ page: String, for key: RenderedPageKey, in pages: RenderedPages<String>) {
        pages.offer(page, for: key)
        #expect(pages.offer(page, for: key), "kept at its second offer")
    }

    @Test("a page offered once is not kept; offered again, it is")
    func keptFromTheSecondOffer() {
        let pages = RenderedPages<String>(capacity: 16)
        #expect(!pages.offer("first", for: Self.key("t")))
        #expect(pages.page(for: Self.key("t"), maxAge: 10) == nil)
        #expect(pages.count == 0)
        #expect(pages.offer("second", for: Self.key("t")))
        #expect(pages.page(for: Self.key("t"), maxAge: 10) == "second")
        #expect(!pages.offer("android", for: Self.key("t", .android)), "another client kind is another key")
    }

    @Test("a long tail of pages offered once each leaves the cache as it was")
    func oneOffPagesAreNotKept() {
        let pages = RenderedPages<String>(capacity: 16)
        Self.keep("popular", for: Self.key("hot"), in: pages)
        Self.keep("warm", for: Self.key("warm"), in: pages)
        var kept = 0
        for n in 0..<10_000 where pages.offer("page \(n)", for: Self.key("tail-\(n)")) { kept += 1 }
        #expect(kept == 0, "no page of 10,000 distinct keys kept")
        #expect(pages.count == 2)
        #expect(pages.page(for: Self.key("hot"), maxAge: 10) == "popular")
        #expect(pages.page(for: Self.key("warm"), maxAge: 10) == "warm", "not pushed out by the tail")
    }

    @Test("a popular page stays while a thousand pages, each kept, pass through a cache of 16")
    func popularPageStays() {
        let pages = RenderedPages<String>(capacity: 16)
        Self.keep("popular", for: Self.key("hot"), in: pages)
        for n in 0..<1_000 {
            Self.keep("page \(n)", for: Self.key("tail-\(n)"), in: pages)
            if n % 5 == 0 { #expect(pages.page(for: Self.key("hot"), maxAge: 10) == "popular", "after \(n) pages") }
            #expect(pages.count <= 16)
        }
        #expect(pages.page(for: Self.key("tail-0"), maxAge: 10) == nil, "a page kept once, long gone")
        #expect(pages.page(for: Self.key("tail-999"), maxAge: 10) == "page 999")
        #expect(pages.page(for: Self.key("hot", .android), maxAge: 10) == nil, "another client kind is another page")
    }

    @Test("a page older than the age asked is not given, in either generation")
    func expiredPages() {
        let pages = RenderedPages<String>(capacity: 4)
        Self.keep("a", for: Self.key("a"), in: pages)
        Self.keep("b", for: Self.key("b"), in: pages)
        Self.keep("c", for: Self.key("c"), in: pages)
        #expect(pages.page(for: Self.key("a"), maxAge: 0) == nil, "in the older generation")
        #expect(pages.page(for: Self.key("c"), maxAge: 0) == nil, "in the newer")
        #expect(pages.page(for: Self.key("c"), maxAge: 10) == "c")
        #expect(pages.offer("c2", for: Self.key("c")), "a key noted before: its new page is kept at once")
        #expect(pages.page(for: Self.key("c"), maxAge: 10) == "c2", "a page kept again replaces the old one")
    }
}
