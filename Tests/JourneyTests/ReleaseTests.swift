import Foundation
import LinkdTestSupport
import Testing

/// One version for the daemon, the Swift package and the TypeScript client, and the script that releases it
/// (docs/client.md, "Depending on a release"): `linkd --version`, `packaging/VERSION` and
/// `clients/typescript/package.json` agree, and `scripts/release.sh` run in a clone writes all three, commits and
/// tags `X.Y.Z` — and refuses what would make a bad release.
@Suite("Releases", .serialized)
struct ReleaseTests {
    static let root = LinkdProcess.repositoryRoot.path

    /// The `"version"` of a package.json.
    static func packageVersion(_ path: String) throws -> String {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        return try #require(json?["version"] as? String)
    }

    /// Runs `script` with bash in `directory`, with a committer set; its status and both outputs.
    static func bash(_ script: String, in directory: String) throws -> (status: Int32, output: String) {
        let identity = "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com"
        let result = try ExternalTool.runToEnd("/bin/bash", ["-c", "cd '\(directory)' && export \(identity) && \(script) 2>&1"])
        return (result.status, String(decoding: result.stdout, as: UTF8.self))
    }

    @Test("linkd --version, packaging/VERSION and the TypeScript client's package.json name the same release")
    func versionsAgree() throws {
        let file = try String(contentsOfFile: Self.root + "/packaging/VERSION", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try LinkdProcess.run(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == file)
        #expect(try Self.packageVersion(Self.root + "/clients/typescript/package.json") == file)
        #expect(file.wholeMatch(of: /\d+\.\d+\.\d+/) != nil, "packaging/VERSION is \(file), not X.Y.Z")
    }

    @Test("scripts/release.sh in a clone: refuses a bad or lower version and a dirty tree; a good one writes the three files, commits and tags")
    func releaseScript() throws {
        let clone = temporaryDataDir()
        // A clone of this checkout, with the working copy's script (the one under test) committed in it.
        #expect(try Self.bash("git clone -q '\(Self.root)' '\(clone)'", in: "/tmp").status == 0)
        try FileManager.default.removeItem(atPath: clone + "/scripts/release.sh")
        try FileManager.default.copyItem(atPath: Self.root + "/scripts/release.sh", toPath: clone + "/scripts/release.sh")
        #expect(try Self.bash("git add -A && git commit -q --allow-empty -m 'script under test'", in: clone).status == 0)
        let current = try String(contentsOfFile: clone + "/packaging/VERSION", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)

        let usage = try Self.bash("scripts/release.sh 1.2", in: clone)
        #expect(usage.status != 0 && usage.output.contains("usage: scripts/release.sh X.Y.Z"), "\(usage.output)")
        let same = try Self.bash("scripts/release.sh \(current)", in: clone)
        #expect(same.status != 0 && same.output.contains("is not above the current version"), "\(same.output)")
        try "x".write(toFile: clone + "/README.md", atomically: true, encoding: .utf8)
        let dirty = try Self.bash("scripts/release.sh 99.0.0", in: clone)
        #expect(dirty.status != 0 && dirty.output.contains("commit or stash"), "\(dirty.output)")
        #expect(try Self.bash("git checkout -q README.md", in: clone).status == 0)

        let release = try Self.bash("scripts/release.sh 99.0.0", in: clone)
        #expect(release.status == 0, "\(release.output)")
        #expect(try Self.bash("git describe --exact-match --tags HEAD", in: clone).output == "99.0.0\n")
        #expect(try Self.bash("git status --porcelain", in: clone).output == "")
        #expect(try String(contentsOfFile: clone + "/packaging/VERSION", encoding: .utf8) == "99.0.0\n")
        #expect(try Self.packageVersion(clone + "/clients/typescript/package.json") == "99.0.0")
        let swift = try String(contentsOfFile: clone + "/Sources/linkd/CLI/LinkdVersion.swift", encoding: .utf8)
        #expect(swift.contains("static let release = \"99.0.0\""))

        let again = try Self.bash("scripts/release.sh 99.0.0", in: clone)
        #expect(again.status != 0, "\(again.output)")
    }
}
