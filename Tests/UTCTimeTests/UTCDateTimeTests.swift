import Foundation
import Testing
import UTCTime

/// `UTCDateTime` against Foundation's own ICU-backed calendar and formatters (which the daemon avoids at run
/// time, and the tests use as the reference).
@Suite("UTCDateTime")
struct UTCDateTimeTests {
    /// GRDB's storage formatter, configured as GRDB configures it: the text the store has always written.
    static let grdbFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return formatter
    }()

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }()

    /// Dates from 1600 to 9999 (Foundation's calendar is Julian before 1582), each at a whole millisecond, and the
    /// edges around leap days and epochs.
    static func sampleDates(count: Int) -> [Date] {
        var generator = SystemRandomNumberGenerator()
        let first = -11_676_096_000.0, last = 253_402_300_799.0  // 1600-01-01, 9999-12-31T23:59:59Z
        var dates = (0..<count).map { _ in
            Date(timeIntervalSince1970: (Double.random(in: first...last, using: &generator) * 1000).rounded(.down) / 1000)
        }
        for text in ["1970-01-01 00:00:00.000", "1969-12-31 23:59:59.999", "2000-02-29 12:00:00.000", "1900-03-01 00:00:00.000",
                     "2024-02-29 23:59:59.999", "2100-02-28 00:00:00.001", "2026-11-24 13:05:09.123", "1600-02-29 00:00:00.000"] {
            dates.append(grdbFormatter.date(from: text)!)
        }
        return dates
    }

    @Test("the fields of a date are the Gregorian calendar's, in UTC, from 1600 to 9999; whole milliseconds round-trip")
    func fieldsMatchTheCalendar() {
        for date in Self.sampleDates(count: 20_000) {
            let fields = UTCDateTime(date)
            let reference = Self.calendar.dateComponents([.era, .year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
            #expect(reference.era == 1)
            #expect([fields.year, fields.month, fields.day, fields.hour, fields.minute, fields.second]
                    == [reference.year, reference.month, reference.day, reference.hour, reference.minute, reference.second],
                    "\(date.timeIntervalSince1970)")
            #expect(fields.date == date, "round trip of \(date.timeIntervalSince1970)")
        }
    }

    @Test("the stored text is byte for byte what GRDB's DateFormatter wrote, and reads back to the same date")
    func storageTextMatchesGRDB() {
        for date in Self.sampleDates(count: 20_000) {
            let text = UTCDateTime(date).description
            #expect(text == Self.grdbFormatter.string(from: date))
            #expect(UTCDateTime.storageText(text) == date)
        }
        // Sub-millisecond parts are rounded to the nearest millisecond, as the formatter rounds them.
        for fraction in [0.123_9, 0.123_2, 0.999_7] {
            let precise = Date(timeIntervalSince1970: 1_764_000_000 + fraction)
            #expect(UTCDateTime(precise).description == Self.grdbFormatter.string(from: precise))
        }
        #expect(UTCDateTime(Date(timeIntervalSince1970: 1_764_000_000.123_9)).millisecond == 124)
    }

    @Test("stored text: GRDB's shorter forms read; anything else is nil")
    func storageTextForms() {
        let day = UTCDateTime(year: 2026, month: 11, day: 24)!.date
        #expect(UTCDateTime.storageText("2026-11-24") == day)
        #expect(UTCDateTime.storageText("2026-11-24 13:05") == day.addingTimeInterval(13 * 3600 + 5 * 60))
        #expect(UTCDateTime.storageText("2026-11-24T13:05:09") == day.addingTimeInterval(13 * 3600 + 5 * 60 + 9))
        #expect(UTCDateTime.storageText("2026-11-24 13:05:09.5") == day.addingTimeInterval(13 * 3600 + 5 * 60 + 9.5))
        #expect(UTCDateTime.storageText("2026-11-24 13:05:09.123456")
                == UTCDateTime(year: 2026, month: 11, day: 24, hour: 13, minute: 5, second: 9, millisecond: 123)!.date)
        for bad in ["", "2026-11-24 ", "2026-13-01", "2026-02-29", "2026-11-31", "2026-11-24 24:00", "2026-11-24 13:60",
                    "2026-11-24 13:05:09.", "2026-11-24x", "26-11-24", "2026-11-24 13:05:09Z", "１９７０-01-01"] {
            #expect(UTCDateTime.storageText(bad) == nil, "\(bad)")
        }
    }

    @Test("RFC 3339 date-times read as ISO8601DateFormatter reads them; offsets and fractions included")
    func rfc3339() {
        let reference = ISO8601DateFormatter()
        for date in Self.sampleDates(count: 2_000) {
            let text = reference.string(from: date)
            #expect(UTCDateTime.rfc3339(text) == reference.date(from: text), "\(text)")
        }
        let base = UTCDateTime(year: 2026, month: 9, day: 21, hour: 10)!.date
        #expect(UTCDateTime.rfc3339("2026-09-21T10:00:00Z") == base)
        #expect(UTCDateTime.rfc3339("2026-09-21t10:00:00z") == base)
        #expect(UTCDateTime.rfc3339("2026-09-21T12:00:00+02:00") == base)
        #expect(UTCDateTime.rfc3339("2026-09-21T05:30:00-04:30") == base)
        #expect(UTCDateTime.rfc3339("2026-09-21T10:00:00.250Z") == base.addingTimeInterval(0.25))
        for bad in ["", "2026-09-21", "2026-09-21T10:00Z", "2026-09-21T10:00:00", "2026-09-21 10:00:00Z", "2026-09-21T10:00:00+0200",
                    "2026-09-21T10:00:00+24:00", "2026-02-30T10:00:00Z", "2026-09-21T10:00:00Zjunk", "2026-09-21T10:00:00.Z"] {
            #expect(UTCDateTime.rfc3339(bad) == nil, "\(bad)")
        }
    }

    @Test("fields that name no day are refused")
    func invalidFields() {
        #expect(UTCDateTime(year: 2024, month: 2, day: 29) != nil)
        #expect(UTCDateTime(year: 2023, month: 2, day: 29) == nil)
        #expect(UTCDateTime(year: 1900, month: 2, day: 29) == nil)
        #expect(UTCDateTime(year: 2000, month: 2, day: 29) != nil)
        #expect(UTCDateTime(year: 0, month: 1, day: 1) == nil)
        #expect(UTCDateTime(year: 2026, month: 4, day: 31) == nil)
        #expect(UTCDateTime(year: 2026, month: 1, day: 1, hour: 24) == nil)
        #expect(UTCDateTime(year: 2026, month: 1, day: 1, millisecond: 1000) == nil)
    }

    @Test("HTTP dates are IMF-fixdates, as Foundation's formatter writes them (RFC 9110 §5.6.7)")
    func httpDates() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(UTCDateTime(secondsSince1970: 784_111_777).httpDate == "Sun, 06 Nov 1994 08:49:37 GMT")
        var generator = SystemRandomNumberGenerator()
        for seconds in [0, -1, -86_400 * 10, 951_782_400, 4_102_444_800] + (0..<5000).map({ _ in Int.random(in: -2_000_000_000...8_000_000_000, using: &generator) }) {
            let expected = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            #expect(UTCDateTime(secondsSince1970: seconds).httpDate == expected, "\(seconds)")
        }
    }
}
