import Foundation
import LinkdTestSupport
import Testing

/// Runs the built `linkd` binary as a process.
@Suite("linkd token and token keyring CLI, end to end")
struct CLITests {
    static func run(_ arguments: [String]) throws -> LinkdProcess.Output {
        try LinkdProcess.run(arguments, unsetting: ["LINKD_MASTER_KEY"])
    }

    @Test func issueVerifyRotate() throws {
        let dir = NSTemporaryDirectory() + "linkd-cli-\(UUID().uuidString)/data"
        let data = ["--data-dir", dir]
        #expect(try Self.run(["token", "keyring", "generate", "--app", "demo", "--suite", "ed25519"] + data).status == 0)
        let issued = try Self.run(["token", "issue", "--app", "demo", "--ttl", "7d", "--suite", "ed25519", "--generation", "4"] + data)
        #expect(issued.status == 0)
        let token = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.utf8.count == 126)
        let verified = try Self.run(["token", "verify", token, "--app", "demo"] + data)
        #expect(verified.status == 0)
        let json = try #require(JSONSerialization.jsonObject(with: Data(verified.stdout.utf8)) as? [String: Any])
        #expect(json["generation"] as? Int == 4 && json["kid"] as? Int == 1 && json["suite"] as? String == "ed25519")
        #expect((json["linkID"] as? String)?.count == 32)
        let rotated = try Self.run(["token", "keyring", "rotate", "--app", "demo", "--suite", "ed25519"] + data)
        #expect(rotated.status == 0)
        #expect(try Self.run(["token", "verify", token, "--app", "demo"] + data).status == 0)
        let newToken = try Self.run(["token", "issue", "--app", "demo", "--suite", "ed25519"] + data).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let newJSON = try Self.run(["token", "verify", newToken, "--app", "demo"] + data).stdout
        #expect(newJSON.contains("\"kid\" : 2"))
        let jwks = try Self.run(["token", "keyring", "jwks", "--app", "demo"] + data)
        #expect(jwks.stdout.contains("\"kty\":\"OKP\"") && !jwks.stdout.contains("\"d\""))
        #expect(try Self.run(["token", "keyring", "retire", "--app", "demo", "--kid", "1"] + data).status == 0)
        let rejected = try Self.run(["token", "verify", token, "--app", "demo"] + data)
        #expect(rejected.status != 0 && rejected.stderr.contains("rejected"))
        let listed = try Self.run(["token", "keyring", "list"] + data).stdout
        #expect(listed.contains("retired") && !listed.contains("sealedSecret"))
        let attributes = try FileManager.default.attributesOfItem(atPath: dir)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
    }

    @Test(arguments: [
        ["token", "issue", "--app", "demo", "--ttl", "7x"],
        ["token", "issue", "--app", "demo", "--ttl", "999999d"],
        ["token", "issue", "--app", "nokeys"],
        ["token", "verify", "AQ==", "--app", "demo"],
        ["token", "keyring", "generate", "--app", "demo", "--suite", "rsa"],
        ["token", "keyring", "retire", "--app", "demo", "--kid", "-1"],
    ])
    func badInput(_ arguments: [String]) throws {
        let dir = NSTemporaryDirectory() + "linkd-cli-\(UUID().uuidString)"
        #expect(try Self.run(["token", "keyring", "generate", "--app", "demo", "--data-dir", dir]).status == 0)
        let result = try Self.run(arguments + ["--data-dir", dir])
        #expect(result.status != 0 && result.status < 128, "exit \(result.status)")
        #expect(result.stderr.contains("rror"))
    }
}
