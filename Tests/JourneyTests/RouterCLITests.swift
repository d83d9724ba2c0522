import Foundation
import LinkdTestSupport
import Testing

/// Runs the built `linkd` binary as a process for the LinkRouter verbs: `manifest check`, `resolve`, `ics`.
@Suite("linkd manifest/resolve/ics CLI, end to end")
struct RouterCLITests {
    /// Runs `linkd` with the repository root as working directory (so `examples/*.yaml` are the default manifests).
    static func run(_ arguments: [String]) throws -> LinkdProcess.Output {
        try LinkdProcess.run(arguments, workingDirectory: LinkdProcess.repositoryRoot, unsetting: ["LINKD_MANIFESTS"])
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func temporaryFile(_ name: String, _ contents: Data) throws -> String {
        let directory = NSTemporaryDirectory() + "linkd-router-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/" + name
        try contents.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func manifestCheckAcceptsTheExamples() throws {
        let result = try Self.run(["manifest", "check", "examples/handz.yaml", "examples/coin.yaml",
                                   "examples/ordentus.yaml", "examples/story.yaml"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("examples/handz.yaml: OK"))
        #expect(result.stdout.contains("examples/story.yaml: OK"))
    }

    @Test func manifestCheckListsEveryProblemWithItsPosition() throws {
        let broken = """
            app: broken
            displayName: Broken
            states: [signedIn]
            unauthenticatedState: signedIn
            tabs:
              - { id: home, root: Home/Missing, order: 1, default: true }
            routes:
              - { id: Home/Root, tab: home, presentation: push, states: [nobody], patterns: [/home] }
            """
        let path = try Self.temporaryFile("broken.yaml", Data(broken.utf8))
        let result = try Self.run(["manifest", "check", path])
        #expect(result.status != 0)
        let lines = (result.stdout + result.stderr).split(separator: "\n").filter { $0.contains("error:") }
        #expect(lines.count >= 2, "expected every problem listed, got: \(result.stdout) \(result.stderr)")
        #expect(lines.allSatisfy { $0.hasPrefix("\(path):") })
        #expect(lines.contains { $0.contains("Home/Missing") })
        #expect(lines.contains { $0.contains("nobody") })
    }

    @Test func resolvePrintsTheContract() throws {
        let result = try Self.run(["resolve", "coinapp://coin/123", "--state", "signedIn"])
        #expect(result.status == 0)
        let json = try Self.json(result.stdout)
        #expect(json["route"] as? String == "Canvas")
        #expect(json["presentation"] as? String == "fullScreen")
        #expect(json["stack"] as? [String] == ["Recents"])
        #expect((json["params"] as? [String: String])?["coinId"] == "123")
    }

    @Test func icsResolvesEachItemOfAGoogleExport() throws {
        let fixture = "Tests/ICalendarTests/Fixtures/google-export.ics"
        let result = try Self.run(["ics", fixture, "--state", "signedIn"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try Self.json(result.stdout)
        let items = try #require(json["items"] as? [[String: Any]])
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(item["component"] as? String == "VEVENT")
        #expect((item["url"] as? String)?.hasPrefix("https://links.ordentus.example/s/") == true)
        // The URL is a share link of ours; with no store behind the terminal it is "no longer available".
        let resolution = try #require(item["resolution"] as? [String: Any])
        #expect(resolution["outcome"] as? String == "linkUnavailable")
        #expect(resolution["app"] as? String == "ordentus")
    }

    @Test func icsRefusesAMissingFileAndAnOversizedOne() throws {
        let missing = try Self.run(["ics", "/nonexistent/calendar.ics"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("/nonexistent/calendar.ics"))

        let big = try Self.temporaryFile("big.ics", Data(repeating: UInt8(ascii: "A"), count: 2 * 1024 * 1024))
        let oversized = try Self.run(["ics", big])
        #expect(oversized.status != 0)
        #expect(oversized.stderr.contains(big))
        #expect(oversized.stderr.contains("inputTooLarge"))
    }

    @Test func icsKeepsGoingOnBrokenLinesAndExitsZero() throws {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:x-1\r\nthis line has no colon\r\nSUMMARY:Still here\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let path = try Self.temporaryFile("broken.ics", Data(text.utf8))
        let result = try Self.run(["ics", path, "--app", "ordentus", "--state", "signedIn"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try Self.json(result.stdout)
        let diagnostics = try #require(json["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.contains { ($0["line"] as? Int) == 5 })
        let items = try #require(json["items"] as? [[String: Any]])
        #expect(items.first?["summary"] as? String == "Still here")
    }
}
