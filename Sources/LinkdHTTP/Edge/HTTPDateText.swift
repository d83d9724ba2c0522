#if canImport(Glibc)
import Glibc
#endif
import UTCTime

/// The `Date` header value (IMF-fixdate, RFC 9110 5.6.7), formatted at most once a second by its owner.
package struct HTTPDateText {
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
        UTCDateTime(secondsSince1970: seconds).httpDate
    }
}
