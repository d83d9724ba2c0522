import ArgumentParser
import Foundation
import LinkRouter
import LinkdAdmin

/// `linkd admin apps list|show|publish|diff|rollback|retire`: the apps' manifests in force, published without a
/// restart (docs/manifest.md, "Publishing a navigation change").
struct AdminAppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps", abstract: "The apps' manifests: list, show, publish, diff, rollback, retire.",
        subcommands: [List.self, Show.self, Publish.self, Diff.self, Rollback.self, Retire.self])

    /// The options of a publish: where live links go, and whether to strand them.
    struct PublishOptions: ParsableArguments {
        @Option(name: .customLong("move"), help: ArgumentHelp(
            "Carry the live links of a route to another: OLD=NEW, or OLD=NEW:old>new,… to rename params (repeatable).",
            valueName: "OLD=NEW"))
        var moves: [String] = []
        @Flag(help: "Publish even if live links are stranded (they become unavailable).")
        var force = false
        @Option(name: .customLong("if-match"), help: "Publish only if the version in force is this one.")
        var ifMatch: Int?

        /// `moves` as the API takes them; a `usage` failure for one that does not read.
        func movesJSON() throws(AdminFailure) -> [String: Any] {
            var json: [String: Any] = [:]
            for text in moves {
                let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw AdminFailure(.usage, "--move \(text): write OLD=NEW or OLD=NEW:old>new,…")
                }
                let target = parts[1].split(separator: ":", maxSplits: 1).map(String.init)
                var renames: [String: String] = [:]
                for pair in target.count == 2 ? target[1].split(separator: ",") : [] {
                    let names = pair.split(separator: ">", maxSplits: 1).map(String.init)
                    guard names.count == 2 else { throw AdminFailure(.usage, "--move \(text): rename params as old>new") }
                    renames[names[0]] = names[1]
                }
                json[parts[0]] = ["route": target[0], "params": renames]
            }
            return json
        }

        var headers: [(String, String)] { ifMatch.map { [("If-Match", "\"\($0)\"")] } ?? [] }

        /// The publish of the manifest in `file`: `PUT` of its app's manifest (a dry run when `dryRun`).
        func request(file: String, dryRun: Bool) throws(AdminFailure) -> AdminRequest {
            let (app, text) = try AdminAppsCommand.manifest(at: file)
            var request = AdminRequest(
                "PUT", ["v1", "admin", "apps", app, "manifest"], query: [("dryRun", dryRun ? "true" : nil)],
                json: ["manifest": text, "moves": try movesJSON(), "force": force])
            request.headers = headers
            return request
        }
    }

    /// The manifest in `path` and its app id; a `usage` failure naming the file and line when it does not validate.
    static func manifest(at path: String) throws(AdminFailure) -> (app: String, text: String) {
        do {
            let text = try ManifestLoader.source(path: path)
            return (try ManifestLoader.parse(yaml: text, file: path).app, text)
        } catch {
            throw AdminFailure(.usage, error.description)
        }
    }

    /// The impact report of a publish as text.
    static func report(_ answer: [String: Any]) -> String {
        let impact = answer["impact"] as? [String: Any] ?? [:]
        var lines: [String] = []
        let app = answer["app"] as? String ?? "?"
        let from = (impact["fromVersion"] as? Int).map(String.init) ?? "none"
        let version = answer["version"] as? Int ?? 0
        if answer["unchanged"] as? Bool == true {
            lines.append("\(app): version \(version) is already this manifest; nothing published")
        } else if answer["dryRun"] as? Bool == true {
            let verdict = answer["refused"] as? Bool == true ? "would be REFUSED (it strands live links: --move them, or --force)" : "would be published"
            lines.append("\(app): version \(from) → \(version) \(verdict) (dry run: nothing changed)")
        } else {
            lines.append("\(app): published version \(version) (was \(from)), \(answer["hash"] as? String ?? "")")
        }
        lines.append("live links: \(impact["liveLinks"] as? Int ?? 0), stranded: \(impact["strandedLinks"] as? Int ?? 0), moved: \(answer["moved"] as? Int ?? 0)")
        let stranded = JSONText.items("stranded", of: impact)
        if !stranded.isEmpty {
            lines.append("stranded links:")
            lines.append(TextTable(stranded, columns: ["ROUTE": "route", "REASON": "reason", "LINKS": "count", "DETAIL": "detail"]).render())
        }
        let moved = JSONText.items("moved", of: impact)
        if !moved.isEmpty {
            lines.append("moved links:")
            lines.append(TextTable(moved, columns: ["FROM": "from", "TO": "to", "LINKS": "count"]).render())
        }
        let lost = JSONText.items("lostStates", of: impact)
        if !lost.isEmpty {
            lines.append("routes some states can no longer open:")
            lines.append(TextTable(lost, columns: ["ROUTE": "route", "STATES": "states", "LINKS": "count"]).render())
        }
        let changed = JSONText.items("changedURLs", of: impact)
        lines.append("example URLs whose resolution changes: \(impact["changedURLCount"] as? Int ?? 0)")
        if !changed.isEmpty {
            lines.append(TextTable(changed, columns: ["URL": "url", "STATE": "state", "BEFORE": "before", "AFTER": "after"]).render())
        }
        if let uncovered = impact["uncoveredPatterns"] as? [String], !uncovered.isEmpty {
            lines.append("patterns the well-known files stop covering: " + uncovered.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    struct List: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "List the published apps: version in force, hash, who published it and when.")
        @OptionGroup var connection: ConnectionOptions

        func request() -> AdminRequest { AdminRequest("GET", ["v1", "admin", "apps"]) }
        func render(_ answer: [String: Any]) -> String {
            let apps = JSONText.items("apps", of: answer).map { app in
                app.merging(["retired": app["retired"] as? Bool == true ? "yes" : "no"]) { $1 }
            }
            return TextTable(apps, columns: [
                "APP": "app", "VERSION": "version", "HASH": "hash", "PUBLISHED": "publishedAt", "BY": "publishedBy", "RETIRED": "retired",
            ]).render()
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print an app's manifest in force (or an earlier version) as YAML.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The app.") var app: String
        @Option(help: "An earlier version (default: the one in force).") var version: Int?

        func run() async throws {
            try await AdminRun.reporting { () async throws(AdminFailure) in
                let response = try await connection.client().send(
                    AdminRequest("GET", ["v1", "admin", "apps", app, "manifest"], query: [("version", version.map(String.init))]))
                FileHandle.standardOutput.write(response.body)
            }
        }
    }

    struct Publish: AdminVerb {
        static let configuration = CommandConfiguration(
            abstract: "Publish a manifest file as its app's next version, on every instance, without a restart.",
            discussion: "Refused when it would strand live links: see them with 'linkd admin apps diff FILE', then --move them or --force.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The manifest file.") var file: String
        @OptionGroup var options: PublishOptions

        func request() throws(AdminFailure) -> AdminRequest { try options.request(file: file, dryRun: false) }
        func render(_ answer: [String: Any]) -> String { AdminAppsCommand.report(answer) }
    }

    struct Diff: AdminVerb {
        static let configuration = CommandConfiguration(
            abstract: "What publishing a manifest file would do to the live links and URLs (a dry run: nothing changes).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The manifest file.") var file: String
        @OptionGroup var options: PublishOptions

        func request() throws(AdminFailure) -> AdminRequest { try options.request(file: file, dryRun: true) }
        func render(_ answer: [String: Any]) -> String { AdminAppsCommand.report(answer) }
    }

    struct Rollback: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "Publish an earlier version of an app's manifest again, as its next version.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The app.") var app: String
        @Argument(help: "The version to publish again.") var version: Int
        @OptionGroup var options: PublishOptions
        @Flag(name: .customLong("dry-run"), help: "Report only: change nothing.") var dryRun = false

        func request() throws(AdminFailure) -> AdminRequest {
            var request = AdminRequest(
                "POST", ["v1", "admin", "apps", app, "manifest", "rollback"], query: [("dryRun", dryRun ? "true" : nil)],
                json: ["version": version, "moves": try options.movesJSON(), "force": options.force])
            request.headers = options.headers
            return request
        }
        func render(_ answer: [String: Any]) -> String { AdminAppsCommand.report(answer) }
    }

    struct Retire: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "Retire an app (refused while it has live links).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The app.") var app: String

        func request() -> AdminRequest { AdminRequest("DELETE", ["v1", "admin", "apps", app]) }
        func render(_ answer: [String: Any]) -> String {
            "retired \(answer["app"] as? String ?? app) (version \(answer["version"] as? Int ?? 0))"
        }
    }
}
