public import LinkRouter

extension AppPageInfo {
    /// The app as pages show it, from its manifest.
    public init(_ manifest: AppManifest) {
        self.init(
            appID: manifest.app, displayName: manifest.displayName, appStoreID: manifest.appStoreID,
            androidPackage: manifest.androidPackage, webFallbackURL: manifest.webFallbackURL,
            badges: manifest.share?.badges ?? [:])
    }
}

extension CallToAction {
    /// The pages' call to action for a signed-out person: the screen the manifest's `share.cta` gives that state
    /// (else the state's root, else the default tab's root), as a universal link when that route has a
    /// parameterless path; else the app's web fallback; nil when the app has neither.
    public init?(signedOutOf manifest: AppManifest) {
        let state = manifest.unauthenticatedState
        let routeID = manifest.share?.cta[state] ?? manifest.stateRoots[state] ?? manifest.defaultTab?.root
        if let route = routeID.flatMap({ manifest.routes[$0] }), let host = manifest.hosts.first,
           let path = route.patterns.first(where: { !$0.contains(":") && !$0.contains("*") && !$0.contains("(") }) {
            self.init(label: "Open \(manifest.displayName)", url: "https://\(host)\(path)")
            return
        }
        guard let fallback = manifest.webFallbackURL else { return nil }
        self.init(label: "Get \(manifest.displayName)", url: fallback)
    }
}

extension LandingPage {
    /// The landing page of `url` (a share URL or an app-link URL) for `client`: "Open in <App>" goes to
    /// `customSchemeURL` on phones and to the app's web fallback on desktops and for crawlers, else to `url` itself.
    public init(
        _ manifest: AppManifest, url: String, customSchemeURL: String?, client: UserAgentKind, preview: Preview? = nil,
        title: String? = nil
    ) {
        self.init(
            AppPageInfo(manifest), scheme: manifest.schemes.first, url: url, customSchemeURL: customSchemeURL, client: client,
            preview: preview, title: title)
    }

    /// The same from the app's page information and its first custom scheme, worked out once per manifest
    /// (`SharePages` keeps them per app).
    init(
        _ app: AppPageInfo, scheme: String?, url: String, customSchemeURL: String?, client: UserAgentKind, preview: Preview?,
        title: String? = nil
    ) {
        let open = switch client {
        case .iOS, .android: customSchemeURL ?? url
        case .desktop, .crawler: app.webFallbackURL ?? url
        }
        self.init(
            app: app, shareURL: url, openInAppURL: open, customScheme: scheme, customSchemeURL: customSchemeURL,
            preview: preview, title: title)
    }
}
