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
/// Every value is HTML-escaped by the templates (`{{…}}`, never `{{{…}}}` for outside strings).
public struct PageRenderer: Sendable {
    static let templateNames = ["landing", "unavailable"]

    private let defaults: [String: MustacheTemplate]
    private let perApp: [String: [String: MustacheTemplate]]
    /// The stylesheet the pages link to; the server serves it at `/static/linkd.css` as `text/css`.
    public let stylesheet: String
    /// QR codes of share URLs, encoded once each; also used for `GET /s/{token}/qr.svg`.
    public let qrCodes = QRCodeCache()

    /// Loads and parses the templates.
    /// - Throws: `PageError` naming the file when a default template is missing or one does not parse.
    public init(configuration: PageConfiguration = .init()) throws(PageError) {
        defaults = try Self.load(directory: configuration.directory, required: true)
        var perApp: [String: [String: MustacheTemplate]] = [:]
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

    private static func load(directory: String, required: Bool) throws(PageError) -> [String: MustacheTemplate] {
        var result: [String: MustacheTemplate] = [:]
        for name in templateNames {
            let path = "\(directory)/\(name).mustache"
            guard let bytes = FileManager.default.contents(atPath: path) else {
                if required { throw PageError(code: .missingTemplate, message: "\(path): missing") }
                continue
            }
            do {
                result[name] = try MustacheTemplate(string: String(decoding: bytes, as: UTF8.self))
            } catch {
                throw PageError(code: .badTemplate, message: "\(path): \(error)")
            }
        }
        return result
    }

    private func template(_ name: String, app: String?) -> MustacheTemplate? {
        if let app, let override = perApp[app]?[name] { return override }
        return defaults[name]
    }

    /// The landing page (200) for a valid link, shaped for the client kind. `cachingQRCode`: whether the desktop
    /// page's QR code is kept in `qrCodes` (a signed share URL, met again); false for a URL the client made up (an
    /// app-link path), which is encoded for this page alone and never fills the cache.
    public func landing(_ page: LandingPage, for client: UserAgentKind, cachingQRCode: Bool = true) -> RenderedPage {
        let context = landingContext(page, client: client, cachingQRCode: cachingQRCode)
        let body = template("landing", app: page.app.appID)?.render(context) ?? ""
        return RenderedPage(status: 200, headers: Self.htmlHeaders, body: body)
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
        let body = template("unavailable", app: page.app?.appID)?.render(context) ?? ""
        return RenderedPage(status: page.status, headers: Self.htmlHeaders, body: body)
    }

    static let htmlHeaders: [(name: String, value: String)] =
        [("Content-Type", "text/html; charset=utf-8")] + SecurityHeaders.page

    func landingContext(_ page: LandingPage, client: UserAgentKind, cachingQRCode: Bool = true) -> [String: Any] {
        let app = page.app
        var context: [String: Any] = [
            "lang": app.language,
            "appName": app.displayName,
            "shareURL": page.shareURL,
            "openURL": page.openInAppURL,
            "isIOS": client == .iOS,
            "isAndroid": client == .android,
            "isDesktop": client == .desktop,
            "isCrawler": client == .crawler,
        ]
        let title = page.preview.map { String($0.title.prefix(300)) } ?? page.title ?? "Shared from \(app.displayName)"
        context["title"] = title
        if let preview = page.preview {
            var item: [String: Any] = ["title": title]
            if preview.allowCreatorName, let creator = preview.creatorName, !creator.isEmpty {
                item["creator"] = String(creator.prefix(100))
            }
            if let updated = preview.updatedAt { item["updated"] = Self.dayText(updated) }
            if let image = preview.imageURL, PageURL.isHTTPS(image) {
                item["imageURL"] = image
                context["imageURL"] = image
            }
            let badges = Self.badgeTexts(preview.badges, app: app)
            if !badges.isEmpty {
                item["hasBadges"] = true
                item["badges"] = badges.map { ["id": $0.id, "text": $0.text] }
            }
            context["preview"] = item
            context["description"] = item["creator"].map { "Shared by \($0) on \(app.displayName)" }
                ?? "Open it in \(app.displayName)"
        } else {
            context["description"] = "Open it in \(app.displayName)"
        }
        if let id = app.appStoreID {
            context["appStoreID"] = id
            context["appStoreURL"] = page.installBaseURL.map { $0 + "/ios" } ?? app.appStoreURL
            // The Smart App Banner hands the share URL to the app when it is installed.
            context["smartBanner"] = "app-id=\(id), app-argument=\(page.shareURL)"
        }
        if let package = app.androidPackage {
            context["androidPackage"] = package
            context["playStoreURL"] = page.installBaseURL.map { $0 + "/android" } ?? app.playStoreURL
        }
        if let customURL = page.customSchemeURL { context["appLinkURL"] = customURL }
        if client == .android, let intent = androidIntentURL(page) { context["openURL"] = intent }
        if client == .desktop, let path = page.qrImagePath {
            context["qrImage"] = path
        } else if client == .desktop, let svg = cachingQRCode
            ? qrCodes.svg(for: page.shareURL, moduleSize: 4) : try? QRCode.encode(page.shareURL).svg(moduleSize: 4) {
            context["qrSVG"] = svg
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

    /// `intent://<rest>#Intent;scheme=<scheme>;package=<package>;S.browser_fallback_url=<share URL>;end`, when the
    /// app has a custom-scheme URL for the item and an Android package; otherwise `nil` (the plain link is used).
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

    func androidIntentURL(_ page: LandingPage) -> String? {
        guard let package = page.app.androidPackage, let scheme = page.customScheme,
            let customURL = page.customSchemeURL, customURL.lowercased().hasPrefix(scheme.lowercased() + "://")
        else { return nil }
        let rest = customURL.dropFirst(scheme.count + 3)
        let fallback = PageURL.queryEscaped(page.installBaseURL.map { $0 + "/android" } ?? page.app.playStoreURL ?? page.shareURL)
        return "intent://\(rest)#Intent;scheme=\(scheme);package=\(package);S.browser_fallback_url=\(fallback);end"
    }
}
