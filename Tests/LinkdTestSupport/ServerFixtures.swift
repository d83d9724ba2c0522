import Foundation
public import LinkRouter
import TokenSigning

// What the in-process server tests (LinkdServerTests) and the journeys through the binary (JourneyTests) both use.

/// The demo manifests, by absolute path (tests do not depend on the working directory).
public let exampleManifests: [String] = ["coin", "handz", "ordentus", "story"].map {
    LinkdProcess.repositoryRoot.appendingPathComponent("examples/\($0).yaml").path
}

/// One path per route pattern of `manifest` (and the share path), with sample values of each param's type.
public func samplePaths(_ manifest: AppManifest) -> [String] {
    var patterns = manifest.routeOrder.flatMap { manifest.routes[$0]?.patterns ?? [] }
    if let share = manifest.share { patterns.append(share.path) }
    return patterns.map { pattern in
        "/" + pattern.split(separator: "/").map { segment -> String in
            var text = String(segment)
            if text.hasSuffix("?") { text.removeLast() }
            if text.hasPrefix("*") { return "a/b" }
            guard text.hasPrefix(":") else { return text }
            if text.hasSuffix("(uuid)") { return "3f2504e0-4f89-11d3-9a0c-0305e82c3301" }
            if text.hasSuffix("(int)") { return "42" }
            if text.hasSuffix("(slug)") { return "a-slug" }
            return "abc"
        }.joined(separator: "/")
    }
}

/// The `User-Agent`s of the browsers and crawlers that open share links in the tests.
public enum UserAgent {
    /// Safari on an iPhone.
    public static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
    /// Chrome on an Android phone.
    public static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36"
    /// Chrome on a Linux desktop.
    public static let desktop = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
    /// Facebook's link-preview crawler.
    public static let crawler = "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"

    /// Opens of one share page for the analytics tests: 2 from an iPhone, 3 from Android, 1 from a desktop, 2
    /// link-preview crawlers (6 clicks, 2 previews).
    public static let opens: [(String, Int)] = [
        (iPhone, 2), (android, 3), (desktop, 1), (crawler, 1),
        ("Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", 1),
    ]
}

/// Where a deferred link's claim code shows in what the daemon sends.
public enum ClaimCodeText {
    /// The claim code in a Google Play redirect's `referrer`, or nil.
    public static func code(inPlayRedirect location: String?) -> String? {
        guard let location, let range = location.range(of: "&referrer=linkd_claim%3D") else { return nil }
        return String(location[range.upperBound...])
    }

    /// The claim code in the iOS claim page's link (`…#linkd_claim=CODE"`), or nil.
    public static func code(inClaimPage html: String) -> String? {
        guard let range = html.range(of: "#linkd_claim=") else { return nil }
        return String(html[range.upperBound...].prefix(ClaimCode.textLength))
    }
}

/// The two stores; the tests that touch the store run on both.
public enum StoreKind: String, CaseIterable, Sendable {
    /// SQLite in the data directory.
    case sqlite
    /// A database of its own on the shared test PostgreSQL (`TestPostgres`).
    case postgres

    /// A fresh place for a store: a SQLite file path, or the URL of a new database on the test cluster.
    public func freshPlace() throws -> String {
        switch self {
        case .sqlite:
            let dir = temporaryDataDir()
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            return dir + "/linkd.sqlite"
        case .postgres:
            return try TestPostgres.shared().freshDatabase()
        }
    }
}

/// Tokens changed the way a forger would.
public enum ForgedToken {
    /// `token` with one character inside its tag changed: well-formed, with a tag that does not verify. Not the last
    /// character, whose low bits are base64url padding: a token with padding bits set is malformed and refused before
    /// any check, which is another case.
    public static func badTag(_ token: String) -> String {
        var characters = Array(token)
        let index = characters.count - 2
        characters[index] = characters[index] == "A" ? "B" : "A"
        return String(characters)
    }
}
