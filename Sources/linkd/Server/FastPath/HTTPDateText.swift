#if canImport(Glibc)
import Glibc
#endif

/// The `Date` header value (IMF-fixdate, RFC 9110 5.6.7), formatted at most once a second by its owner.
struct HTTPDateText {
    private var second = -1
    private var text = ""

    /// The current time as `Sun, 06 Nov 1994 08:49:37 GMT`.
    mutating func current() -> String {
        let now = time(nil)
        if now != second {
            second = now
            text = Self.format(now)
        }
        return text
    }

    /// Formats seconds since 1970 as an IMF-fixdate.
    static func format(_ seconds: Int) -> String {
        var clock = time_t(seconds)
        var parts = tm()
        gmtime_r(&clock, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
