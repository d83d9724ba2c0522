import ArgumentParser
import Foundation
import LinkRouter

/// `linkd manifest …`: tools for app manifests.
struct ManifestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manifest",
        abstract: "Check app manifests.",
        subcommands: [ManifestCheckCommand.self]
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
