import Benchmark
import Foundation
import LinkRouter

/// The Handz example manifest (path relative to the Benchmarks package).
private func handzRouter() -> Router? {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../examples/handz.yaml").standardized.path
    return try? Router(manifests: [ManifestLoader.load(path: path)])
}

/// A generated manifest of `count` routes: literals, typed params and a nested tail per route.
private func generatedRouter(count: Int) -> Router? {
    var yaml = """
    app: gen
    name: Generated
    schemes: [gen]
    hosts: [links.gen.example]
    states: [in]
    unauthenticatedState: in
    tabs:
      - { id: main, root: R0 }
    routes:

    """
    for index in 0..<count {
        yaml += "  - { id: R\(index), tab: main, presentation: push, states: [in], patterns: [\"/section\(index % 100)/item\(index)/:id(int)\"] }\n"
    }
    return try? Router(manifests: [ManifestLoader.parse(yaml: yaml, file: "generated.yaml")])
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration.timeUnits = .nanoseconds
    Benchmark.defaultConfiguration.maxDuration = .seconds(3)

    Benchmark("Router.resolve Handz (flow edit link, pro)") { benchmark in
        guard let router = handzRouter() else { fatalError("handz.yaml did not load") }
        let url = "https://links.handz.example/flows/3f2504e0-4f89-11d3-9a0c-0305e82c3301/edit"
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(router.resolve(url: url, state: "pro"))
        }
    }

    Benchmark("Router.resolve Handz (custom scheme, signed-out intercept)") { benchmark in
        guard let router = handzRouter() else { fatalError("handz.yaml did not load") }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(router.resolve(url: "handz://practice/history", state: "signedOut"))
        }
    }

    Benchmark("Router.resolve generated 10,000 routes") { benchmark in
        guard let router = generatedRouter(count: 10_000) else { fatalError("generated manifest did not load") }
        let url = "https://links.gen.example/section57/item9957/12345"
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(router.resolve(url: url, state: "in"))
        }
    }
}
