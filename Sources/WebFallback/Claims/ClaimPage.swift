import Foundation
import Mustache

/// The iOS page of a deferred deep link, between the landing page's App Store button and the App Store: it offers
/// the claim as a link the person can copy (`<share URL>#linkd_claim=<code>`), for the app to read with a paste
/// button on its first launch, and goes on to the App Store. A small script (`claim.js`) adds a "Copy and get the
/// app" button; without it the page works the same by long-press → Copy.
public struct ClaimPage: Sendable, Equatable {
    /// The app.
    public var app: AppPageInfo
    /// What is being handed over (the link's title), shown escaped; nil: "Shared from <App>".
    public var title: String?
    /// The link to copy: the share URL with `#linkd_claim=<code>`.
    public var claimLink: String
    /// The App Store page.
    public var storeURL: String

    /// - Parameters: see the properties.
    public init(app: AppPageInfo, title: String?, claimLink: String, storeURL: String) {
        self.app = app
        self.title = title
        self.claimLink = claimLink
        self.storeURL = storeURL
    }

    /// The text an app looks for in what it reads (pasteboard, install referrer): `linkd_claim=` then the code.
    public static let claimKey = "linkd_claim"
}

/// Renders `ClaimPage` from `claim.mustache` of the templates directory and holds `claim.js`, the page's script,
/// which the server serves at `/static/claim.js`.
public struct ClaimPageRenderer: Sendable {
    private let template: MustacheTemplate
    /// The "Copy and get the app" script (served as `application/javascript`).
    public let script: String

    /// Loads `claim.mustache` and `claim.js` from `directory`.
    /// - Throws: `PageError` naming the file when one is missing or the template does not parse.
    public init(directory: String) throws(PageError) {
        let templatePath = directory + "/claim.mustache", scriptPath = directory + "/claim.js"
        guard let bytes = FileManager.default.contents(atPath: templatePath) else {
            throw PageError(code: .missingTemplate, message: "\(templatePath): missing")
        }
        guard let script = FileManager.default.contents(atPath: scriptPath) else {
            throw PageError(code: .missingTemplate, message: "\(scriptPath): missing (the claim page's script)")
        }
        do {
            template = try MustacheTemplate(string: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw PageError(code: .badTemplate, message: "\(templatePath): \(error)")
        }
        self.script = String(decoding: script, as: UTF8.self)
    }

    /// The page (200, `no-store`: it carries a code), with the pages' security headers and a policy that lets
    /// only `/static/claim.js` run.
    public func render(_ page: ClaimPage) -> RenderedPage {
        let context: [String: Any] = [
            "lang": page.app.language,
            "appName": page.app.displayName,
            "title": page.title.flatMap { $0.isEmpty ? nil : String($0.prefix(300)) } ?? "Shared from \(page.app.displayName)",
            "claimLink": page.claimLink,
            "storeURL": page.storeURL,
        ]
        return RenderedPage(
            status: 200, headers: [("Content-Type", "text/html; charset=utf-8")] + SecurityHeaders.claimPage,
            body: template.render(context))
    }
}
