import Foundation
import Testing
@testable import TokenSigning

@Suite("docs/token-vectors.json")
struct VectorsFileTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/token-vectors.json").path

    @Test func regeneratingGivesIdenticalBytes() throws {
        let onDisk = try String(contentsOfFile: Self.path, encoding: .utf8)
        #expect(try TokenVectors.generate() == onDisk)
    }

    @Test func everyVectorChecks() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.path))
        let root = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let now = try #require(root["now"] as? Int)
        let vectors = try #require(root["vectors"] as? [[String: Any]])
        #expect(vectors.count >= 20)
        let keyring = try TokenVectors.keyring()
        var valid = 0, invalid = 0
        for v in vectors {
            let token = try #require(v["token"] as? String), app = try #require(v["app"] as? String)
            let result = keyring.verify(token, app: app, now: UInt32(now))
            if v["expect"] as? String == "valid" {
                valid += 1
                let claims = try result.get()
                let expected = try #require(v["claims"] as? [String: Any])
                #expect(claims.linkID.hex == expected["linkId"] as? String)
                #expect(Int(claims.keyID) == expected["kid"] as? Int)
                #expect(Int(claims.expiresAt) == expected["expiresAt"] as? Int)
                #expect(Int(claims.generation) == expected["generation"] as? Int)
                #expect(Int(claims.flags) == expected["flags"] as? Int)
                #expect(claims.suite.name == expected["suite"] as? String)
            } else {
                invalid += 1
                guard case .failure(let error) = result else {
                    Issue.record("vector \(v["id"] ?? "?") accepted")
                    continue
                }
                #expect("\(error.code)" == v["error"] as? String, "vector \(v["id"] ?? "?")")
            }
        }
        #expect(valid >= 4 && invalid >= 15)
    }
}
