import Foundation
import LinkdTestSupport
import Testing

/// `linkd admin export` as a process against a real `linkd serve`: the API's bytes, to standard output or to a file.
@Suite("linkd admin export against a running daemon")
struct AdminExportCLITests {
    @Test("the CLI writes the API's bytes to standard output and to a private file; a failed export leaves no file",
          arguments: ["sqlite", "postgres"])
    func sameBytesAsTheAPI(store: String) async throws {
        let daemon = try AdminCLITests.daemon(store)
        defer { daemon.stop() }
        let home = try AdminCLITests.Home()
        let admin = try #require(daemon.initialAdminKey)
        let env = ["LINKD_URL": daemon.baseURL, "LINKD_ADMIN_KEY": admin]
        for index in 0..<25 {
            let title = index == 0 ? #"=HYPERLINK("http://evil","x")"# : "Flow, \"\(index)\""
            let made = try await TestHTTP.send("POST", daemon.baseURL + "/v1/links", bearer: admin, json: [
                "app": "handz", "route": "ShareLink/FlowView", "params": ["flowId": UUID().uuidString.lowercased()], "title": title,
            ])
            try #require(made.status == 201, "\(String(decoding: made.body, as: UTF8.self))")
        }
        let folder = temporaryDataDir() + "-export"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for format in ["csv", "ndjson"] {
            let api = try await TestHTTP.send("GET", daemon.baseURL + "/v1/links/export?app=handz&format=\(format)", bearer: admin)
            try #require(api.status == 200)
            #expect(api.body.filter { $0 == UInt8(ascii: "\n") }.count == 25 + (format == "csv" ? 1 : 0), "a line per link (and the header)")
            let printed = try AdminCLITests.admin(["export", "--app", "handz", "--format", format], env, home: home)
            #expect(printed.status == 0, "\(printed.stderr)")
            #expect(Data(printed.stdout.utf8) == api.body, "standard output is the API's bytes")
            let file = folder + "/handz.\(format)"
            let written = try AdminCLITests.admin(["export", "--app", "handz", "--format", format, "--output", file], env, home: home)
            #expect(written.status == 0 && written.stdout.isEmpty, "\(written.stderr)")
            #expect(FileManager.default.contents(atPath: file) == api.body, "the file is the API's bytes")
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
        #expect(try String(contentsOfFile: folder + "/handz.csv", encoding: .utf8).contains(#","'=HYPERLINK(""http://evil"",""x"")","#))

        // An app the daemon does not have: 404's exit code, and no file (nor a temporary one) left behind.
        let missing = try AdminCLITests.admin(["export", "--app", "nope", "--format", "csv", "--output", folder + "/nope.csv"], env, home: home)
        #expect(missing.status == 66 && missing.stderr.contains("not_found"), "\(missing.status) \(missing.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["handz.csv", "handz.ndjson"])
        let badFormat = try AdminCLITests.admin(["export", "--app", "handz", "--format", "xlsx"], env, home: home)
        #expect(badFormat.status == 64)
        let nowhere = try AdminCLITests.admin(["export", "--app", "handz", "--format", "csv", "--output", folder + "/no/such/dir.csv"], env, home: home)
        #expect(nowhere.status == 73, "\(nowhere.status) \(nowhere.stderr)")
    }
}
