import Foundation
import ICalendar
import LinkRouter
import Testing

@Suite("Calendar items resolved with the manifests' ics rules")
struct CalendarResolverTests {
    static let token = "AQAAAAEx7vQ2bN3kq0sVfGZ1cR9aWmT4AAAAAGkYbYAAAAABAA8cXq2Lw1nZ3x0Yh9Yk7bqQ_vM4UeGf2oTkP0rS5s"

    func resolve(_ text: String, state: String? = "signedIn", links: (ShareLinkQuery) -> LinkStatus = { _ in .unknown })
        throws -> CalendarReport
    {
        let router = try Router(manifests: ManifestLoader.load(paths: [Examples.path("ordentus")]))
        return try CalendarResolver(router: router).resolve(Array(text.utf8), state: state, links: links)
    }

    @Test("a VEVENT opens Calendar/EventDetail with its rule's params; DTSTART keeps its TZID")
    func event() throws {
        let report = try resolve("""
            BEGIN:VCALENDAR\r
            METHOD:PUBLISH\r
            BEGIN:VEVENT\r
            UID:ev-1\r
            SUMMARY:Plan\\, review\r
            DTSTART;TZID=Europe/Berlin:20261203T100000\r
            RECURRENCE-ID;TZID=Europe/Berlin:20261203T100000\r
            X-ORDENTUS-ORDER:42\r
            END:VEVENT\r
            END:VCALENDAR\r

            """)
        #expect(report.diagnostics.isEmpty)
        let item = try #require(report.items.first)
        #expect(item.component == "VEVENT")
        #expect(item.uid == "ev-1")
        #expect(item.startTZID == "Europe/Berlin")
        #expect(item.recurrenceID == "20261203T100000")
        #expect(item.cancelled == false)
        let resolution = try #require(item.resolution)
        #expect(resolution.outcome == .route)
        #expect(resolution.route == "Calendar/EventDetail")
        #expect(resolution.params == ["eventId": "ev-1", "start": "20261203T100000", "title": "Plan, review", "orderId": "42"])
        #expect(resolution.tab == "calendar")
        #expect(item.diagnostics.isEmpty)
    }

    @Test("a URL that is one of our share links is resolved like any link")
    func followsShareLink() throws {
        let report = try resolve("""
            BEGIN:VCALENDAR
            BEGIN:VTODO
            UID:todo-1
            SUMMARY:Buy milk
            URL:https://links.ordentus.example/s/\(Self.token)
            END:VTODO
            END:VCALENDAR

            """
        ) { query in
            #expect(query.token == Self.token)
            return .active(ShareLinkTarget(linkID: "00112233445566778899aabbccddeeff", route: "Tasks/GoalDetail",
                                           params: ["goalId": "g-7"], expiresAt: Date(timeIntervalSince1970: 2_000_000_000)))
        }
        let resolution = try #require(report.items.first?.resolution)
        #expect(resolution.route == "Tasks/GoalDetail")
        #expect(resolution.params["goalId"] == "g-7")
        #expect(resolution.link?.status == "active")
    }

    @Test("a revoked share link in the URL resolves as unavailable")
    func revokedShareLink() throws {
        let report = try resolve("BEGIN:VEVENT\nUID:x\nURL:https://links.ordentus.example/s/\(Self.token)\nEND:VEVENT\n") { _ in
            .unavailable(linkID: "00112233445566778899aabbccddeeff", reason: .revoked)
        }
        #expect(report.items.first?.resolution?.outcome == .linkUnavailable)
    }

    @Test("a foreign URL is not followed: the rule's route is used")
    func foreignURL() throws {
        let report = try resolve("BEGIN:VEVENT\nUID:x\nURL:https://example.com/s/abc\nEND:VEVENT\n")
        #expect(report.items.first?.resolution?.route == "Calendar/EventDetail")
        #expect(report.items.first?.url == "https://example.com/s/abc")
    }

    @Test("METHOD:CANCEL and STATUS:CANCELLED are reported as cancelled")
    func cancelled() throws {
        let report = try resolve("""
            BEGIN:VCALENDAR
            METHOD:CANCEL
            BEGIN:VEVENT
            UID:a
            END:VEVENT
            END:VCALENDAR
            BEGIN:VCALENDAR
            BEGIN:VEVENT
            UID:b
            STATUS:CANCELLED
            END:VEVENT
            BEGIN:VEVENT
            UID:c
            END:VEVENT
            END:VCALENDAR

            """)
        #expect(report.items.map(\.cancelled) == [true, true, false])
        #expect(report.items.first?.method == "CANCEL")
    }

    @Test("items without a rule, missing properties and parser problems are diagnostics, not failures")
    func diagnostics() throws {
        let report = try resolve("""
            BEGIN:VCALENDAR
            BEGIN:VJOURNAL
            UID:j
            END:VJOURNAL
            BEGIN:VEVENT
            no colon
            END:VEVENT
            END:VCALENDAR

            """)
        #expect(report.diagnostics.map(\.code) == ["missingColon"])
        #expect(report.items.first?.resolution == nil)
        #expect(report.items.first?.diagnostics.map(\.code) == ["noRule"])
        #expect(report.items.last?.diagnostics.map(\.code).contains("noUID") == true)
        #expect(report.items.last?.diagnostics.map(\.code).contains("missingProperty") == true)
    }

    @Test("a signed-out caller gets the manifest's intercept")
    func signedOut() throws {
        let report = try resolve("BEGIN:VEVENT\nUID:x\nEND:VEVENT\n", state: nil)
        let resolution = try #require(report.items.first?.resolution)
        #expect(resolution.outcome == .intercept)
        #expect(resolution.route == "Onboarding/Credentials")
        #expect(resolution.intercept?.continuation?.route == "Calendar/EventDetail")
        #expect(resolution.intercept?.continuation?.params == ["eventId": "x"])
    }

    @Test("a file over the cap cannot be read as a calendar")
    func tooLarge() throws {
        let router = try Router(manifests: ManifestLoader.load(paths: [Examples.path("ordentus")]))
        let resolver = CalendarResolver(router: router, parser: ICalendarParser(limits: ICalendarLimits(maxBytes: 10)))
        #expect(throws: ICalendarError.self) { try resolver.resolve(Array("BEGIN:VEVENT\nEND:VEVENT\n".utf8), state: nil) }
    }
}
