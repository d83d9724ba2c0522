import Foundation
import LinkdTestSupport
import Testing

/// `linkd serve` started as a new user would, outside the checkout: an installed binary finds its templates and demo
/// manifests under `<prefix>/share/linkd`, and a start that cannot work stops before writing to the data directory,
/// with a hint that is a working command.
@Suite("Install layout", .serialized)
struct InstallLayoutTests {
    /// A prefix with `bin/linkd` (a hard link to the built binary, so `/proc/self/exe` names the prefix, or a copy)
    /// and, when `share` is set, `share/linkd/templates` and `share/linkd/examples` copied from the checkout.
    static func makePrefix(share: Bool) throws -> String {
        let prefix = temporaryDataDir()
        let files = FileManager.default
        try files.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        let built = try #require(LinkdProcess.binary)
        do { try files.linkItem(atPath: built, toPath: prefix + "/bin/linkd") } catch {
            try files.copyItem(atPath: built, toPath: prefix + "/bin/linkd")
        }
        if share {
            try files.createDirectory(atPath: prefix + "/share/linkd", withIntermediateDirectories: true)
            for folder in ["templates", "examples"] {
                try files.copyItem(
                    atPath: LinkdProcess.repositoryRoot.appendingPathComponent(folder).path, toPath: prefix + "/share/linkd/" + folder)
            }
        }
        return prefix
    }

    /// An empty working directory that is not the checkout.
    static func emptyDirectory() throws -> URL {
        let cwd = URL(fileURLWithPath: temporaryDataDir())
        try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
        return cwd
    }

    @Test("an installed linkd started elsewhere serves the demo apps' share pages from <prefix>/share/linkd")
    func installedServes() async throws {
        let prefix = try Self.makePrefix(share: true)
        let cwd = try Self.emptyDirectory()
        let daemon = try LinkdDaemon(
            serveArguments: ["--port", "0"], workingDirectory: cwd, environment: ["LINKD_LOG_LEVEL": "warning"],
            binary: prefix + "/bin/linkd")
        defer { daemon.stop() }
        let admin = try #require(daemon.initialAdminKey)
        #expect(daemon.initialAdminKeyFile == cwd.path + "/data/initial-admin-key")
        let link = try await TestHTTP.send("POST", daemon.baseURL + "/v1/links", bearer: admin, json: [
            "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": "7d3c1f0e-9b2a-4c5d-8e6f-0a1b2c3d4e5f"],
        ])
        #expect(link.status == 201, "\(String(decoding: link.body, as: UTF8.self))")
        let url = try #require(link.json["url"] as? String)
        let path = try #require(URL(string: url)?.path)
        let page = try await TestHTTP.send("GET", daemon.baseURL + path)
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("<html"), "the landing page, from the installed templates")
        let css = try await TestHTTP.send("GET", daemon.baseURL + "/static/linkd.css")
        #expect(css.status == 200)
    }

    @Test("no manifests anywhere: exit 1 before the data directory exists, with a hint naming the configuration key")
    func noManifestsWritesNothing() throws {
        let prefix = try Self.makePrefix(share: false)
        let cwd = try Self.emptyDirectory()
        let run = try LinkdProcess.run(
            ["serve", "--port", "0"], workingDirectory: cwd, unsetting: ["LINKD_MANIFESTS", "LINKD_CONFIG", "LINKD_DATA_DIR"],
            binary: prefix + "/bin/linkd")
        #expect(run.status == 1)
        #expect(run.stderr.contains("no manifests: name them in the configuration file (manifests: [a.yaml] with --config FILE)"),
                "\(run.stderr)")
        #expect(run.stderr.contains("LINKD_MANIFESTS=a.yaml,b.yaml") && !run.stderr.contains("--manifest FILE"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cwd.path + "/data"), "nothing written before the configuration is whole")
    }

    @Test("manifests given but no templates: exit 1 naming templatesDir, nothing written to the data directory")
    func noTemplatesWritesNothing() throws {
        let prefix = try Self.makePrefix(share: false)
        let cwd = try Self.emptyDirectory()
        let manifest = LinkdProcess.repositoryRoot.appendingPathComponent("examples/handz.yaml").path
        let run = try LinkdProcess.run(
            ["serve", "--port", "0"], workingDirectory: cwd, unsetting: ["LINKD_CONFIG", "LINKD_DATA_DIR", "LINKD_TEMPLATES_DIR"],
            environment: ["LINKD_MANIFESTS": manifest], binary: prefix + "/bin/linkd")
        #expect(run.status == 1)
        #expect(run.stderr.contains("templates: missingTemplate") && run.stderr.contains("LINKD_TEMPLATES_DIR"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cwd.path + "/data"), "no master key, no signing keys, no admin key")
        // The hint works: the variable it names starts the daemon.
        let daemon = try LinkdDaemon(
            serveArguments: ["--port", "0"], workingDirectory: cwd,
            environment: ["LINKD_MANIFESTS": manifest, "LINKD_LOG_LEVEL": "warning",
                          "LINKD_TEMPLATES_DIR": LinkdProcess.repositoryRoot.appendingPathComponent("templates").path],
            binary: prefix + "/bin/linkd")
        defer { daemon.stop() }
        #expect(daemon.initialAdminKey != nil)
    }
}
