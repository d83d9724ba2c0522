import Testing

@testable import ICalendar

/// Repeats `text` until it is at least `bytes` long.
private func repeated(_ text: String, toAtLeast bytes: Int) -> [UInt8] {
    let unit = Array(text.utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes + unit.count)
    while out.count < bytes { out.append(contentsOf: unit) }
    return out
}

@Suite("Hard caps")
struct LimitTests {
    @Test("a 10 MiB input is refused before it is read")
    func tenMebibytes() throws {
        let input = repeated("BEGIN:VEVENT\r\nUID:x\r\nEND:VEVENT\r\n", toAtLeast: 10 << 20)
        let error = #expect(throws: ICalendarError.self) { try ICalendarParser().parse(input) }
        #expect(error?.code == .inputTooLarge)
        #expect(error?.message.contains("1048576") == true)
    }

    @Test("100,000 tiny components are refused by the component cap")
    func manyComponents() throws {
        let input = repeated("BEGIN:A\nEND:A\n", toAtLeast: 100_000 * 14)
        #expect(input.count <= 2 << 20)
        let limits = ICalendarLimits(maxBytes: 2 << 20)
        let error = #expect(throws: ICalendarError.self) { try ICalendarParser(limits: limits).parse(input) }
        #expect(error?.code == .tooManyComponents)
        #expect(error?.line == 20_001)
    }

    @Test("100,000 tiny components parse when the cap allows them")
    func manyComponentsAllowed() throws {
        let input = repeated("BEGIN:A\nEND:A\n", toAtLeast: 100_000 * 14)
        let limits = ICalendarLimits(maxBytes: 2 << 20, maxComponents: 100_000)
        let document = try ICalendarParser(limits: limits).parse(input)
        #expect(document.components.count == 100_000)
        #expect(document.diagnostics.isEmpty)
    }

    @Test("deep nesting is refused at the depth cap")
    func deepNesting() throws {
        let input = repeated("BEGIN:X\n", toAtLeast: 8 * 50_000)
        let error = #expect(throws: ICalendarError.self) { try ICalendarParser().parse(input) }
        #expect(error?.code == .nestingTooDeep)
        #expect(error?.line == 17)
    }

    @Test("nesting up to the cap is read, each unclosed component reported once")
    func nestingAtCap() throws {
        let input = repeated("BEGIN:X\n", toAtLeast: 8 * 16)
        let document = try ICalendarParser().parse(input)
        #expect(document.diagnostics.count == 16)
        #expect(document.diagnostics.allSatisfy { $0.code == .missingEnd })
        var depth = 0
        var component = document.components.first
        while let current = component {
            depth += 1
            component = current.components.first
        }
        #expect(depth == 16)
    }

    @Test("a logical line longer than the cap is refused, also when built from folds")
    func lineLength() throws {
        let limits = ICalendarLimits(maxLineLength: 1_000)
        let long = Array("BEGIN:VEVENT\nX:".utf8) + [UInt8](repeating: 0x61, count: 1_001) + Array("\nEND:VEVENT\n".utf8)
        #expect(throws: ICalendarError.self) { try ICalendarParser(limits: limits).parse(long) }
        let folded = Array("BEGIN:VEVENT\nX:a".utf8) + repeated("\n aaaaaaaaa", toAtLeast: 2_000)
        let error = #expect(throws: ICalendarError.self) { try ICalendarParser(limits: limits).parse(folded) }
        #expect(error?.code == .lineTooLong)
        #expect(error?.line == 2)
    }

    @Test("properties per component and in total are capped")
    func properties() throws {
        let input = Array("BEGIN:VEVENT\n".utf8) + repeated("X:1\n", toAtLeast: 4 * 1_001)
        let error = #expect(throws: ICalendarError.self) { try ICalendarParser().parse(input) }
        #expect(error?.code == .tooManyProperties)
        let spread = repeated("BEGIN:A\nX:1\nX:1\nEND:A\n", toAtLeast: 22 * 60)
        let total = ICalendarLimits(maxProperties: 100)
        let totalError = #expect(throws: ICalendarError.self) { try ICalendarParser(limits: total).parse(spread) }
        #expect(totalError?.code == .tooManyProperties)
    }

    @Test("parameters per property and in total are capped")
    func parameters() throws {
        let input = Array("BEGIN:VEVENT\nX".utf8) + repeated(";P=1", toAtLeast: 4 * 65) + Array(":v\n".utf8)
        let error = #expect(throws: ICalendarError.self) { try ICalendarParser().parse(input) }
        #expect(error?.code == .tooManyParameters)
        let spread = Array("BEGIN:VEVENT\n".utf8) + repeated("X;P=1;Q=2:v\n", toAtLeast: 12 * 60)
        let total = ICalendarLimits(maxParameters: 100)
        let totalError = #expect(throws: ICalendarError.self) { try ICalendarParser(limits: total).parse(spread) }
        #expect(totalError?.code == .tooManyParameters)
    }

    @Test("diagnostics are capped: an input of nothing but broken lines is refused")
    func diagnostics() throws {
        let input = repeated("no colon here\n", toAtLeast: 14 * 200)
        let error = #expect(throws: ICalendarError.self) { try ICalendarParser().parse(input) }
        #expect(error?.code == .tooManyDiagnostics)
        #expect(error?.line == 101)
    }

