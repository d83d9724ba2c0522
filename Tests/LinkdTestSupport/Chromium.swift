public import Foundation

/// Debian's chromium, headless, as the tests' real browser.
public enum Chromium {
    /// A screenshot chromium did not write, or wrote as something other than a PNG image.
    public struct ScreenshotMissing: Error, CustomStringConvertible {
        /// The file and what is wrong with it.
        public let description: String
    }

    /// Loads `url` at a window of `size` ("390,844"), saves a screenshot to `screenshot` and returns the DOM after
    /// rendering, sending `userAgent` when given; `arguments` are added to chromium's (e.g.
    /// `--host-resolver-rules=MAP links.example 127.0.0.1:8080` to reach a local server under an app's host name).
    /// Throws a message saying how to install chromium when it is missing, and `ScreenshotMissing` when the
    /// screenshot is not a non-empty PNG afterwards (a stale file from an earlier run is removed first).
    public static func load(
        _ url: String, size: String, screenshot: URL, userAgent: String? = nil, arguments: [String] = []
    ) throws -> String {
        let chromium = try ExternalTool.path("chromium", install: "apt-get install chromium")
        try FileManager.default.createDirectory(at: screenshot.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: screenshot)
        let common = ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=\(size)"]
            + (userAgent.map { ["--user-agent=\($0)"] } ?? []) + arguments
        try ExternalTool.run(chromium, common + ["--screenshot=\(screenshot.path)", url])
        guard isPNG(at: screenshot) else {
            throw ScreenshotMissing(description: "\(screenshot.path): chromium wrote no PNG screenshot of \(url)")
        }
        return String(decoding: try ExternalTool.run(chromium, common + ["--dump-dom", url]), as: UTF8.self)
    }

    /// Whether `file` exists and holds a PNG image with a header: the 8-byte PNG signature, then an `IHDR` chunk
    /// of non-zero width and height.
    public static func isPNG(at file: URL) -> Bool {
        guard let data = try? Data(contentsOf: file), data.count > 24 else { return false }
        let bytes = [UInt8](data.prefix(24))
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return false }
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        return width > 0 && height > 0
    }

    /// The width and height of a PNG image (from its `IHDR` chunk), nil when `file` is not one.
    public static func pngSize(at file: URL) -> (width: Int, height: Int)? {
        guard isPNG(at: file), let data = try? Data(contentsOf: file) else { return nil }
        let bytes = [UInt8](data.prefix(24))
        return (bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, bytes[20..<24].reduce(0) { $0 << 8 | Int($1) })
    }
}
