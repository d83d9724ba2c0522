import Foundation
import LinkdTestSupport
import Testing

/// The console's stats pages in headless chromium, through a real `linkd serve`: share pages opened from phones,
/// a desktop and a crawler, then an app's and a link's stats (the chart, the table's numbers, the date form).
@Suite("admin console in chromium: an app's and a link's stats")
struct ConsoleStatsBrowserTests {
    /// Signs `browser` in to the console of `base` with `key`.
    static func signIn(_ browser: ChromiumDriver, _ base: String, _ key: String) throws {
        try browser.open(base + "/admin")
        try browser.fill("#key", key)
        try browser.clickAndWait("form[action='/admin/sign-in'] button")
        #expect(try browser.url() == base + "/admin")
    }

    /// The cells of each body row of the table in the section with id `section`, trimmed.
    static func rows(_ browser: ChromiumDriver, _ section: String) throws -> [[String]] {
        try browser.evaluate("""
            [...document.querySelectorAll('#\(section) table tbody tr')].map(r => [...r.cells].map(c => c.textContent.trim()))
            """) as? [[String]] ?? []
    }

    /// The totals tiles of the page: label → number.
    static func tiles(_ browser: ChromiumDriver) throws -> [String: String] {
        let pairs = try browser.evaluate("""
            [...document.querySelectorAll('.tiles div')].map(d => [d.querySelector('dt').textContent.trim(), d.querySelector('dd').textContent.trim()])
            """) as? [[String]] ?? []
        return Dictionary(pairs.map { ($0[0], $0[1]) }, uniquingKeysWith: { first, _ in first })
    }

