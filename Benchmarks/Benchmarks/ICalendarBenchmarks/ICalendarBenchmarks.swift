import Benchmark

let benchmarks: @Sendable () -> Void = {
    Benchmark("ICalendar placeholder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(1 + 1) }
    }
}
