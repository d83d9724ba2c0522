import Testing
@testable import WebFallback

/// The rendered-page cache in front of the landing page: bounded, and a page opened again and again stays however
/// many pages are rendered once beside it.
@Suite struct RenderedPagesTests {
    static func key(_ token: String, _ client: UserAgentKind = .iOS) -> RenderedPageKey {
        RenderedPageKey(token: token, client: client)
    }

    @Test("a popular page stays while a crawl of a thousand one-off pages passes through a cache of 16")
    func popularPageStays() {
        let pages = RenderedPages<String>(capacity: 16)
        pages.store("popular", for: Self.key("hot"))
        for n in 0..<1_000 {
            pages.store("page \(n)", for: Self.key("tail-\(n)"))
            if n % 5 == 0 { #expect(pages.page(for: Self.key("hot"), maxAge: 10) == "popular", "after \(n) one-off pages") }
            #expect(pages.count <= 16)
        }
        #expect(pages.page(for: Self.key("tail-0"), maxAge: 10) == nil, "a one-off page long gone")
        #expect(pages.page(for: Self.key("tail-999"), maxAge: 10) == "page 999")
        #expect(pages.page(for: Self.key("hot", .android), maxAge: 10) == nil, "another client kind is another page")
    }

    @Test("a page older than the age asked is not given, in either generation")
    func expiredPages() {
        let pages = RenderedPages<String>(capacity: 4)
        pages.store("a", for: Self.key("a"))
        pages.store("b", for: Self.key("b"))
        pages.store("c", for: Self.key("c"))
        #expect(pages.page(for: Self.key("a"), maxAge: 0) == nil, "in the older generation")
        #expect(pages.page(for: Self.key("c"), maxAge: 0) == nil, "in the newer")
        #expect(pages.page(for: Self.key("c"), maxAge: 10) == "c")
        pages.store("c2", for: Self.key("c"))
        #expect(pages.page(for: Self.key("c"), maxAge: 10) == "c2", "a page stored again replaces the old one")
    }
}
