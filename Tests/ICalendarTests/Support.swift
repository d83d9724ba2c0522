import Foundation
import Testing

@testable import ICalendar

/// Reads a fixture file of this test target.
func fixture(_ name: String) throws -> [UInt8] {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: "ics", subdirectory: "Fixtures"))
    return [UInt8](try Data(contentsOf: url))
}

/// Parses a fixture with the default limits.
func parseFixture(_ name: String) throws -> ICalendarDocument {
    try ICalendarParser().parse(try fixture(name))
}

/// Every component of the document, depth first.
func allComponents(_ document: ICalendarDocument) -> [ICalendarComponent] {
    var out: [ICalendarComponent] = []
    func walk(_ c: ICalendarComponent) {
        out.append(c)
        c.components.forEach(walk)
    }
    document.components.forEach(walk)
    return out
}

/// The first component with this name, depth first.
func first(_ name: String, in document: ICalendarDocument) throws -> ICalendarComponent {
    try #require(allComponents(document).first { $0.name == name })
}
