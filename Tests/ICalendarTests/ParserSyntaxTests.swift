import Testing

@testable import ICalendar

@Suite("Lines, folds and names")
struct LineTests {
    @Test("CRLF and bare LF give the same tree", arguments: ["crlf", "bare-lf"])
    func lineEnds(name: String) throws {
        let document = try parseFixture(name)
        #expect(document.diagnostics.isEmpty)
        #expect(document.calendars.count == 1)
        let event = try first("VEVENT", in: document)
        #expect(event.property("UID")?.value.hasSuffix("-1") == true)
        #expect(event.property("SUMMARY") != nil)
    }

    @Test("space and TAB folds are unfolded")
    func folds() throws {
        let document = try parseFixture("folds")
        let event = try first("VEVENT", in: document)
        #expect(event.property("DESCRIPTION")?.value == "This is a long descriptionfolded with a TAB")
        #expect(event.property("DESCRIPTION")?.line == 4)
        #expect(event.property("END") == nil)
        #expect(document.diagnostics.isEmpty)
    }

    @Test("a fold that splits a multi-byte character is unfolded before UTF-8 decoding")
    func foldSplitsMultibyte() throws {
        let document = try parseFixture("fold-splits-multibyte")
        #expect(document.diagnostics.isEmpty)
        #expect(try first("VEVENT", in: document).property("SUMMARY")?.value == "Café ☕ time")
    }

    @Test("a BOM and blank lines are skipped")
    func bomAndBlankLines() throws {
        let document = try parseFixture("bom-blank-lines")
        #expect(document.diagnostics.isEmpty)
        #expect(document.calendars.first?.property("VERSION")?.value == "2.0")
        #expect(try first("VEVENT", in: document).property("UID")?.value == "bom-1")
    }

    @Test("names of components, properties and parameters are case-insensitive")
    func caseInsensitive() throws {
        let document = try parseFixture("case-insensitive")
        #expect(document.diagnostics.isEmpty)
        #expect(document.calendars.count == 1)
        let event = try first("VEVENT", in: document)
        #expect(event.property("uid")?.value == "case-1")
        #expect(event.property("SUMMARY")?.parameter("language") == "en")
        #expect(event.property("SUMMARY")?.parameters.first?.name == "LANGUAGE")
    }
}

@Suite("Parameters and values")
struct ValueTests {
    @Test("quoted parameter values may hold ; : and , and the value starts at the first colon outside quotes")
    func quotedParameters() throws {
        let event = try first("VEVENT", in: try parseFixture("quoted-params"))
        let attendee = try #require(event.property("ATTENDEE"))
        #expect(attendee.parameter("CN") == "Doe, Jane; PhD: Ops")
        #expect(attendee.parameter("ROLE") == "REQ-PARTICIPANT")
        #expect(attendee.value == "mailto:jane@example.com")
        #expect(event.property("LOCATION")?.parameter("ALTREP") == "http://example.com/room?a=1;b=2")
        #expect(event.property("LOCATION")?.value == "Room 1")
    }

    @Test("RFC 6868 ^n ^^ ^' are decoded in parameter values")
    func rfc6868() throws {
        let event = try first("VEVENT", in: try parseFixture("rfc6868"))
        #expect(event.property("ATTENDEE")?.parameter("CN") == "George Herman \"Babe\" Ruth")
        #expect(
            event.property("GEO")?.parameter("X-ADDRESS")
                == "Pittsburgh Pirates\n115 Federal St\nPittsburgh, PA 15212^")
        #expect(event.property("X-CARET")?.parameter("X-P") == "a^b^")
        #expect(event.property("GEO")?.value == "40.446816;-80.00566")
    }

    @Test("TEXT is unescaped, URI values stay as written")
    func textEscapes() throws {
        let event = try first("VEVENT", in: try parseFixture("text-escapes"))
        #expect(event.property("SUMMARY")?.value == "a\\b;c,d\ne\nf")
        #expect(event.property("SUMMARY")?.rawValue == "a\\\\b\\;c\\,d\\ne\\Nf")
        #expect(event.property("CATEGORIES")?.textValues == ["one,two", "three"])
        #expect(event.property("URL")?.value == "https://example.com/a\\b;c,d?x=1;y=2")
        #expect(event.property("X-LINK")?.value == "https://example.com/p?q=1\\,2")
    }

    @Test("a URL with ; and , is kept whole")
    func urlWithSeparators() throws {
        let event = try first("VEVENT", in: try parseFixture("url-semicolon-comma"))
        #expect(event.property("URL")?.value == "https://links.ordentus.example/s/AQAAAAE;v=2,3?utm=a,b;c=d")
    }

    @Test("RRULE is kept as written, never expanded")
    func rrule() throws {
        let event = try first("VEVENT", in: try parseFixture("rrule"))
        #expect(event.properties(named: "RRULE").count == 1)
        #expect(event.property("RRULE")?.value == "FREQ=SECONDLY;INTERVAL=1;COUNT=1000000000")
        #expect(event.components.isEmpty)
    }
}

@Suite("Stream shapes")
struct StructureTests {
    @Test("several VCALENDARs in one stream")
    func severalCalendars() throws {
        let document = try parseFixture("several-calendars")
        #expect(document.diagnostics.isEmpty)
        #expect(document.calendars.count == 2)
        #expect(document.calendars.last?.property("METHOD")?.value == "CANCEL")
        #expect(document.calendars.map { $0.components.first?.property("UID")?.value } == ["multi-a", "multi-b"])
    }

    @Test("components without a VCALENDAR are kept at the top level")
    func bareComponents() throws {
        let document = try parseFixture("bare-components")
        #expect(document.diagnostics.isEmpty)
        #expect(document.calendars.isEmpty)
        #expect(document.components.map(\.name) == ["VEVENT", "VTODO"])
    }

    @Test("unknown and X- components and properties are kept, RFC 7986 properties read")
    func unknownAndExtensions() throws {
        let document = try parseFixture("unknown-and-x")
        #expect(document.diagnostics.isEmpty)
        let calendar = try #require(document.calendars.first)
        #expect(calendar.property("X-WR-CALNAME")?.value == "Team")
        let goal = try first("X-ORDENTUS-GOAL", in: document)
        #expect(goal.property("X-ORDENTUS-ORDER")?.value == "42")
        #expect(goal.property("X-ORDENTUS-ORDER")?.parameter("X-KIND") == "rush")
        #expect(goal.property("FOO-BAR")?.value == "baz")
        let event = try first("VEVENT", in: document)
        #expect(event.property("COLOR")?.value == "turquoise")
        #expect(event.property("IMAGE")?.parameter("DISPLAY") == "BADGE")
        #expect(event.property("CONFERENCE")?.parameters.first { $0.name == "FEATURE" }?.values == ["AUDIO", "VIDEO"])
    }
}
