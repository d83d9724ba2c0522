import Foundation
import LinkRouter
import RouteCodegen
import Testing

/// The Kotlin output compiled by kotlinc (Debian's `kotlin` package, 1.3; `scripts/ensure-deps.sh test` installs it)
/// with a program that uses it, run on the JVM: the constants are the manifests' ids and param names.
@Suite("Kotlin output compiles and holds the manifests' ids")
struct KotlinOutputTests {
    static let kotlinc = Tools.find("kotlinc")
    static let java = Tools.find("java")
    static let fixtures = Fixture.all

    @Test(
        "every output compiles, and a program printing its constants prints the manifests' ids",
        .enabled(if: kotlinc != nil && java != nil, "kotlinc or java is not installed (apt-get install kotlin; scripts/ensure-deps.sh test installs it)"))
    func compilesAndRuns() throws {
        let kotlinc = try #require(Self.kotlinc), java = try #require(Self.java)
        let directory = try Tools.directory("kotlin")
        var files: [String] = []
        var prints: [String] = []
        for fixture in Self.fixtures {
            let text = fixture.generate(.kotlin)
            try Tools.write(text, "\(fixture.namespace).kt", in: directory)
            files.append("\(fixture.namespace).kt")
            let qualified = (KotlinPackage.of(text).map { $0 + "." } ?? "") + fixture.namespace
            prints.append("    println(\"ROUTES \(fixture.name) \" + \(qualified).Routes.ALL.joinToString(\"\\u0000\"))")
            prints.append("    println(\"TABS \(fixture.name) \" + \(qualified).Tabs.ALL.joinToString(\"\\u0000\"))")
            prints.append("    println(\"STATES \(fixture.name) \" + \(qualified).States.ALL.joinToString(\"\\u0000\"))")
        }
        let main = """
            fun main() {
            \(prints.joined(separator: "\n"))
                println("FLOW " + HandzLinks.Routes.LIBRARY_FLOW_DETAIL + " " + HandzLinks.Params.LibraryFlowDetail.FLOW_ID)
                println("EVENT " + com.ordentus.app.OrdentusLinks.Params.CalendarEventDetail.EVENT_ID + " " + com.ordentus.app.OrdentusLinks.Tabs.LAUNCH)
                println("COIN " + CoinLinks.Tabs.ROOTS[CoinLinks.Tabs.PROJECTS] + " " + CoinLinks.States.UNAUTHENTICATED + " " + CoinLinks.MANIFEST_VERSION)
                println("ODD " + com.example.`in`.odd.OddAppLinks.Params.CoinCanvas2.IN + " " + com.example.`in`.odd.OddAppLinks.Routes.PROTO)
            }
            """
        try Tools.write(main, "Main.kt", in: directory)
        let compile = try Tools.run(kotlinc, files + ["Main.kt", "-include-runtime", "-d", "links.jar"], in: directory)
        try #require(compile.status == 0, "\(compile.output)")
        let run = try Tools.run(java, ["-cp", "links.jar", "MainKt"], in: directory)
        try #require(run.status == 0, "\(run.output)")
        let lines = run.output.split(separator: "\n").map(String.init)
        func values(_ prefix: String) -> [String]? {
            lines.first { $0.hasPrefix(prefix + " ") }.map { line in
                let text = String(line.dropFirst(prefix.count + 1))
                return text.isEmpty ? [] : text.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
            }
        }
        for fixture in Self.fixtures {
            #expect(values("ROUTES \(fixture.name)") == fixture.manifest.routeOrder, "\(fixture.name)")
            #expect(values("TABS \(fixture.name)") == fixture.manifest.tabs.map(\.id), "\(fixture.name)")
            #expect(values("STATES \(fixture.name)") == fixture.manifest.states, "\(fixture.name)")
        }
        #expect(lines.contains("FLOW Library/FlowDetail flowId"))
        #expect(lines.contains("EVENT eventId today"))
        #expect(lines.contains("COIN Projects signedOut 7"))
        #expect(lines.contains("ODD in __proto__"))
    }
}

/// The `package` line of a Kotlin file, as written.
enum KotlinPackage {
    static func of(_ text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix("package ") }.map { String($0.dropFirst("package ".count)) }
    }
}
