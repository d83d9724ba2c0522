import Foundation
import LinkRouter
import LinkStore
import PrintableText
import TokenSigning

// The checks of a new link's fields, once for every way a link is made: `POST /v1/links` (`create`) and each row of an
// import (`LinkImporter`).
extension LinkService {
    /// A new link's fields as `check` accepted them.
    struct CheckedLink: Sendable {
        let route: String
        let params: [String: String]
        let ttlSeconds: Int
        let suite: TokenSuite
        let campaign: Campaign?
        /// The app's manifest (it has a share section).
        let manifest: AppManifest
    }

    /// Checks a new link's fields as `POST /v1/links` does — the caps and characters, the route (the manifest's
    /// `share.route` when none is named) shareable with these params, the lifetime, the suite, the campaign, the app's
    /// share section — and everything but its custom path (`checkCustomPath`). Imports check each row through it.
    func check(_ request: CreateLinkRequest, app: String, router: Router) throws -> CheckedLink {
        let params = request.params ?? [:]
        try Self.checkCaps(request, params: params)
        let manifest = router.manifest(app: app)
        guard let routeID = request.route ?? manifest?.share?.route else {
            throw LinkError(.invalid, "route is required: app \(app) has no share configuration in its manifest")
        }
        if request.route == nil, manifest?.routes[routeID]?.shareable != true {
            throw LinkError(.invalid, "route is required: \(app)'s share.route \(routeID) is not shareable, so name the shareable route to open")
        }
        let ttl = request.ttlSeconds ?? defaultTTLSeconds
        guard (Caps.minTTLSeconds...maxTTLSeconds).contains(ttl) else {
            throw LinkError(.invalid, "ttlSeconds must be between \(Caps.minTTLSeconds) and \(maxTTLSeconds)")
        }
        let suite: TokenSuite
        if let name = request.suite {
            guard let parsed = TokenSuite(name: name) else {
                throw LinkError(.invalid, "suite must be hmac-sha256 or ed25519")
            }
            suite = parsed
        } else {
            suite = .hmacSHA256
        }
        do {
            try router.checkShareTarget(app: app, route: routeID, params: params)
        } catch {
            let code: LinkError.Code = switch error.code {
            case .unknownRoute: .unknownRoute
            case .notShareable: .notShareable
            case .badParams: .badParams
            default: .invalid
            }
            throw LinkError(code, error.message)
        }
        guard router.shareURL(app: app, token: "t") != nil, let shareManifest = manifest else {
            throw LinkError(.invalid, "app \(app) has no share configuration in its manifest")
        }
        return CheckedLink(
            route: routeID, params: params, ttlSeconds: ttl, suite: suite, campaign: try Self.campaign(request.campaign),
            manifest: shareManifest)
    }

    static func checkCaps(_ request: CreateLinkRequest, params: [String: String]) throws {
        func refuse(_ message: String) -> LinkError { LinkError(.invalid, message) }
        if let route = request.route, route.isEmpty || route.unicodeScalars.count > Caps.routeLength {
            throw refuse("route must be 1–\(Caps.routeLength) characters")
        }
        guard params.count <= Caps.params else { throw refuse("at most \(Caps.params) params") }
        for (key, value) in params
        where key.unicodeScalars.count > Caps.paramNameLength || value.unicodeScalars.count > Caps.paramValueLength {
            throw refuse("param names are at most \(Caps.paramNameLength) characters and values \(Caps.paramValueLength)")
        }
        if let owner = request.owner, owner.isEmpty || owner.unicodeScalars.count > Caps.ownerLength {
            throw refuse("owner must be 1–\(Caps.ownerLength) characters")
        }
        if let title = request.title, title.unicodeScalars.count > Caps.titleLength {
            throw refuse("title is at most \(Caps.titleLength) characters")
        }
        var texts: [(field: String, text: String?)] = [("route", request.route), ("owner", request.owner), ("title", request.title)]
        for (name, value) in params.sorted(by: { $0.key < $1.key }) {
            texts += [("a param name", name), ("param '\(PrintableText.escaped(name))'", value)]
        }
        for (field, text) in texts {
            if let text { try checkPrintable(text, field: field) { refuse($0) } }
        }
    }

    /// The campaign of a new link's `campaign` field: each part at most `Caps.campaignPartLength` characters and
    /// printable, normalised as openings are counted; 400 when no part is left.
    static func campaign(_ fields: CampaignFields?) throws -> Campaign? {
        guard let fields else { return nil }
        for (field, text) in [("campaign.source", fields.source), ("campaign.medium", fields.medium), ("campaign.name", fields.name)] {
            guard let text else { continue }
            guard text.unicodeScalars.count <= Caps.campaignPartLength else {
                throw LinkError(.invalid, "\(field) is at most \(Caps.campaignPartLength) characters")
            }
            try checkPrintable(text, field: field) { LinkError(.invalid, $0) }
        }
        guard let campaign = Campaign(source: fields.source, medium: fields.medium, name: fields.name) else {
            throw LinkError(.invalid, "campaign needs a source, medium or name with a letter or digit")
        }
        return campaign
    }
}
