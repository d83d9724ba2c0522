import Benchmark

let benchmarks: @Sendable () -> Void = {
    Benchmark("TokenSigning placeholder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(1 + 1) }
    }
}
