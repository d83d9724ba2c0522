import Foundation
import Testing

/// Runs the built `linkd` binary as a process.
@Suite("linkd keys/token CLI, end to end")
struct CLITests {
    static var binary: String? {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("linkd").path]
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("linkd").path)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/linkd").path)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(binary, "build the linkd product first"))
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LINKD_MASTER_KEY"] = nil
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func issueVerifyRotate() throws {
        let dir = NSTemporaryDirectory() + "linkd-cli-\(UUID().uuidString)/data"
        let data = ["--data-dir", dir]
        #expect(try Self.run(["keys", "generate", "--app", "demo", "--suite", "ed25519"] + data).status == 0)
        let issued = try Self.run(["token", "issue", "--app", "demo", "--ttl", "7d", "--suite", "ed25519", "--generation", "4"] + data)
        #expect(issued.status == 0)
        let token = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.utf8.count == 126)
        let verified = try Self.run(["token", "verify", token, "--app", "demo"] + data)
        #expect(verified.status == 0)
        let json = try #require(JSONSerialization.jsonObject(with: Data(verified.stdout.utf8)) as? [String: Any])
        #expect(json["generation"] as? Int == 4 && json["kid"] as? Int == 1 && json["suite"] as? String == "ed25519")
        #expect((json["linkID"] as? String)?.count == 32)
        let rotated = try Self.run(["keys", "rotate", "--app", "demo", "--suite", "ed25519"] + data)
        #expect(rotated.status == 0)
        #expect(try Self.run(["token", "verify", token, "--app", "demo"] + data).status == 0)
        let newToken = try Self.run(["token", "issue", "--app", "demo", "--suite", "ed25519"] + data).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let newJSON = try Self.run(["token", "verify", newToken, "--app", "demo"] + data).stdout
        #expect(newJSON.contains("\"kid\" : 2"))
        let jwks = try Self.run(["keys", "jwks", "--app", "demo"] + data)
        #expect(jwks.stdout.contains("\"kty\":\"OKP\"") && !jwks.stdout.contains("\"d\""))
        #expect(try Self.run(["keys", "retire", "--app", "demo", "--kid", "1"] + data).status == 0)
        let rejected = try Self.run(["token", "verify", token, "--app", "demo"] + data)
        #expect(rejected.status != 0 && rejected.stderr.contains("rejected"))
        let listed = try Self.run(["keys", "list"] + data).stdout
        #expect(listed.contains("retired") && !listed.contains("sealedSecret"))
        let attributes = try FileManager.default.attributesOfItem(atPath: dir)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
    }

    @Test(arguments: [
        ["token", "issue", "--app", "demo", "--ttl", "7x"],
        ["token", "issue", "--app", "demo", "--ttl", "999999d"],
        ["token", "issue", "--app", "nokeys"],
        ["token", "verify", "AQ==", "--app", "demo"],
        ["keys", "generate", "--app", "demo", "--suite", "rsa"],
        ["keys", "retire", "--app", "demo", "--kid", "-1"],
    ])
    func badInput(_ arguments: [String]) throws {
        let dir = NSTemporaryDirectory() + "linkd-cli-\(UUID().uuidString)"
        #expect(try Self.run(["keys", "generate", "--app", "demo", "--data-dir", dir]).status == 0)
        let result = try Self.run(arguments + ["--data-dir", dir])
        #expect(result.status != 0 && result.status < 128, "exit \(result.status)")
        #expect(result.stderr.contains("rror"))
    }
}
