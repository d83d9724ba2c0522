import Benchmark
import Foundation
import ICalendar

/// Where the 1 MiB sample is written so `scripts/ics-bench.sh` can time libical on the very same bytes.
let samplePath = ProcessInfo.processInfo.environment["LINKD_ICS_SAMPLE"] ?? "/tmp/linkd-ics-sample.ics"

/// Repeats `text` up to exactly `bytes` bytes.
func repeated(_ text: String, bytes: Int) -> [UInt8] {
    let unit = Array(text.utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes + unit.count)
    while out.count < bytes { out.append(contentsOf: unit) }
    return Array(out.prefix(bytes))
}

/// Crafted 1 MiB inputs aimed at the parser's weak spots; each must stay under 50 ms and 32 MiB.
let adversarial: [(String, [UInt8])] = [
    ("tiny properties", Array("BEGIN:VEVENT\n".utf8) + repeated("X:\n", bytes: (1 << 20) - 13)),
    ("tiny components", repeated("BEGIN:A\nEND:A\n", bytes: 1 << 20)),
    ("one huge folded line", Array("BEGIN:VEVENT\nX:".utf8) + repeated("\n a", bytes: (1 << 20) - 16)),
    ("many parameters", Array("BEGIN:VEVENT\n".utf8) + repeated("X;P=\"a,b\";Q=^^^n:v\n", bytes: (1 << 20) - 13)),
    ("escapes", Array("BEGIN:VEVENT\nDESCRIPTION:".utf8) + repeated("\\n\\,\\;\\\\", bytes: (1 << 20) - 26)),
    ("broken lines", repeated("no colon\n", bytes: 1 << 20)),
    ("invalid UTF-8", Array("BEGIN:VEVENT\nX:".utf8) + [UInt8](repeating: 0xFF, count: (1 << 20) - 15)),
    ("blank lines", [UInt8](repeating: 0x0A, count: 1 << 20)),
]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(5),
        maxIterations: 500
    )
    let sample = ICalendarSample.calendar(events: 2_000)
    FileManager.default.createFile(atPath: samplePath, contents: Data(sample))
    let parser = ICalendarParser()

    Benchmark("ICalendar parse sample (\(sample.count) bytes, 2,000 events)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try parser.parse(sample))
        }
    }

    // With the default caps: each input is read until it ends or a cap refuses it.
    for (name, input) in adversarial {
        Benchmark("ICalendar adversarial 1 MiB: \(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try? parser.parse(input))
            }
        }
    }
    // The 100,000 tiny components, read in full with the component cap raised to allow them.
    let hundredThousand = repeated("BEGIN:A\nEND:A\n", bytes: 100_000 * 14)
    Benchmark("ICalendar 100,000 components (1.4 MB, caps raised)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? ICalendarParser(limits: ICalendarLimits(maxBytes: 2 << 20, maxComponents: 100_000)).parse(hundredThousand))
        }
    }
}
