import Benchmark

let benchmarks: @Sendable () -> Void = {
    Benchmark("Router placeholder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(1 + 1) }
    }
}
