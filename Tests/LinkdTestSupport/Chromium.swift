import Foundation

/// Debian's chromium, headless, as the tests' real browser.
public enum Chromium {
    /// Loads `url` at a window of `size` ("390,844"), saves a screenshot to `screenshot` and returns the DOM after
    /// rendering, sending `userAgent` when given. Throws a message saying how to install chromium when it is missing.
    public static func load(_ url: String, size: String, screenshot: URL, userAgent: String? = nil) throws -> String {
        let chromium = try ExternalTool.path("chromium", install: "apt-get install chromium")
        try FileManager.default.createDirectory(at: screenshot.deletingLastPathComponent(), withIntermediateDirectories: true)
        let common = ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=\(size)"]
            + (userAgent.map { ["--user-agent=\($0)"] } ?? [])
        try ExternalTool.run(chromium, common + ["--screenshot=\(screenshot.path)", url])
        return String(decoding: try ExternalTool.run(chromium, common + ["--dump-dom", url]), as: UTF8.self)
    }
}
