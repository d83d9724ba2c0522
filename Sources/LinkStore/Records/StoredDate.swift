import Foundation
import GRDB
import UTCTime

/// Dates as the SQLite backend keeps them: text, `yyyy-MM-dd HH:mm:ss.SSS` in UTC — GRDB's own format, so rows read
/// alike whoever wrote them. Written and read with `UTCDateTime` rather than GRDB's `DateFormatter` and Foundation
/// `Calendar`, whose first use maps megabytes of ICU data into the daemon.
enum StoredDate {
    /// `date` as stored text, to the millisecond.
    static func text(_ date: Date) -> String {
        UTCDateTime(date).description
    }

    /// The date a stored value names: GRDB's text forms (`yyyy-MM-dd[ HH:mm[:ss[.SSS]]]`), or nil.
    static func date(_ value: DatabaseValue) -> Date? {
        String.fromDatabaseValue(value).flatMap(UTCDateTime.storageText)
    }

    /// How records write their `Date` properties.
    static let encoding = DatabaseDateEncodingStrategy.custom { text($0) }
    /// How records read their `Date` properties.
    static let decoding = DatabaseDateDecodingStrategy.custom { date($0) }
}
