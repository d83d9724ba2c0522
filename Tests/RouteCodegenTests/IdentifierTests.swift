import Testing

@testable import RouteCodegen

@Suite("identifiers from manifest names")
struct IdentifierTests {
    @Test("route ids become identifiers of each style")
    func styles() {
        #expect(IdentifierStyle.lowerCamel.apply("Library/FlowDetail", fallback: "x") == "libraryFlowDetail")
        #expect(IdentifierStyle.lowerCamel.apply("coin.canvas", fallback: "x") == "coinCanvas")
        #expect(IdentifierStyle.lowerCamel.apply("ordersList", fallback: "x") == "ordersList")
        #expect(IdentifierStyle.lowerCamel.apply("COINEditor", fallback: "x") == "coinEditor")
        #expect(IdentifierStyle.screamingSnake.apply("Library/FlowDetail", fallback: "x") == "LIBRARY_FLOW_DETAIL")
        #expect(IdentifierStyle.screamingSnake.apply("ordersList", fallback: "x") == "ORDERS_LIST")
        #expect(IdentifierStyle.screamingSnake.apply("sheet-2", fallback: "x") == "SHEET_2")
        #expect(IdentifierStyle.upperCamel.apply("coin.canvas", fallback: "x") == "CoinCanvas")
        #expect(IdentifierStyle.upperCamel.apply("404/Page", fallback: "x") == "_404Page")
        #expect(IdentifierStyle.lowerCamel.apply("✓", fallback: "route") == "route")
    }

    @Test("two names with one identifier get numbers, reserved names are avoided")
    func collisions() {
        var scope = IdentifierScope(.lowerCamel, fallback: "route", reserved: ["id"])
        #expect(scope.identifier(for: "Library/FlowDetail") == "libraryFlowDetail")
        #expect(scope.identifier(for: "LibraryFlowDetail") == "libraryFlowDetail2")
        #expect(scope.identifier(for: "library.flow-detail") == "libraryFlowDetail3")
        #expect(scope.identifier(for: "Id") == "id2")
        var constants = IdentifierScope(.screamingSnake, fallback: "ROUTE")
        #expect(constants.identifier(for: "a/b") == "A_B")
        #expect(constants.identifier(for: "a.b") == "A_B_2")
    }

    @Test("string literals escape what would end or change them")
    func literals() {
        #expect(Text.swiftString("a\"b\\c\n") == #""a\"b\\c\n""#)
        #expect(Text.swiftString("é") == #""\u{E9}""#)
        #expect(Text.typeScriptString("it's \u{1F600}") == #"'it\'s \uD83D\uDE00'"#)
        #expect(Text.kotlinString("$id \"x\"") == #""\$id \"x\"""#)
        #expect(Text.comment("a */ b\n") == #"a *\/ b\u{A}"#)
    }
}
