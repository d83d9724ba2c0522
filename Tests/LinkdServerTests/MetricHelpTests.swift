import Foundation
import Prometheus
import Testing

@testable import LinkdHTTP
@testable import LinkdServer

@Suite("Metric help")
struct MetricHelpTests {
    @Test("every series family linkd makes is one of LinkdMetric's and has its one-line # HELP")
    func everyFamilyHasHelp() throws {
        // Every family made once: the server's, the analytics', the webhooks', ACME's, the gauges set on demand.
        let metrics = ServerMetrics()
        _ = AnalyticsMetrics(registry: metrics.registry, apps: ["handz"])
        _ = WebhookMetrics(metrics: metrics)
        ACMEStatus(registry: metrics.registry).installed(app: "handz", hosts: ["links.handz.example"], notAfter: Date())
        metrics.http.recordRequest(method: "GET", route: "/healthz", status: 200, duration: .milliseconds(1))
        metrics.setRevocationSetSize(0)
        metrics.setLinkCache(records: 0, bytes: 0)
        metrics.setChangeFeedVersion(1)

        let lines = metrics.registry.emitToString().split(separator: "\n").map(String.init)
        let families = Set(lines.compactMap { line -> String? in
            guard line.hasPrefix("# TYPE ") else { return nil }
            return line.dropFirst("# TYPE ".count).split(separator: " ").first.map(String.init)
        })
        #expect(families == Set(LinkdMetric.allCases.map(\.rawValue)))
        for metric in LinkdMetric.allCases {
            #expect(lines.contains("# HELP \(metric.rawValue) \(metric.help)"), "\(metric.rawValue)")
            #expect(!metric.help.isEmpty && !metric.help.contains("\n"), "\(metric.rawValue)")
        }
    }
}