    /// Today, UTC, as `YYYY-MM-DD`.
    static var today: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }

    @Test("an app's stats after share-page opens: tiles, chart, table, platforms, top links; bad dates; a link's stats")
    func statsPages() async throws {
        let daemon = try LinkdDaemon(dataDir: temporaryDataDir())
        defer { daemon.stop() }
        let adminKey = try #require(daemon.initialAdminKey)
        let base = daemon.baseURL
        var ids: [String] = []
        for title in ["Morning flow", "Evening flow"] {
            let link = try await TestHTTP.send("POST", base + "/v1/links", bearer: adminKey, json: [
                "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()], "title": title,
            ])
            ids.append(try #require(link.json["id"] as? String))
            let token = try #require(link.json["token"] as? String)
            // The first link: 2 iPhone, 3 Android, 1 desktop, 2 crawlers; the second: one iPhone open from a
            // newsletter's campaign, through a news site.
            let second = title == "Evening flow"
            for (agent, times) in second ? [(UserAgent.iPhone, 1)] : UserAgent.opens {
                for _ in 0..<times {
                    let url = base + "/s/\(token)" + (second ? "?utm_source=Newsletter&utm_campaign=Spring%20Sale" : "")
                    var headers = ["User-Agent": agent]
                    if second { headers["Referer"] = "https://news.example.com/story/42" }
                    #expect(try await TestHTTP.send("GET", url, headers: headers).status == 200)
                }
            }
        }
        // The daily rows are written every second: wait until the API counts all 7 opens.
        var counted = false
        for _ in 0..<50 where !counted {
            let stats = try await TestHTTP.send("GET", base + "/v1/apps/handz/stats", bearer: adminKey)
            counted = stats.json["clicks"] as? Int == 7
            if !counted { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(counted)

        let browser = try ChromiumDriver(width: ConsoleBrowserTests.desktop.width, height: ConsoleBrowserTests.desktop.height)
        defer { browser.close() }
        try Self.signIn(browser, base, adminKey)
        try browser.clickAndWait("nav a[href='/admin/apps']")
        try browser.clickAndWait("a[href='/admin/apps/handz/stats']")
        #expect(try Self.tiles(browser) == ["Opens": "7", "Installs": "0", "Claims": "0", "Previews": "2"])
        #expect(try Self.rows(browser, "by-day") == [[Self.today, "7", "3", "3", "1", "2", "0"]])
        #expect(try Self.rows(browser, "by-platform") == [["iOS", "3", "0"], ["Android", "3", "0"], ["Desktop", "1", "—"]])
        #expect(try Self.rows(browser, "by-campaign") == [["No campaign", "—", "—", "6"], ["spring-sale", "newsletter", "—", "1"]])
        #expect(try Self.rows(browser, "by-referrer") == [
            ["No referring site (direct, an app, or no-referrer)", "6"], ["news.example.com", "1"],
        ])
        let top = try Self.rows(browser, "top")
        #expect(top.map { $0[1] } == ["6", "1"] && top.first?.first?.contains("Morning flow") == true, "\(top)")
        // The chart: one bar (today) drawn full height under the stylesheet (the CSP allows no inline style), hidden
        // from screen readers, whose table has a caption.
        #expect(try browser.evaluate("document.querySelectorAll('#by-day svg rect.chart-bar').length") as? Int == 1)
        #expect(try browser.evaluate("document.querySelector('#by-day svg').getAttribute('aria-hidden')") as? String == "true")
        #expect(try browser.evaluate("getComputedStyle(document.querySelector('rect.chart-bar')).fill") as? String == "rgb(11, 87, 208)")
        let barHeight = (try browser.evaluate("document.querySelector('rect.chart-bar').getBoundingClientRect().height") as? NSNumber)?.doubleValue
        #expect((barHeight ?? 0) > 100, "the largest bar reaches the scale's top (8 of 12 rem at the least)")
        #expect(try browser.text().contains("Opens by UTC day"))
        try ConsoleBrowserTests.capture(browser, "app-stats")

        // The date form: a range long past shows zeros; a bad date shows the page with a message, not a 500.
        try browser.fill("#from", "2020-01-01")
        try browser.fill("#to", "2020-01-31")
        try browser.clickAndWait("form[action='/admin/apps/handz/stats'] button[type=submit]")
        #expect(try browser.url().hasSuffix("/admin/apps/handz/stats?from=2020-01-01&to=2020-01-31"))
        #expect(try Self.tiles(browser)["Opens"] == "0")
        #expect(try browser.text().contains("Nobody opened the share page in these days."))
        try browser.open(base + "/admin/apps/handz/stats?from=2026-13-01")
        let refused = try browser.text()
        #expect(refused.contains("'from' must be a date as YYYY-MM-DD. Showing the default range instead."), "\(refused)")
        #expect(try Self.tiles(browser)["Opens"] == "7")
        try ConsoleBrowserTests.capture(browser, "app-stats-bad-date")
        try browser.open(base + "/admin/apps/handz/stats?from=2026-02-10&to=2026-02-01")
        #expect(try browser.text().contains("'from' must not be after 'to'"))
        try browser.open(base + "/admin/apps/handz/stats?from=2020-01-01&to=2020-12-31")
        #expect(try browser.text().contains("a range is at most 92 days"))

        // The top link's stats, from the app's page; and from the link's own page.
        try browser.open(base + "/admin/apps/handz/stats")
        try browser.clickAndWait("#top a[href='/admin/links/\(ids[0])/stats']")
        #expect(try Self.tiles(browser) == ["Opens": "6", "Installs": "0", "Claims": "0", "Previews": "2"])
        #expect(try Self.rows(browser, "by-day") == [[Self.today, "6", "2", "3", "1", "2", "0"]])
        #expect(try Self.rows(browser, "by-platform") == [["iOS", "2", "0"], ["Android", "3", "0"], ["Desktop", "1", "—"]])
        try ConsoleBrowserTests.capture(browser, "link-stats")
        try browser.open(base + "/admin/links/\(ids[1])")
        #expect(try Self.tiles(browser)["Opens"] == "1")
        try browser.clickAndWait("a[href='/admin/links/\(ids[1])/stats']")
        #expect(try Self.rows(browser, "by-platform").first == ["iOS", "1", "0"])
        #expect(try Self.rows(browser, "by-campaign") == [["spring-sale", "newsletter", "—", "1"]])
        #expect(try Self.rows(browser, "by-referrer") == [["news.example.com", "1"]])
        try ConsoleBrowserTests.capture(browser, "link-stats-sources")
        try browser.open(base + "/admin/links/\(ids[1])/stats?to=nope")
        #expect(try browser.text().contains("'to' must be a date as YYYY-MM-DD"))
    }
}
