import Testing
@testable import ICalendar
