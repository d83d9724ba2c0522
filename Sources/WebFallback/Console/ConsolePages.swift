import Foundation
import Mustache

/// The admin console's pages: the Mustache templates of `<templates>/admin/` (each page a template; `head` and
/// `foot` are partials every page includes) and the console's stylesheet `console.css`. Parsed once, at `init`.
/// Every value is HTML-escaped (`{{…}}`, never `{{{…}}}`).
public struct ConsolePages: Sendable {
    /// The pages the console renders; each must be there.
    static let pageNames = [
        "head", "foot", "sign-in", "overview", "keys", "confirm", "links", "link", "api-keys", "api-key-created", "audit",
        "message", "apps", "apps-impact", "stats", "webhooks", "webhook", "webhook-created",
    ]

    private let library: MustacheLibrary
    /// The console's stylesheet, served at `/admin/console.css`.
    public let stylesheet: String

    /// Loads and parses the templates of `directory/admin`.
    /// - Throws: `PageError` naming the file when one is missing or does not parse.
    public init(templatesDirectory directory: String) throws(PageError) {
        var templates: [String: MustacheTemplate] = [:]
        for name in Self.pageNames {
            let path = "\(directory)/admin/\(name).mustache"
            guard let bytes = FileManager.default.contents(atPath: path) else {
                throw PageError(code: .missingTemplate, message: "\(path): missing (an admin console page)")
            }
            do {
                templates[name] = try MustacheTemplate(string: String(decoding: bytes, as: UTF8.self))
            } catch {
                throw PageError(code: .badTemplate, message: "\(path): \(error)")
            }
        }
        library = MustacheLibrary(templates: templates)
        let cssPath = "\(directory)/admin/console.css"
        guard let css = FileManager.default.contents(atPath: cssPath) else {
            throw PageError(code: .missingTemplate, message: "\(cssPath): missing (the console's stylesheet)")
        }
        stylesheet = String(decoding: css, as: UTF8.self)
    }

    /// Page `name` rendered with `context` (dictionaries, arrays, strings, numbers and booleans).
    public func render(_ name: String, _ context: [String: Any]) -> String {
        library.render(context, withTemplate: name) ?? ""
    }

    /// The headers of a console page: HTML, the pages' security headers with a CSP that lets forms post to the
    /// console itself, never cached (a page may show a secret once).
    public static let headers: [(name: String, value: String)] =
        [("Content-Type", "text/html; charset=utf-8")] + SecurityHeaders.console
}