    @Test("adversarial 1 MiB inputs are refused or parsed, never trapped", arguments: [
        "\n", " ", "\r", "\"", ";", ":", "\\", "^", "\u{FF}", "A", "BEGIN:X\n", "END:X\n", "X;P=\"", "X;P=\"a\",",
        "X:\\\\\\", " \n", "\n ", "BEGIN:A\nEND:B\n", "BEGIN:VCALENDAR\nX:1\n", "X;P=^^^n^'", "\u{EF}\u{BB}",
    ])
    func adversarial(unit: String) throws {
        let input = repeated(unit, toAtLeast: 1 << 20).prefix(1 << 20)
        do {
            let document = try ICalendarParser().parse(Array(input))
            #expect(document.diagnostics.count <= 100 + 16)
        } catch {
            #expect(!error.message.isEmpty)
        }
    }

    @Test("the generated benchmark calendar is about 1 MiB, 2,000 events, read without a diagnostic")
    func sample() throws {
        let bytes = ICalendarSample.calendar(events: 2_000)
        #expect(bytes.count > 900_000 && bytes.count <= 1 << 20)
        #expect(bytes == ICalendarSample.calendar(events: 2_000))
        let document = try ICalendarParser().parse(bytes)
        #expect(document.diagnostics.isEmpty)
        let events = try #require(document.calendars.first).components
        #expect(events.count == 2_000)
        let first = try #require(events.first)
        #expect(first.property("SUMMARY")?.value == "Plan 0, café ☕; review")
        #expect(first.property("URL")?.value.hasSuffix("?a=1;b=2,3") == true)
        #expect(first.property("ATTENDEE")?.parameter("CN") == "Ruiz, Ana; Ops")
        #expect(first.property("DESCRIPTION")?.value.hasSuffix("\nRückmeldung bis Freitag; danke!") == true)
    }
}

@Suite("Real-world exports")
struct RealWorldTests {
    static let shareLink =
        "https://links.ordentus.example/s/AQAAAAEx7vQ2bN3kq0sVfGZ1cR9aWmT4AAAAAGkYbYAAAAABAA8cXq2Lw1nZ3x0Yh9Yk7bqQ_vM4UeGf2oTkP0rS5s"

    @Test("Google Calendar export")
    func google() throws {
        let document = try parseFixture("google-export")
        #expect(document.diagnostics.isEmpty)
        let calendar = try #require(document.calendars.first)
        #expect(calendar.property("X-WR-CALNAME")?.value == "Ordentus Team")
        #expect(calendar.components.map(\.name) == ["VTIMEZONE", "VEVENT"])
        #expect(calendar.components.first?.components.map(\.name) == ["DAYLIGHT", "STANDARD"])
        let event = try first("VEVENT", in: document)
        #expect(event.property("URL")?.value == Self.shareLink)
        #expect(event.property("DTSTART")?.parameter("TZID") == "Europe/Berlin")
        #expect(event.properties(named: "ATTENDEE").first?.parameter("CN") == "Ruiz, Ana")
        #expect(event.property("DESCRIPTION")?.value.contains("todos and links\n2. Shared plan: \(Self.shareLink)\n") == true)
        #expect(event.property("LOCATION")?.value == "Room 4, HQ")
        #expect(event.components.map(\.name) == ["VALARM"])
    }

    @Test("Outlook export (folds split UTF-8 characters)")
    func outlook() throws {
        let document = try parseFixture("outlook-export")
        #expect(document.diagnostics.isEmpty)
        #expect(document.calendars.first?.property("METHOD")?.value == "REQUEST")
        let event = try first("VEVENT", in: document)
        #expect(event.property("ORGANIZER")?.parameter("CN") == "Müller, Jörg")
        #expect(event.property("SUMMARY")?.value == "Quartalsplanung – Übersicht")
        #expect(event.property("DESCRIPTION")?.value.hasSuffix("Viele Grüße\nJörg\n") == true)
        #expect(event.property("DTSTART")?.parameter("TZID") == "W. Europe Standard Time")
        #expect(event.property("X-MICROSOFT-CDO-BUSYSTATUS")?.value == "TENTATIVE")
        #expect(event.property("URL")?.value == Self.shareLink)
        #expect(event.property("UID")?.value.count == 112)
    }

    @Test("Apple Calendar export")
    func apple() throws {
        let document = try parseFixture("apple-export")
        #expect(document.diagnostics.isEmpty)
        let event = try first("VEVENT", in: document)
        #expect(event.property("URL")?.value == Self.shareLink)
        #expect(event.property("URL")?.parameter("VALUE") == "URI")
        let location = try #require(event.property("X-APPLE-STRUCTURED-LOCATION"))
        #expect(location.value == "geo:37.794000,-122.395000")
        #expect(location.parameter("X-TITLE") == "Ordentus HQ")
        #expect(location.parameter("X-ADDRESS") == "1 Market St\\\\nSan Francisco CA 94105\\\\nUnited States")
        #expect(event.property("LOCATION")?.value == "Ordentus HQ\n1 Market St, San Francisco CA 94105, United States")
        #expect(event.components.first?.property("ATTACH")?.value == "Chord")
    }
}
