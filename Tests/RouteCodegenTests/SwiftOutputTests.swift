import Foundation
import LinkRouter
import RouteCodegen
import Testing

/// The Swift output of the four examples and of a manifest of awkward names, compiled by swiftc (Swift 6 mode,
/// warnings as errors) and run: every route made from a resolution's id and params gives them back.
@Suite("Swift output compiles and round-trips every route")
struct SwiftOutputTests {
    static let fixtures = Fixture.all

    @Test("the odd and the bare manifests load (the names below are what a manifest may hold)")
    func oddManifestLoads() {
        #expect(Fixture.odd.manifest.routeOrder.count == 8)
        #expect(Fixture.bare.manifest.routeOrder.isEmpty && Fixture.bare.manifest.tabs.isEmpty)
    }

    @Test("every output typechecks without a warning, and a program using it runs")
    func compilesAndRuns() throws {
        let swiftc = try #require(Tools.find("swiftc"), "swiftc is not on PATH (it comes with the toolchain: /opt/swift/usr/bin)")
        let directory = try Tools.directory("swift")
        var files: [String] = []
        for fixture in Self.fixtures {
            try Tools.write(fixture.generate(.swift), "\(fixture.namespace).swift", in: directory)
            files.append("\(fixture.namespace).swift")
        }
        let typecheck = try Tools.run(swiftc, ["-typecheck", "-swift-version", "6", "-warnings-as-errors"] + files, in: directory)
        #expect(typecheck.status == 0, "\(typecheck.output)")

        try Tools.write(Self.program(), "main.swift", in: directory)
        let build = try Tools.run(swiftc, ["-swift-version", "6", "-o", "routes", "main.swift"] + files, in: directory)
        try #require(build.status == 0, "\(build.output)")
        let run = try Tools.run(directory.appendingPathComponent("routes").path, [], in: directory)
        #expect(run.status == 0, "\(run.output)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(!lines.contains { $0.hasPrefix("FAIL") }, "\(lines.filter { $0.hasPrefix("FAIL") }.joined(separator: "\n"))")
        // The RouteID cases are the manifest's route ids, in its order.
        for fixture in Self.fixtures {
            let ids = lines.first { $0.hasPrefix("IDS \(fixture.namespace) ") }.map { String($0.dropFirst("IDS \(fixture.namespace) ".count)) }
            let decoded = try ids.map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) }
            #expect(decoded == fixture.manifest.routeOrder, "\(fixture.name)")
        }
        #expect(lines.last == "DONE")
    }

    /// A program that, for every route of every fixture, makes the route from its id and params (all of them, then
    /// the required ones only) and checks it gives them back; that a missing required param, a param of the wrong
    /// type and an unknown id give nil; and uses a few routes, tabs and states by name.
    static func program() -> String {
        var lines = ["import Foundation", "", "func check(_ ok: Bool, _ what: String) { if !ok { print(\"FAIL \\(what)\") } }", ""]
        for fixture in fixtures {
            let namespace = fixture.namespace
            for id in fixture.manifest.routeOrder {
                guard let route = fixture.manifest.routes[id] else { continue }
                let declared = route.declaredParams
                let all = declared.mapValues { Fixture.sample($0.type) }
                let required = declared.filter(\.value.required).mapValues { Fixture.sample($0.type) }
                let name = "\(fixture.name) \(id)".debugDescription
                lines.append("check(\(namespace).Route(id: \(id.debugDescription), params: \(literal(all)))?.params == \(literal(all)), \(name) + \" all params\")")
                lines.append("check(\(namespace).Route(id: \(id.debugDescription), params: \(literal(required)))?.params == \(literal(required)), \(name) + \" required params\")")
                lines.append("check(\(namespace).Route(id: \(id.debugDescription), params: [:])?.id.rawValue == \(required.isEmpty ? id.debugDescription : "nil"), \(name) + \" no params\")")
                for (param, spec) in declared where spec.type == .int || spec.type == .uuid {
                    var wrong = all
                    wrong[param] = "x1"
                    lines.append("check(\(namespace).Route(id: \(id.debugDescription), params: \(literal(wrong))) == nil, \(name) + \" \(param) of the wrong type\")")
                }
            }
            lines.append("check(\(namespace).Route(id: \"No/Such/Route\", params: [:]) == nil, \"\(fixture.name) unknown id\")")
            lines.append("print(\"IDS \(namespace) \" + String(decoding: try! JSONEncoder().encode(\(namespace).RouteID.allCases.map(\\.rawValue)), as: UTF8.self))")
        }
        lines += [
            "",
            "// Routes, tabs and states by name: these lines compile only if the names and types are as docs/codegen.md says.",
            "let flow = UUID(uuidString: \"6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b\")!",
            "let flowDetail: HandzLinks.Route = .libraryFlowDetail(flowId: flow)",
            "check(flowDetail.id == .libraryFlowDetail && flowDetail.params == [\"flowId\": \"6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b\"], \"handz typed\")",
            "check(HandzLinks.Route(id: \"ShareLink/FlowView\", params: [\"flowId\": flow.uuidString]) == .shareLinkFlowView(flowId: flow), \"handz share route\")",
            "check(HandzLinks.Tab.launch == .library && HandzLinks.Tab.library.root == .tabLibrary, \"handz tabs\")",
            "check(HandzLinks.State.unauthenticated == .signedOut && HandzLinks.State.allCases.count == 5, \"handz states\")",
            "check(HandzLinks.appID == \"handz\" && HandzLinks.manifestVersion == 7, \"handz identity\")",
            "let canvas: CoinLinks.Route = .canvas(coinId: \"c-1\")",
            "check(canvas.id.rawValue == \"Canvas\" && canvas.params == [\"coinId\": \"c-1\"], \"coin typed\")",
            "check(CoinLinks.Tab.allCases.map(\\.rawValue) == [\"recents\", \"projects\", \"favorites\"] && CoinLinks.Tab.launch == .recents, \"coin tabs\")",
            "check(CoinLinks.Route.projectDetail(projectId: \"proj-123\").params == [\"projectId\": \"proj-123\"], \"coin project\")",
            "check(OddAppLinks.Route.coinCanvas(id: 3, values: flow).params == [\"id\": \"3\", \"values\": flow.uuidString.lowercased()], \"odd defaults\")",
            "check(OddAppLinks.Route.coinCanvas2(in: 1, selfValue: \"x\").params == [\"in\": \"1\", \"self\": \"x\"], \"odd keywords\")",
            "check(OddAppLinks.Route.id2(letValue: \"a\", varValue: \"b-c\").params == [\"let\": \"a\", \"var\": \"b-c\"], \"odd let/var\")",
            "check(OddAppLinks.Route.`default`(rest: \"a/b\").id == .`default` && OddAppLinks.Tab.`for`.root == .`default`, \"odd default\")",
            "check(OddAppLinks.State.unauthenticated.rawValue == \"self\", \"odd state\")",
            "print(\"DONE\")",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A `[String: String]` literal, keys sorted.
    static func literal(_ values: [String: String]) -> String {
        guard !values.isEmpty else { return "[:]" }
        return "[" + values.sorted { $0.key < $1.key }.map { "\($0.key.debugDescription): \($0.value.debugDescription)" }.joined(separator: ", ") + "]"
    }
}
