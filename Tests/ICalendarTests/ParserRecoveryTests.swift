import Testing

@testable import ICalendar

@Suite("Broken input is read tolerantly")
struct RecoveryTests {
    @Test("a line with no colon is skipped with a diagnostic")
    func noColon() throws {
        let document = try parseFixture("no-colon")
        #expect(document.diagnostics.map(\.code) == [.missingColon])
        #expect(document.diagnostics.first?.line == 4)
        #expect(try first("VEVENT", in: document).property("SUMMARY")?.value == "still here")
    }

    @Test("END without BEGIN is ignored with a diagnostic")
    func endWithoutBegin() throws {
        let document = try parseFixture("end-without-begin")
        #expect(document.diagnostics.map(\.code) == [.endWithoutBegin])
        #expect(document.diagnostics.first?.line == 1)
        #expect(try first("VEVENT", in: document).property("UID")?.value == "endless-1")
    }

    @Test("a missing END closes the component where it must, with a diagnostic at its BEGIN")
    func missingEnd() throws {
        let document = try parseFixture("missing-end")
        #expect(document.diagnostics.map(\.code) == [.missingEnd, .missingEnd, .missingEnd])
        #expect(document.diagnostics.map(\.line) == [1, 2, 7])
        let calendar = try #require(document.calendars.first)
        #expect(calendar.components.map { $0.property("UID")?.value } == ["missing-a", "missing-b", "missing-c"])
    }

    @Test("a wrong END name is reported; an END of an outer component closes the inner one")
    func wrongEnd() throws {
        let document = try parseFixture("wrong-end")
        #expect(document.diagnostics.map(\.code) == [.wrongEnd, .wrongEnd])
        #expect(document.diagnostics.map(\.line) == [4, 8])
        let calendar = try #require(document.calendars.first)
        #expect(calendar.components.map(\.name) == ["VEVENT", "VTODO"])
        #expect(calendar.components.last?.property("UID")?.value == "wrong-2")
    }

    @Test("non-UTF-8 bytes are replaced and reported, the rest is kept")
    func invalidUTF8() throws {
        let document = try parseFixture("invalid-utf8")
        #expect(document.diagnostics.map(\.code) == [.invalidUTF8])
        #expect(document.diagnostics.first?.line == 4)
        let event = try first("VEVENT", in: document)
        #expect(event.property("SUMMARY")?.value == "bad \u{FFFD}\u{FFFD} bytes")
        #expect(event.property("LOCATION")?.value == "ok")
    }

    @Test("other broken lines", arguments: [
        ("BEGIN:VEVENT\n;X=1:v\nEND:VEVENT\n", ICalendarDiagnostic.Code.invalidName),
        ("BEGIN:VEVENT\nA B:v\nEND:VEVENT\n", .invalidName),
        ("BEGIN:VEVENT\nX;=1:v\nEND:VEVENT\n", .invalidParameter),
        ("BEGIN:VEVENT\nX;P:v\nEND:VEVENT\n", .invalidParameter),
        ("BEGIN:VEVENT\nX;P=\"open:v\nEND:VEVENT\n", .unterminatedQuote),
        ("BEGIN:VEVENT\nX;P=a\"b\":v\nEND:VEVENT\n", .invalidParameter),
        ("BEGIN:VEVENT\nX;P=1\nEND:VEVENT\n", .missingColon),
        (" fold first\nBEGIN:VEVENT\nEND:VEVENT\n", .foldWithoutLine),
        ("UID:outside\nBEGIN:VEVENT\nEND:VEVENT\n", .propertyOutsideComponent),
        ("BEGIN:\nBEGIN:VEVENT\nEND:VEVENT\n", .invalidBegin),
    ])
    func brokenLines(input: String, code: ICalendarDiagnostic.Code) throws {
        let document = try ICalendarParser().parse(Array(input.utf8))
        #expect(document.diagnostics.map(\.code) == [code])
        #expect(document.components.map(\.name) == ["VEVENT"])
    }
}
