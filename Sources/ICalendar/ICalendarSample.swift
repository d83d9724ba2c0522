/// Deterministic sample calendars, used by the benchmark, the libical comparison (`linkd-ics-sample`-style
/// generators must print exactly these bytes) and the tests.
public enum ICalendarSample {
    /// A calendar of `events` VEVENTs with folded lines, TEXT escapes, quoted parameters, URLs and a VALARM each;
    /// about 2,000 events make 1 MiB. The same `events` always gives the same bytes.
    public static func calendar(events: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(events * 520 + 512)
        func line(_ text: String) {
            // Fold at 75 octets, as RFC 5545 asks, even inside a multi-byte character.
            let bytes = Array(text.utf8)
            var start = 0
            var width = 75
            while bytes.count - start > width {
                out.append(contentsOf: bytes[start..<(start + width)])
                out.append(contentsOf: [0x0D, 0x0A, 0x20])
                start += width
                width = 74
            }
            out.append(contentsOf: bytes[start...])
            out.append(contentsOf: [0x0D, 0x0A])
        }
        line("BEGIN:VCALENDAR")
        line("VERSION:2.0")
        line("PRODID:-//linkd//ICalendarSample//EN")
        line("METHOD:PUBLISH")
        line("X-WR-CALNAME:Ordentus sample")
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return seed >> 33
        }
        for index in 0..<events {
            let day = 1 + Int(next() % 28)
            let hour = 8 + Int(next() % 10)
            let token = String(next(), radix: 36) + String(next(), radix: 36) + String(next(), radix: 36)
            line("BEGIN:VEVENT")
            line("UID:ev-\(index)-\(next() % 1000)@ordentus.example")
            line("DTSTART;TZID=Europe/Berlin:202612\(day < 10 ? "0" : "")\(day)T\(hour < 10 ? "0" : "")\(hour)0000")
            line("DURATION:PT1H")
            line("SUMMARY:Plan \(index)\\, café ☕\\; review")
            line(
                "DESCRIPTION:Agenda:\\n1. Goals\\, todos\\n2. https://links.ordentus.example/s/AQAAAAE\(token)\\n"
                    + "Rückmeldung bis Freitag\\; danke!")
            line(
                "ATTENDEE;PARTSTAT=ACCEPTED;CN=\"Ruiz, Ana; Ops\":mailto:ana\(index % 97)@ordentus.example")
            line("URL:https://links.ordentus.example/s/AQAAAAE\(token)?a=1;b=2,3")
            line("X-ORDENTUS-ORDER:\(next() % 100_000)")
            if index % 4 == 0 { line("RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10") }
            if index % 2 == 0 {
                line("BEGIN:VALARM")
                line("ACTION:DISPLAY")
                line("TRIGGER:-PT15M")
                line("END:VALARM")
            }
            line("END:VEVENT")
        }
        line("END:VCALENDAR")
        return out
    }
}
