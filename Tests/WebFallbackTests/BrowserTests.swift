import Foundation
import LinkdTestSupport
import Testing
@testable import WebFallback

/// The pages in Debian's headless chromium at a phone's and a desktop's size: the rendered DOM is checked and a
/// screenshot kept under `artifacts/web/` (gitignored). Fails with a clear message when chromium is missing.
@Suite(.serialized) struct BrowserTests {
    static let sizes = [("phone", "390,844"), ("desktop", "1280,800")]

    private var artifacts: URL {
        URL(fileURLWithPath: Fixtures.templatesDirectory).deletingLastPathComponent()
            .appendingPathComponent("artifacts/web")
    }

    /// Writes the page next to a copy of the stylesheet, loads it, returns the DOM after rendering.
    private func load(_ page: RenderedPage, name: String, size: String, renderer: PageRenderer) throws -> String {
        try FileManager.default.createDirectory(at: artifacts.appendingPathComponent("static"), withIntermediateDirectories: true)
        try Data(renderer.stylesheet.utf8).write(to: artifacts.appendingPathComponent("static/linkd.css"))
        // The server serves the stylesheet at /static/linkd.css; from a file the same link is relative.
        let html = page.body.replacingOccurrences(of: "href=\"/static/linkd.css\"", with: "href=\"static/linkd.css\"")
        let file = artifacts.appendingPathComponent("\(name).html")
        try Data(html.utf8).write(to: file)
        let screenshot = artifacts.appendingPathComponent("\(name).png")
        let dom = try Chromium.load(file.absoluteString, size: size, screenshot: screenshot)
        Self.expectScreenshot(screenshot, size: size)
        return dom
    }

    /// The screenshot is there, a PNG, as wide as the window.
    static func expectScreenshot(_ file: URL, size: String) {
        let image = Chromium.pngSize(at: file)
        #expect(image != nil, "\(file.path) is not a non-empty PNG")
        #expect(image?.width == Int(size.split(separator: ",")[0]), "\(file.path): \(String(describing: image)) for a window of \(size)")
    }

    @Test func landingPageRenders() throws {
        let renderer = try Fixtures.renderer()
        for (label, size) in Self.sizes {
            let kind: UserAgentKind = label == "phone" ? .iOS : .desktop
            var landing = Fixtures.landing(title: "<script>document.title='pwned'</script>Flow")
            landing.app.badges = ["privateUpload": "Private upload - not shared via link."]
            landing.preview?.badges = ["privateUpload"]
            let page = renderer.landing(landing, for: kind)
            let dom = try load(page, name: "landing-\(label)", size: size, renderer: renderer)
            #expect(dom.contains("id=\"open-in-app\""))
            #expect(dom.contains(">Open in Handz</a>"))
            #expect(dom.contains("id=\"app-store\""))
            #expect(dom.contains("id=\"google-play\""))
            #expect(dom.contains("<meta name=\"apple-itunes-app\""))
            #expect(dom.contains("<meta property=\"og:title\""))
            #expect(dom.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;Flow"))
            #expect(!dom.contains("<title>pwned</title>"))
            #expect(dom.contains("<svg") == (kind == .desktop))
            #expect(dom.contains("<li class=\"badge\" data-badge=\"privateUpload\">Private upload - not shared via link.</li>"))
        }
    }

    @Test func unavailablePageRenders() throws {
        let renderer = try Fixtures.renderer()
        let page = renderer.unavailable(UnavailablePage(
            app: Fixtures.handz, reason: .gone, callToAction: CallToAction(label: "Open Handz", url: "handz://welcome")))
        for (label, size) in Self.sizes {
            let dom = try load(page, name: "unavailable-\(label)", size: size, renderer: renderer)
            #expect(dom.contains("This link is no longer available."))
            #expect(dom.contains("id=\"cta\" href=\"handz://welcome\""))
            #expect(dom.contains("id=\"app-store\" href=\"https://apps.apple.com/app/id1234567890\""))
            #expect(dom.contains("id=\"google-play\""))
            #expect(dom.contains("<html lang=\"en\">"))
        }
    }
}
