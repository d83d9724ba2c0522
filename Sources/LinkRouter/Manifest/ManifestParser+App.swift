internal import Yams

/// The app's identity and platform ids: `app`, `name`, `schemes`, `hosts`, `ports`, `caseInsensitivePaths`, `ios`,
/// `android`, `webFallback` and `tabBar`.
extension ManifestParser {
    /// The manifest with the app's identity, platform ids and tab-bar rule read and checked; every other section
    /// starts empty.
    func parseApp(_ top: [String: Node]) -> AppManifest {
        let app = reader.string(top["app"], context: "app") ?? ""
        let ios = reader.mapping(top["ios"], context: "ios", allowed: ["appIDs", "appStoreID", "webcredentials", "appClipIDs"])
        let android = reader.mapping(top["android"], context: "android", allowed: ["package", "sha256CertFingerprints", "dynamicAppLinks"])
        let tabBar = reader.mapping(top["tabBar"], context: "tabBar", allowed: ["hiddenFor"])

        var manifest = AppManifest(
            app: app,
            displayName: reader.string(top["name"], context: "name") ?? app,
            schemes: reader.strings(top["schemes"], context: "schemes").map { $0.0.lowercased() },
            hosts: reader.strings(top["hosts"], context: "hosts").map { $0.0.lowercased() },
            ports: reader.list(top["ports"], context: "ports").compactMap { reader.int($0, context: "a port") },
            caseInsensitivePaths: reader.bool(top["caseInsensitivePaths"], context: "caseInsensitivePaths") ?? false,
            iosAppIDs: reader.strings(ios["appIDs"], context: "ios.appIDs").map(\.0),
            appStoreID: reader.string(ios["appStoreID"], context: "ios.appStoreID"),
            iosWebCredentials: reader.bool(ios["webcredentials"], context: "ios.webcredentials") ?? false,
            iosAppClipIDs: reader.strings(ios["appClipIDs"], context: "ios.appClipIDs").map(\.0),
            androidPackage: reader.string(android["package"], context: "android.package"),
            androidFingerprints: reader.strings(android["sha256CertFingerprints"], context: "android.sha256CertFingerprints").map(\.0),
            androidDynamicAppLinks: reader.bool(android["dynamicAppLinks"], context: "android.dynamicAppLinks") ?? true,
            webFallbackURL: reader.string(top["webFallback"], context: "webFallback"),
            states: [], unauthenticatedState: "", tabStates: [], stateRoots: [:], tabs: [],
            tabBarHiddenFor: [], routes: [:], routeOrder: [], returns: [], intercepts: [], share: nil,
            notFoundRoute: nil, ics: [], origin: nil, sourceFile: reader.file)

        for (value, node) in reader.strings(tabBar["hiddenFor"], context: "tabBar.hiddenFor") {
            if let presentation = presentation(value, node) { manifest.tabBarHiddenFor.append(presentation) }
        }
        checkAndroidFingerprints(manifest.androidFingerprints, android["sha256CertFingerprints"])
        checkIOSAppIDs(manifest, ios: ios)
        checkCustomSchemes(top["schemes"])
        return manifest
    }

    /// `android.sha256CertFingerprints`: each 32 hex byte pairs separated by `:`.
    private func checkAndroidFingerprints(_ fingerprints: [String], _ listNode: Node?) {
        for (fingerprint, node) in zip(fingerprints, reader.list(listNode, context: "")) {
            let parts = fingerprint.split(separator: ":")
            if parts.count != 32 || !parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) {
                reader.fail(.badValue, node, "'\(fingerprint)' is not a SHA-256 fingerprint",
                            hint: "write 32 hex byte pairs separated by ':' (keytool -list -v prints it)")
            }
        }
    }

    /// `ios.appIDs`, then `ios.appClipIDs`: each `TEAMID.bundle.id` with a 10-character team id.
    private func checkIOSAppIDs(_ manifest: AppManifest, ios: [String: Node]) {
        let appIDNodes = Array(zip(manifest.iosAppIDs, reader.list(ios["appIDs"], context: "")))
            + Array(zip(manifest.iosAppClipIDs, reader.list(ios["appClipIDs"], context: "")))
        for (appID, node) in appIDNodes {
            let parts = appID.split(separator: ".", maxSplits: 1)
            if parts.count != 2 || parts[0].count != 10 || !parts[0].allSatisfy({ $0.isUppercase || $0.isNumber }) {
                reader.fail(.badValue, node, "'\(appID)' is not an iOS app id", hint: "write TEAMID.bundle.id (a 10-character team id)")
            }
        }
    }

    /// `schemes`: custom schemes only (http and https links are listed under `hosts`).
    private func checkCustomSchemes(_ schemesNode: Node?) {
        for (scheme, node) in reader.strings(schemesNode, context: "") where scheme == "http" || scheme == "https" {
            reader.fail(.badValue, node, "'\(scheme)' is not a custom scheme", hint: "list https hosts under 'hosts'")
        }
    }
}
