import Foundation
import LinkdClient
import LinkdTestSupport
import Testing

/// The client's wire types against the server's own: its JSON for every member, every seed app's candidate URLs in
/// every state, and the spellings of its enums and error codes.
@Suite("LinkdClient's wire types do not drift from the server's")
struct WireTypeTests {
    @Test("a resolution with every member the server's type has comes back whole")
    func everyMember() throws {
        let resolution = try WireComparison.expectWhole(Resolution.self, ServerResolutions.everyMember(), "every member")
        #expect(resolution.intercept?.continuation?.url == "https://links.handz.example/flows/x")
        #expect(resolution.presentation == .sheetMedium && resolution.link?.expiresAt == 1_800_000_000)
        #expect(resolution.problem?.code == "noMatch")
        #expect(Mirror(reflecting: resolution).children.count == ServerResolutions.memberCount(),
                "the server's Resolution has a member the client's lacks (or the reverse)")
    }

    @Test("every candidate URL of every seed app in every state (and in no state of it): the server's JSON whole in the client's type")
    func seedCandidates() async throws {
        // Thousands of resolutions: made on a Dispatch thread, not on Swift's two cooperative threads, which other
        // suites' time limits need.
        let answers = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try ServerResolutions.seedCandidates() + ServerResolutions.failures() })
            }
        }
        #expect(answers.count > 1000)
        var problems: Set<String> = []
        for (context, json) in answers {
            let resolution = try WireComparison.expectWhole(Resolution.self, json, context)
            if let problem = resolution.problem { problems.insert(problem.code) }
        }
        #expect(problems.isSuperset(of: ["noMatch", "unknownState", "nonCanonicalPath", "urlTooLong", "unknownApp", "portRefused", "userinfoRefused"]),
                "\(problems.sorted())")
    }

    @Test("every outcome and presentation the server spells decodes to a case the client names (not .other)")
    func enumSpellings() throws {
        for spelling in ServerSpellings.outcomes {
            let outcome = Resolution.Outcome(rawValue: spelling)
            if case .other = outcome { Issue.record("outcome \(spelling) is unknown to the client") }
            #expect(outcome.rawValue == spelling)
        }
        for spelling in ServerSpellings.presentations {
            let presentation = Presentation(rawValue: spelling)
            if case .other = presentation { Issue.record("presentation \(spelling) is unknown to the client") }
            #expect(presentation.rawValue == spelling)
        }
        // A newer server's spelling is kept, not refused.
        let future = try JSONDecoder().decode(Resolution.self, from: Data(#"{"outcome":"teleport","params":{},"tabBarVisible":false,"stack":[],"returnTo":{},"presentation":"popover","newKey":1}"#.utf8))
        #expect(future.outcome == .other("teleport") && future.presentation == .other("popover"))
    }

    @Test("ServerErrorCode knows every code of the server's APIError.Code and of docs/openapi.yaml")
    func errorCodes() throws {
        let root = LinkdProcess.repositoryRoot
        // The HTTP plumbing's generic codes and the server's domain codes.
        let source = try ["Sources/LinkdHTTP/Errors/APIError.swift", "Sources/LinkdServer/Server/Errors/APIError+Codes.swift"]
            .map { try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8) }.joined()
        let serverCodes = Set(source.matches(of: /static let \w+ = (?:APIError\.)?Code\("([^"]+)"\)/).map { String($0.output.1) })
        let clientCodes = Set(ServerErrorCode.known.map(\.rawValue))
        #expect(serverCodes.count >= 18)
        #expect(serverCodes == clientCodes, "server only: \(serverCodes.subtracting(clientCodes).sorted()); client only: \(clientCodes.subtracting(serverCodes).sorted())")
        let openapi = try String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        let documented = try #require(openapi.firstMatch(of: /code:\s*\n\s*type: string\s*\n\s*enum: \[([^\]]+)\]/))
        let documentedCodes = Set(documented.output.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(documentedCodes == clientCodes, "documented only: \(documentedCodes.subtracting(clientCodes).sorted()); client only: \(clientCodes.subtracting(documentedCodes).sorted())")
        for code in ServerErrorCode.known {
            #expect(ServerErrorCode(rawValue: code.rawValue) == code)
        }
        // A server before 0.2 spelled the edge's two codes in camelCase.
        #expect(ServerErrorCode(rawValue: "tooManyConnections") == .tooManyConnections)
        #expect(ServerErrorCode(rawValue: "requestTimeout") == .requestTimeout)
        #expect(ServerErrorCode.tooManyConnections.rawValue == "too_many_connections")
        #expect(ServerErrorCode(rawValue: "brand_new") == .other("brand_new"))
    }
}
