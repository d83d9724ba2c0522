import Foundation
import LinkdTestSupport
import Testing

/// `linkd admin import` as a process against a real `linkd serve`: the file streamed, the report printed, the exit code.
@Suite("linkd admin import against a running daemon")
struct AdminImportCLITests {
    @Test("an FDL file imported by the CLI: the counts, FILE:LINE lines, exit 1 when a row is refused, a dry run, the same file again, a bad file and a missing one named")
    func importsAFile() async throws {
        let daemon = try AdminCLITests.daemon("sqlite")
        defer { daemon.stop() }
        let home = try AdminCLITests.Home()
        let admin = try #require(daemon.initialAdminKey)
        let env = ["LINKD_URL": daemon.baseURL, "LINKD_ADMIN_KEY": admin]
        let folder = temporaryDataDir() + "-import"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var text = "Short link,Long link\n"
        for index in 0..<3 {
            let host = index == 0 ? "links.coin.example" : "coin.page.link"
            text += "https://\(host)/cli\(index),https://coin.page.link/?link=https%3A%2F%2Flinks.coin.example%2Fcoin%2Fcli-\(index)&ofl=https%3A%2F%2Fcoin.example\n"
        }
        let good = folder + "/good.csv"
        try text.write(toFile: good, atomically: true, encoding: .utf8)
        let mixed = folder + "/mixed.csv"
        try (text + "https://coin.page.link/x,https://coin.page.link/?link=https%3A%2F%2Flinks.handz.example%2Fwelcome\n")
            .write(toFile: mixed, atomically: true, encoding: .utf8)

        let dry = try AdminCLITests.admin(["import", mixed, "--app", "coin", "--format", "fdl", "--dry-run"], env, home: home)
        #expect(dry.status == 1, "a refused row: \(dry.status) \(dry.stderr)")
        #expect(dry.stdout.contains("dry run") && dry.stdout.contains("imported        3"), "\(dry.stdout)")
        #expect(dry.stdout.contains("\(mixed):5: other_app_link: "), "\(dry.stdout)")
        #expect(dry.stdout.contains("\(mixed):2: fallback_not_kept: ofl"), "\(dry.stdout)")
        #expect(dry.stderr.contains("1 row refused"), "\(dry.stderr)")
        #expect(try await TestHTTP.send("GET", daemon.baseURL + "/cli0", headers: ["Host": "links.coin.example"]).status == 404, "a dry run writes nothing")

        let imported = try AdminCLITests.admin(["import", good, "--app", "coin", "--format", "fdl"], env, home: home)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("imported        3"), "\(imported.stdout)")
        #expect(imported.stdout.contains("\(good):3: path_not_kept: "), "\(imported.stdout)")
        #expect(try await TestHTTP.send("GET", daemon.baseURL + "/cli0", headers: ["Host": "links.coin.example"]).status == 200)
        let again = try AdminCLITests.admin(["import", good, "--app", "coin", "--format", "fdl"], env, home: home)
        #expect(again.status == 0 && again.stdout.contains("alreadyPresent  3"), "\(again.stdout)")

        let broken = folder + "/broken.csv"
        try (text + "\"https://coin.page.link/open,x\n").write(toFile: broken, atomically: true, encoding: .utf8)
        let refused = try AdminCLITests.admin(["import", broken, "--app", "coin", "--format", "fdl"], env, home: home)
        #expect(refused.status == 1 && refused.stderr.contains("\(broken):5: unclosed_quote: "), "\(refused.status) \(refused.stderr)")
        let missing = try AdminCLITests.admin(["import", folder + "/nope.csv", "--app", "coin", "--format", "fdl"], env, home: home)
        #expect(missing.status == 66 && missing.stderr.contains(folder + "/nope.csv"), "\(missing.status) \(missing.stderr)")
        let badFormat = try AdminCLITests.admin(["import", good, "--app", "coin", "--format", "xlsx"], env, home: home)
        #expect(badFormat.status == 64)
    }
}
