extension UTCDateTime {
    /// The fields of the moment `seconds` after 1970-01-01 UTC (whole seconds; no `Date`, no rounding).
    public init(secondsSince1970 seconds: Int) {
        let (days, secondOfDay) = Self.floorDivision(Int64(seconds), 86_400)
        (year, month, day) = Self.civil(fromDays: days)
        hour = Int(secondOfDay) / 3600
        minute = Int(secondOfDay) / 60 % 60
        second = Int(secondOfDay) % 60
        millisecond = 0
    }

    /// The day of the week, 0 (Sunday) to 6 (Saturday).
    public var weekday: Int {
        let days = Self.days(fromCivil: year, month, day)
        return Int((days % 7 + 11) % 7)  // 1970-01-01 was a Thursday (4)
    }

    /// The HTTP date form (RFC 9110 §5.6.7, IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`.
    public var httpDate: String {
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(weekdays[weekday]), \(Self.padded(day, 2)) \(months[month - 1]) \(Self.padded(year, 4)) "
            + "\(Self.padded(hour, 2)):\(Self.padded(minute, 2)):\(Self.padded(second, 2)) GMT"
    }
}
