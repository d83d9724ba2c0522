import ArgumentParser
import Foundation
import LinkRouter
import LinkdAdmin
import LinkdServer

/// `linkd manifest …`: tools for app manifests.
struct ManifestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manifest",
        abstract: "Check app manifests, and what a change of one does.",
        subcommands: [ManifestCheckCommand.self, ManifestDiffCommand.self]
    )
}

/// `linkd manifest check FILE…`: prints every problem as `file:line:col: error: …`, exits 1 if any.
struct ManifestCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check", abstract: "Validate manifest files.")

    @Argument(help: "Manifest YAML files.")
    var files: [String]

    func run() throws {
        var failed = false
        for file in files {
            do {
                let manifest = try ManifestLoader.load(path: file)
                print("\(file): OK: app \(manifest.app), \(manifest.routes.count) routes, \(manifest.tabs.count) tabs, \(manifest.states.count) states")
            } catch {
                failed = true
                for problem in error.errors { printError(problem.description) }
            }
        }
        if !failed && files.count > 1 {
            do {
                _ = try ManifestLoader.load(paths: files)
            } catch {
                failed = true
                for problem in error.errors { printError(problem.description) }
            }
        }
        if failed { throw ExitCode(1) }
    }
}

/// `linkd manifest diff OLD NEW [--links-from URL]`: what replacing OLD with NEW does — the routes live links could
/// be stranded on, the states that lose a route, the example URLs whose resolution changes, the patterns the
/// well-known files stop covering. Offline by default (every route of OLD counted as having a live link); with
/// `--links-from`, the running daemon's dry run against its live links (`LINKD_ADMIN_KEY`, as `linkd admin`).
struct ManifestDiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff", abstract: "What replacing a manifest with another does to links and URLs (changes nothing).")

    @Argument(help: "The manifest in force (a file).") var old: String
    @Argument(help: "The new manifest (a file).") var new: String
    @Option(name: .customLong("links-from"), help: "A running daemon's URL: count its live links (needs an admin key in LINKD_ADMIN_KEY).")
    var linksFrom: String?

    func run() async throws {
        let oldManifest: AppManifest, newManifest: AppManifest
        do {
            oldManifest = try ManifestLoader.load(path: old)
            newManifest = try ManifestLoader.load(path: new)
        } catch {
            for problem in error.errors { printError(problem.description) }
            throw ExitCode(1)
        }
        guard oldManifest.app == newManifest.app else {
            printError("\(old) is app \(oldManifest.app), \(new) is app \(newManifest.app): compare two versions of one app")
            throw ExitCode(64)
        }
        if let linksFrom {
            try await AdminRun.reporting { () async throws(AdminFailure) in
                let connection = try AdminConnection.resolve(
                    url: linksFrom, key: nil, credentials: nil, timeoutSeconds: nil, environment: ProcessInfo.processInfo.environment)
                let options: AdminAppsCommand.PublishOptions
                do { options = try AdminAppsCommand.PublishOptions.parse([]) } catch { throw AdminFailure(.usage, "\(error)") }
                let request = try options.request(file: new, dryRun: true)
                let response = try await AdminClient(connection: connection, transport: CurlAdminTransport()).send(request)
                print(AdminAppsCommand.report(response.json))
            }
            return
        }
        let impact = try JSONSerialization.jsonObject(with: ManifestImpact.offlineReport(old: oldManifest, new: newManifest))
        print(AdminAppsCommand.report([
            "app": newManifest.app, "dryRun": true, "offline": true, "impact": impact,
            "refused": ((impact as? [String: Any])?["strandedLinks"] as? Int ?? 0) > 0,
        ]))
    }
}

/// `linkd resolve URL --state STATE [--app A] [--manifest FILE…]`: prints the resolution as JSON.
struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Resolve a deep link or share URL to a route (JSON).",
        discussion: "Manifests: --manifest, else $LINKD_MANIFESTS (comma-separated), else examples/*.yaml in the working directory. Share tokens resolve as unknown here (no store)."
    )

    @Argument(help: "The URL (custom scheme or https).")
    var url: String

    @Option(help: "The caller's session state (default: the app's unauthenticated state).")
    var state: String?

    @Option(help: "The app id (default: picked from the scheme or host).")
    var app: String?

    @OptionGroup var manifestOptions: ManifestOptions

    func run() throws {
        let router = try manifestOptions.loadRouter()
        let resolution = router.resolve(url: url, state: state, app: app)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(resolution)
        print(String(decoding: data, as: UTF8.self))
        if resolution.outcome == .notFound && resolution.route == nil { throw ExitCode(2) }
    }
}

/// `--manifest FILE…` and the router built from those manifests, shared by the verbs that resolve links.
struct ManifestOptions: ParsableArguments {
    @Option(name: .customLong("manifest"), help: "Manifest files (repeatable).")
    var manifests: [String] = []

    /// Loads the manifests (`--manifest`, else `LINKD_MANIFESTS`, else `examples/*.yaml`) and compiles a router;
    /// prints every manifest problem to stderr and exits 1 when they do not load.
    func loadRouter() throws -> Router {
        let paths: [String]
        do { paths = try ManifestPaths.resolve(explicit: manifests) } catch { throw ValidationError(error.description) }
        do {
            return try Router(manifests: ManifestLoader.load(paths: paths))
        } catch {
            for problem in error.errors { printError(problem.description) }
            throw ExitCode(1)
        }
    }
}

/// Writes one line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
