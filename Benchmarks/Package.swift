// swift-tools-version:6.1
// Benchmarks live in their own package so users of linkd never resolve package-benchmark.
// Run: cd Benchmarks && swift package --disable-sandbox benchmark   (or `make bench` at the top).
import PackageDescription

let package = Package(
    name: "linkd-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "linkd", path: "../"),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "TokenSigningBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "TokenSigning", package: "linkd"),
            ],
            path: "Benchmarks/TokenSigningBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "RouterBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "LinkRouter", package: "linkd"),
            ],
            path: "Benchmarks/RouterBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "ICalendarBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "ICalendar", package: "linkd"),
            ],
            path: "Benchmarks/ICalendarBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ]
)
