import Foundation
import UTCTime
import Mustache

/// Where the page templates come from.
///
/// Keys (all optional): `directory` — the default templates (`templates/` of the repository: `landing.mustache`,
/// `unavailable.mustache`, `linkd.css`); `appDirectories` — per app id, a directory whose files of the same names
/// replace the defaults for that app (a file that is missing there falls back to the default).
public struct PageConfiguration: Sendable {
    /// The default templates directory. Default: `templates`.
    public var directory: String
    /// Per-app override directories, keyed by app id. Default: none.
    public var appDirectories: [String: String]

    /// - Parameters: see the properties.
    public init(directory: String = "templates", appDirectories: [String: String] = [:]) {
        self.directory = directory
        self.appDirectories = appDirectories
    }
}

/// A page template could not be loaded.
public struct PageError: Error, Sendable, CustomStringConvertible {
    /// A machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String { case missingTemplate, badTemplate }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        /// A required template file is not there.
        public static let missingTemplate = Code(.missingTemplate)
        /// A template does not parse.
        public static let badTemplate = Code(.badTemplate)
        public var description: String { value.rawValue }
    }

    /// The reason.
    public let code: Code
    /// The file and what is wrong.
    public let message: String
    public var description: String { "\(code): \(message)" }
}

/// Renders the landing and unavailable pages from Mustache templates. Templates are parsed once, at `init`.
/// Every value is HTML-escaped by the templates (`{{…}}`, never `{{{…}}}` for outside strings). The landing page is
/// rendered through a skeleton compiled per context shape (`CompiledTemplate`), byte-identical to Mustache's output.
public final class PageRenderer: Sendable {
    static let templateNames = ["landing", "unavailable"]

    private let defaults: [String: CompiledTemplate]
    private let perApp: [String: [String: CompiledTemplate]]
    /// The stylesheet the pages link to; the server serves it at `/static/linkd.css` as `text/css`.
    public let stylesheet: String
    /// QR codes of share URLs, encoded once each; also used for `GET /s/{token}/qr.svg`.
    public let qrCodes = QRCodeCache()

    /// Loads and parses the templates.
    /// - Throws: `PageError` naming the file when a default template is missing or one does not parse.
    public init(configuration: PageConfiguration = .init()) throws(PageError) {
        defaults = try Self.load(directory: configuration.directory, required: true)
        var perApp: [String: [String: CompiledTemplate]] = [:]
        for (app, directory) in configuration.appDirectories {
            perApp[app] = try Self.load(directory: directory, required: false)
        }
        self.perApp = perApp
        let cssPath = configuration.directory + "/linkd.css"
        guard let css = FileManager.default.contents(atPath: cssPath) else {
            throw PageError(code: .missingTemplate, message: "\(cssPath): missing (the pages' stylesheet)")
        }
        stylesheet = String(decoding: css, as: UTF8.self)
    }

    private static func load(directory: String, required: Bool) throws(PageError) -> [String: CompiledTemplate] {
        var result: [String: CompiledTemplate] = [:]
        for name in templateNames {
            let path = "\(directory)/\(name).mustache"
            guard let bytes = FileManager.default.contents(atPath: path) else {
                if required { throw PageError(code: .missingTemplate, message: "\(path): missing") }
                continue
            }
            let source = String(decoding: bytes, as: UTF8.self)
            do {
                result[name] = CompiledTemplate(mustache: try MustacheTemplate(string: source), source: source)
            } catch {
                throw PageError(code: .badTemplate, message: "\(path): \(error)")
            }
        }
        return result
    }

    /// The template `name` (`landing`, `unavailable`) for `app`: its override when it has one, else the default.
    func template(_ name: String, app: String?) -> CompiledTemplate? {
        if let app, let override = perApp[app]?[name] { return override }
        return defaults[name]
    }

    /// The landing page (200) for a valid link, shaped for the client kind. `cachingQRCode`: whether the desktop
    /// page's QR code is kept in `qrCodes` (a signed share URL, met again); false for a URL the client made up (an
    /// app-link path), which is encoded for this page alone and never fills the cache.
    public func landing(_ page: LandingPage, for client: UserAgentKind, cachingQRCode: Bool = true) -> RenderedPage {
        let context = landingContext(page, client: client, cachingQRCode: cachingQRCode)
        let body = template("landing", app: page.app.appID)?.render(context) ?? []
        return RenderedPage(status: 200, headers: Self.htmlHeaders, utf8: body)
    }

    /// The unavailable page: 410 when gone, 404 when unknown, the same body either way; its headline is the
    /// page's `headline` (the manifest's `share.message`, else the fixed text), HTML-escaped by the template.
    public func unavailable(_ page: UnavailablePage) -> RenderedPage {
        var context: [String: Any] = [
            "lang": page.app?.language ?? "en",
            "message": page.headline,
            "title": page.pageTitle,
            "detail": page.detail,
        ]
        if let app = page.app {
            context["appName"] = app.displayName
            if let url = app.appStoreURL { context["appStoreURL"] = url }
            if let url = app.playStoreURL { context["playStoreURL"] = url }
        }
        if let cta = page.callToAction { context["cta"] = ["label": cta.label, "url": cta.url] }
        let body = template("unavailable", app: page.app?.appID)?.mustache.render(context) ?? ""
        return RenderedPage(status: page.status, headers: Self.htmlHeaders, body: body)
    }

