import Foundation
@testable import LinkRouter
import LinkdTestSupport

// The server's side of the wire, from LinkRouter: the seed apps' manifests and the server's own Resolution. This file
// does not import LinkdClient (both modules name a type `Resolution`); it hands the client tests plain strings and
// bytes.

/// The links of the seed apps (`examples/*.yaml`): every URL pattern of every route in each of its URL forms,
/// links that lead nowhere, and each shareable route with params of the right types.
struct SeedApp: Sendable {
    /// A shareable route and params for a share link of it.
    struct Shareable: Sendable {
        let route: String
        let params: [String: String]
    }

    let app: String
    let states: [String]
    /// Deep links of the app: https on each host, and each custom scheme.
    let urls: [String]
    let shareables: [Shareable]

    static let names = ["handz", "coin", "ordentus", "story"]

    static func manifests() throws -> [AppManifest] {
        try ManifestLoader.load(paths: names.map { LinkdProcess.repositoryRoot.appendingPathComponent("examples/\($0).yaml").path })
    }

    static func all() throws -> [SeedApp] {
        try manifests().map(SeedApp.init(manifest:))
    }

    init(manifest: AppManifest) {
        app = manifest.app
        states = manifest.states
        var urls: [String] = []
        var shareables: [Shareable] = []
        for id in manifest.routeOrder {
            guard let route = manifest.routes[id] else { continue }
            let query = route.query.filter { $0.value.required }.keys.sorted()
                .map { "\($0)=\(AppleLinkCandidates.sample(route.query[$0]!.type))" }.joined(separator: "&")
            var params = route.params.mapValues(AppleLinkCandidates.sample)
            for (name, param) in route.query where param.required { params[name] = AppleLinkCandidates.sample(param.type) }
            for text in route.patterns {
                guard let pattern = try? PathPattern(parsing: text) else { continue }
                for variant in pattern.expanded {
                    let path = variant.map { segment -> String in
                        switch segment {
                        case .literal(let literal): return literal
                        case .param(let name, let type):
                            params[name] = AppleLinkCandidates.sample(type)
                            return AppleLinkCandidates.sample(type)
                        case .wildcard(let name):
                            params[name] = "a/b"
                            return "a/b"
                        }
                    }.joined(separator: "/")
                    let suffix = query.isEmpty ? "" : "?" + query
                    urls += manifest.hosts.map { "https://\($0)/\(path)\(suffix)" }
                    urls += manifest.schemes.map { "\($0)://\(path)\(suffix)" }
                }
            }
            if route.shareable { shareables.append(Shareable(route: id, params: params)) }
        }
        urls += manifest.hosts.map { "https://\($0)/zz-not-a-route" } + manifest.schemes.map { "\($0)://zz/not/a/route" }
        urls += manifest.share.map { share in share.hosts.map { "https://\($0)/s/AAAAAAAAAAAAAAAAAAAAAA" } } ?? []
        self.urls = urls
        self.shareables = shareables
    }
}

/// The server's own resolution JSON, made in-process by LinkRouter (`Resolution.jsonBytes()`, the bytes
/// `POST /v1/resolve` answers with).
enum ServerResolutions {
    /// A resolution with every member the server's type has set (each optional, nested optionals too).
    static func everyMember() -> Data {
        let resolution = Resolution(
            outcome: .intercept, app: "handz", route: "Auth/WelcomeGate", params: ["flowId": "x", "a/b": "é \"q\""],
            tab: "library", presentation: .sheetMedium, tabBarVisible: true, stack: ["Tab/Library", "Library/Home"],
            returnTo: ["signedOut": "Auth/WelcomeGate", "free": "Tab/Library"],
            afterActions: ["import": RouteTarget(route: "Library/FlowDetail", params: ["flowId": "x"])],
            intercept: .init(route: "Auth/WelcomeGate",
                             continuation: .init(route: "Library/FlowDetail", params: ["flowId": "x"], url: "https://links.handz.example/flows/x"),
                             returnTo: "Library/Home"),
            link: .init(id: "0123456789abcdef0123456789abcdef", status: "active", expiresAt: 1_800_000_000),
            message: "This link is no longer available.", cta: "Tab/Library", problem: ResolutionProblem(.noMatch, "no route"),
            update: .init(requiredVersion: "1.3", platform: "ios", storeURL: "https://apps.apple.com/app/id1"),
            fallback: .init(Resolution(
                outcome: .route, app: "handz", route: "Library/Home", params: ["flowId": "x"], tab: "library", presentation: .push,
                tabBarVisible: true, stack: ["Tab/Library"], returnTo: ["free": "Tab/Library"], afterActions: nil, intercept: nil,
                link: nil, message: nil, cta: nil, problem: nil)))
        return Data(resolution.jsonBytes())
    }

    /// How many stored members the server's `Resolution` has (a new one must be met by the client's type; the
    /// memberwise call in `everyMember()` stops compiling too).
    static func memberCount() -> Int {
        Mirror(reflecting: Resolution.failure(.init(.noMatch, ""))).children.count
    }

    /// In-process resolutions of the seed apps: every candidate URL of the AASA checks (shapes, slashes, escapes,
    /// type limits, unknown paths) in every state, as the server's JSON.
    static func seedCandidates() throws -> [(context: String, json: Data)] {
        let manifests = try SeedApp.manifests()
        let router = try Router(manifests: manifests)
        var out: [(String, Data)] = []
        for manifest in manifests {
            for candidate in AppleLinkCandidates.candidates(manifest) {
                for host in manifest.hosts {
                    let url = candidate.url(host: host)
                    for state in manifest.states + ["noSuchState"] {
                        out.append(("\(url) as \(state)", Data(router.resolve(url: url, state: state).jsonBytes())))
                    }
                }
            }
        }
        return out
    }

    /// The server's JSON of a manifest-less failure (`urlTooLong`), and of every problem code's kind.
    static func failures() throws -> [(context: String, json: Data)] {
        let router = try Router(manifests: try SeedApp.manifests())
        let urls = [String(repeating: "a", count: 5000), "https://user@links.handz.example/flows", "https://links.handz.example:99/x",
                    "ftp://x", "https://unknown.example/a", "coinapp://coin/abc", "%%%", ""]
        return urls.map { ("\($0.prefix(60))", Data(router.resolve(url: $0, state: nil).jsonBytes())) }
    }
}

/// The spellings of the server's enums, each from an exhaustive switch or `allCases`, so that a case added to the
/// server's types must be added here (and then to the client's) before the tests build.
enum ServerSpellings {
    static let presentations: [String] = Presentation.allCases.map(\.rawValue)

    static let outcomes: [String] = {
        func name(_ outcome: Resolution.Outcome) -> String {
            switch outcome {
            case .route, .intercept, .notFound, .linkUnavailable, .updateRequired: outcome.rawValue
            }
        }
        return [Resolution.Outcome.route, .intercept, .notFound, .linkUnavailable, .updateRequired].map(name)
    }()
}
