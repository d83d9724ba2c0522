import Foundation
import LinkStore
import LinkdTestSupport
import Testing

/// `liveCustomPaths(outside:)`: the listing behind the well-known files and the cap of 200 leaves out the paths of an
/// app's `share.pathPatterns` in SQL, read from the `links_app_custom_paths` index, so an app with thousands of them
/// (an import of old short links) costs a bounded answer. `LINKD_PATTERN_PATHS` sets how many (default 20,000).
@Suite("Custom path shapes in the store")
struct CustomPathShapesTests {
    static func link(_ n: Int, path: String) -> LinkRecord {
        LinkRecord(
            id: String(format: "%032x", 0x7000_0000 + n), app: "handz", route: "ShareLink/FlowView", params: ["flowId": "f\(n)"],
            owner: nil, title: nil, created: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)),
            expires: Date(timeIntervalSince1970: 4_000_000_000), shortID: String(format: "p%010d", n), path: path)
    }

    /// Four lowercase letters and digits from `index` (unique below 36⁴).
    static func code(_ index: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return "/" + String((0..<4).map { alphabet[index / [1, 36, 1_296, 46_656][$0] % 36] })
    }

    @Test("thousands of pattern paths and 150 others: the listing is the 150, in either case rule, quickly")
    func listingLeavesPatternPathsOut() async throws {
        let count = Int(ProcessInfo.processInfo.environment["LINKD_PATTERN_PATHS"] ?? "") ?? 20_000
        let backend = try SQLiteBackend(path: temporaryDataDir() + ".sqlite")
        let others = (0..<150).map { n in n.isMultiple(of: 3) ? "/l/a/\(n)" : n.isMultiple(of: 2) ? "/Team_\(n)" : "/L/x\(n)" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<64 {
                group.addTask {
                    for n in stride(from: worker, to: count, by: 64) {
                        try await backend.insertLink(Self.link(n, path: n.isMultiple(of: 2) ? "/l/a_\(n)" : Self.code(n / 2)))
                    }
                }
            }
            try await group.waitForAll()
        }
        for (index, path) in others.enumerated() { try await backend.insertLink(Self.link(count + index, path: path)) }
        let shapes = CustomPathShapes(["/l/*", "/????", "/?????"])
        let clock = ContinuousClock()
        var listed: [String] = []
        var took: [Duration] = []
        for _ in 0..<3 {
            took.append(try await clock.measure { listed = try await backend.liveCustomPaths(app: "handz", now: Date(), limit: 200, outside: shapes) })
        }
        #expect(Set(listed) == Set(others), "\(listed.count) listed")
        print("liveCustomPaths over \(count) pattern paths and \(others.count) others, three times: \(took)")
        // In any case: `/L/x…` is of `/l/*`'s shape then.
        let folded = try await backend.liveCustomPaths(app: "handz", now: Date(), limit: 200, outside: CustomPathShapes(["/l/*", "/????"], caseInsensitive: true))
        #expect(Set(folded) == Set(others.filter { !$0.hasPrefix("/L/") }))
        #expect(try await backend.liveCustomPaths(app: "handz", now: Date(), limit: 10, outside: shapes).count == 10)
    }
}
