public import Foundation

/// A moment as UTC calendar fields of the proleptic Gregorian calendar, to the millisecond, computed with integer
/// arithmetic (Howard Hinnant's `days_from_civil` / `civil_from_days`). Foundation's calendar agrees from
/// 1582-10-15 on (before it, it counts Julian days); linkd's dates are all after 1970.
///
/// Why not `Calendar`: on Linux, the first use of Foundation's Gregorian calendar asks ICU for the current time
/// zone and the locale's first weekday, and `DateFormatter` / `ISO8601DateFormatter` are ICU's formatters; either
/// maps megabytes of ICU data into the process for what is a few divisions. linkd's dates are all UTC.
public struct UTCDateTime: Sendable, Equatable, CustomStringConvertible {
    /// The year (1–9999 for dates made from fields; any for dates made from a `Date`).
    public var year: Int
    /// The month, 1–12.
    public var month: Int
    /// The day of the month, 1–31.
    public var day: Int
    /// The hour, 0–23.
    public var hour: Int
    /// The minute, 0–59.
    public var minute: Int
    /// The second, 0–59.
    public var second: Int
    /// The millisecond, 0–999.
    public var millisecond: Int

    /// The fields of `date` in UTC, to the nearest millisecond (as ICU's `DateFormatter` writes them, so that a
    /// whole millisecond a `Double` holds as `.402999…` reads `.403`).
    public init(_ date: Date) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (days, millisecondOfDay) = Self.floorDivision(milliseconds, 86_400_000)
        (year, month, day) = Self.civil(fromDays: days)
        let inDay = Int(millisecondOfDay)
        hour = inDay / 3_600_000
        minute = inDay / 60_000 % 60
        second = inDay / 1000 % 60
        millisecond = inDay % 1000
    }

    /// Fields that name a real moment (the day exists in its month, years 1–9999), or nil.
    public init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, millisecond: Int = 0) {
        guard (1...9999).contains(year), (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second), (0...999).contains(millisecond)
        else { return nil }
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second, self.millisecond) = (hour, minute, second, millisecond)
    }

    /// The moment these fields name.
    public var date: Date {
        let days = Self.days(fromCivil: year, month, day)
        let milliseconds = ((days * 24 + Int64(hour)) * 60 + Int64(minute)) * 60_000 + Int64(second) * 1000 + Int64(millisecond)
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// `yyyy-MM-dd HH:mm:ss.SSS`.
    public var description: String {
        "\(Self.padded(year, 4))-\(Self.padded(month, 2))-\(Self.padded(day, 2)) "
            + "\(Self.padded(hour, 2)):\(Self.padded(minute, 2)):\(Self.padded(second, 2)).\(Self.padded(millisecond, 3))"
    }

    /// `value` in decimal, zero-padded to `width` digits.
    public static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.utf8.count >= width ? digits : String(repeating: "0", count: width - digits.utf8.count) + digits
    }

    /// How many days `month` has in `year`.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a civil date.
    static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * Int64(month > 2 ? month - 3 : month + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date `days` after 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    static func floorDivision(_ a: Int64, _ b: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = a % b
        return remainder < 0 ? (a / b - 1, remainder + b) : (a / b, remainder)
    }
}

extension UTCDateTime {
    /// Reads an RFC 3339 date-time (`2026-11-24T10:00:00Z`, `…T10:00:00.250+01:00`; `T` or `t`, `Z` or `z` or an
    /// offset; a fraction of any length, kept to the millisecond). Nil for anything else.
    public static func rfc3339(_ text: String) -> Date? {
        var reader = DigitReader(text)
        guard let year = reader.number(4), reader.take("-"), let month = reader.number(2), reader.take("-"),
            let day = reader.number(2), reader.take("T") || reader.take("t"), let hour = reader.number(2), reader.take(":"),
            let minute = reader.number(2), reader.take(":"), let second = reader.number(2)
        else { return nil }
        let millisecond = reader.take(".") ? reader.fractionMilliseconds() : 0
        guard let millisecond else { return nil }
        var offsetMinutes = 0
        if reader.take("Z") || reader.take("z") {
            offsetMinutes = 0
        } else if let sign = reader.sign(), let offsetHours = reader.number(2), reader.take(":"), let minutes = reader.number(2),
            offsetHours <= 23, minutes <= 59
        {
            offsetMinutes = sign * (offsetHours * 60 + minutes)
        } else {
            return nil
        }
        guard reader.atEnd,
            let fields = UTCDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                                     millisecond: millisecond)
        else { return nil }
        return fields.date.addingTimeInterval(Double(-offsetMinutes * 60))
    }

    /// Reads `yyyy-MM-dd`, optionally followed by ` HH:mm`, `:ss` and `.SSS…` (a space or `T` between date and time):
    /// the text forms SQLite and GRDB store dates in. Nil for anything else.
    public static func storageText(_ text: String) -> Date? {
        var reader = DigitReader(text)
        guard let year = reader.number(4), reader.take("-"), let month = reader.number(2), reader.take("-"),
            let day = reader.number(2)
        else { return nil }
        var (hour, minute, second, millisecond) = (0, 0, 0, 0)
        if reader.take(" ") || reader.take("T") {
            guard let h = reader.number(2), reader.take(":"), let m = reader.number(2) else { return nil }
            (hour, minute) = (h, m)
            if reader.take(":") {
                guard let s = reader.number(2) else { return nil }
                second = s
                if reader.take(".") {
                    guard let fraction = reader.fractionMilliseconds() else { return nil }
                    millisecond = fraction
                }
            }
        }
        guard reader.atEnd else { return nil }
        return UTCDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                           millisecond: millisecond)?.date
    }
}

/// Reads ASCII digits and separators from the front of a string.
private struct DigitReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var atEnd: Bool { index == bytes.count }

    /// Exactly `count` digits as a number.
    mutating func number(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + count] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        index += count
        return value
    }

    /// Consumes `character` if it comes next.
    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
        index += 1
        return true
    }

    /// `+` → 1, `-` → -1, consumed; nil otherwise.
    mutating func sign() -> Int? {
        if take("+") { return 1 }
        if take("-") { return -1 }
        return nil
    }

    /// One or more digits of a fraction of a second, as milliseconds (digits past the third are dropped).
    mutating func fractionMilliseconds() -> Int? {
        var milliseconds = 0
        var digits = 0
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
            if digits < 3 { milliseconds = milliseconds * 10 + Int(bytes[index] - 0x30) }
            digits += 1
            index += 1
        }
        guard digits > 0 else { return nil }
        for _ in digits..<max(digits, 3) { milliseconds *= 10 }
        return milliseconds
    }
}