    static let htmlHeaders: [(name: String, value: String)] =
        [("Content-Type", "text/html; charset=utf-8")] + SecurityHeaders.page

    /// The landing page's template context: the variables docs/web-fallback.md lists, each set once, in a fixed order
    /// (a context's slots are its strings in this order).
    func landingContext(_ page: LandingPage, client: UserAgentKind, cachingQRCode: Bool = true) -> TemplateObject {
        let app = page.app
        var context = TemplateObject(capacity: 24)
        context.set("lang", app.language)
        context.set("appName", app.displayName)
        context.set("shareURL", page.shareURL)
        let intent = client == .android ? androidIntentURL(page) : nil
        context.set("openURL", intent ?? page.openInAppURL)
        context.set("isIOS", client == .iOS)
        context.set("isAndroid", client == .android)
        context.set("isDesktop", client == .desktop)
        context.set("isCrawler", client == .crawler)
        let title = page.preview.map { String($0.title.prefix(300)) } ?? page.title ?? "Shared from \(app.displayName)"
        context.set("title", title)
        if let preview = page.preview {
            var item = TemplateObject(capacity: 6)
            item.set("title", title)
            var creator: String?
            if preview.allowCreatorName, let name = preview.creatorName, !name.isEmpty {
                creator = String(name.prefix(100))
                item.set("creator", creator)
            }
            if let updated = preview.updatedAt { item.set("updated", Self.dayText(updated)) }
            if let image = preview.imageURL, PageURL.isHTTPS(image) {
                item.set("imageURL", image)
                context.set("imageURL", image)
            }
            let badges = Self.badgeTexts(preview.badges, app: app)
            if !badges.isEmpty {
                item.set("hasBadges", true)
                item.set("badges", .list(badges.map { badge -> TemplateValue in
                    var entry = TemplateObject(capacity: 2)
                    entry.set("id", badge.id)
                    entry.set("text", badge.text)
                    return .object(entry)
                }))
            }
            context.set("preview", .object(item))
            context.set("description", creator.map { "Shared by \($0) on \(app.displayName)" } ?? "Open it in \(app.displayName)")
        } else {
            context.set("description", "Open it in \(app.displayName)")
        }
        if let id = app.appStoreID {
            context.set("appStoreID", id)
            context.set("appStoreURL", page.installBaseURL.map { $0 + "/ios" } ?? app.appStoreURL)
            // The Smart App Banner hands the share URL to the app when it is installed.
            context.set("smartBanner", "app-id=\(id), app-argument=\(page.shareURL)")
        }
        if let package = app.androidPackage {
            context.set("androidPackage", package)
            context.set("playStoreURL", page.installBaseURL.map { $0 + "/android" } ?? app.playStoreURL)
        }
        context.set("appLinkURL", page.customSchemeURL)
        if client == .desktop, let path = page.qrImagePath {
            context.set("qrImage", path)
        } else if client == .desktop, let svg = cachingQRCode
            ? qrCodes.svg(for: page.shareURL, moduleSize: 4) : try? QRCode.encode(page.shareURL).svg(moduleSize: 4) {
            context.set("qrSVG", svg)
        }
        return context
    }

    /// The texts of the preview's badges that the app's manifest names, in the preview's order, each once, at most
    /// `Preview.maxBadges`; unknown ids are ignored.
    static func badgeTexts(_ ids: [String], app: AppPageInfo) -> [(id: String, text: String)] {
        var seen = Set<String>()
        var result: [(id: String, text: String)] = []
        for id in ids.prefix(Preview.maxBadges) where seen.insert(id).inserted {
            if let text = app.badges[id] { result.append((id, text)) }
        }
        return result
    }

    /// `November 24, 2026` (UTC), as `DateFormatter`'s `MMMM d, yyyy` in `en_US_POSIX` wrote it, made without
    /// one: a `DateFormatter` maps megabytes of ICU's locale and calendar data into the daemon for this one line.
    static func dayText(_ date: Date) -> String {
        let day = UTCDateTime(date)
        return "\(monthNames[day.month - 1]) \(day.day), \(day.year)"
    }

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]

    /// `intent://<rest>#Intent;scheme=<scheme>;package=<package>;S.browser_fallback_url=<share URL>;end`, when the
    /// app has a custom-scheme URL for the item and an Android package; otherwise `nil` (the plain link is used).
    func androidIntentURL(_ page: LandingPage) -> String? {
        guard let package = page.app.androidPackage, let scheme = page.customScheme,
            let customURL = page.customSchemeURL, customURL.lowercased().hasPrefix(scheme.lowercased() + "://")
        else { return nil }
        let rest = customURL.dropFirst(scheme.count + 3)
        let fallback = PageURL.queryEscaped(page.installBaseURL.map { $0 + "/android" } ?? page.app.playStoreURL ?? page.shareURL)
        return "intent://\(rest)#Intent;scheme=\(scheme);package=\(package);S.browser_fallback_url=\(fallback);end"
    }
}
