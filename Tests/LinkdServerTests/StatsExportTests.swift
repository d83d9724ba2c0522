import Foundation
import HTTPTypes
import LinkStore
import LinkdTestSupport
import Testing

@testable import LinkdServer

/// `?format=csv` of `GET /v1/links/{id}/stats` and `GET /v1/apps/{app}/stats` against the live server (both
/// stores): the share URL opened from iPhone, Android, desktop and link-preview user agents, then the CSV of the
/// link and of its app beside their JSON, and the answers to a format that is neither.
@Suite("Stats as CSV", .serialized)
struct StatsExportTests {
    /// The counters of a JSON `byDay` entry in the CSV's column order.
    static func csvValues(_ day: [String: Any]) -> [String] {
        let platforms = day["byPlatform"] as? [String: Int] ?? [:], installs = day["installsByPlatform"] as? [String: Int] ?? [:]
        let claims = day["claims"] as? [String: Int] ?? [:]
        let values: [Int?] = [
            day["clicks"] as? Int, platforms["ios"], platforms["android"], platforms["desktop"], day["previews"] as? Int,
            day["installs"] as? Int, installs["ios"], installs["android"], claims["made"], claims["claimed"], claims["expired"],
        ]
        return values.map { $0.map(String.init) ?? "?" }
    }

    /// The lines of a CSV answer (CRLF line ends, one at the end).
    static func lines(_ reply: Reply) -> [String] {
        #expect(reply.text.hasSuffix("\r\n"))
        return reply.text.components(separatedBy: "\r\n").dropLast()
    }

    @Test("a link's and an app's days as CSV, the same counters as the JSON; an unknown format is a 400", arguments: StoreKind.allCases)
    func csvExport(store: StoreKind) async throws {
        try await withAPI(on: store, { $0.store.clickFlushSeconds = 0.1 }) { api in
            let link = try await DeferredLinkTests.ordentusLink(api)
            for (agent, times) in UserAgent.opens {
                for _ in 0..<times {
                    #expect(try await api.call(.get, "/s/\(link.token)", headers: [.userAgent: agent]).status == 200)
                }
            }
            #expect(try await api.call(.get, "/s/\(link.token)/install/android", headers: [.userAgent: UserAgent.android]).status == 302)
            let key = try await api.clientKey(app: "ordentus")
            let json = try await AnalyticsTests.poll(api, "/v1/links/\(link.id)/stats", key: key) { ($0["clicks"] as? Int) == 6 && ($0["installs"] as? Int) == 1 }
            let today = AnalyticsTests.today
            let header = "date,clicks,clicks_ios,clicks_android,clicks_desktop,previews,installs,installs_ios,installs_android,claims_made,claims_claimed,claims_expired"

            let csv = try await api.call(.get, "/v1/links/\(link.id)/stats?format=csv", key: key)
            #expect(csv.status == 200)
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(csv.headers[.contentDisposition] == "attachment; filename=\"linkd-stats-\(link.id)-\(today)-\(today).csv\"")
            let day = try #require((json["byDay"] as? [[String: Any]])?.first)
            #expect(Self.lines(csv) == [header, ([today] + Self.csvValues(day)).joined(separator: ",")])
            #expect(Self.lines(csv).last?.hasPrefix("\(today),6,2,3,1,2,1,0,1,") == true, "\(csv.text)")

            // The app over three days: every day a row, those without events zeros, the day with events as its JSON.
            let yesterday = StatsRange.text(StatsDay(number: StatsDay(Date()).number - 1))
            let before = StatsRange.text(StatsDay(number: StatsDay(Date()).number - 2))
            let range = "from=\(before)&to=\(today)"
            let appJSON = try await api.call(.get, "/v1/apps/ordentus/stats?\(range)&format=json", key: key)
            #expect(appJSON.status == 200 && appJSON.headers[.contentType] == "application/json")
            let appDay = try #require((appJSON.json["byDay"] as? [[String: Any]])?.first)
            let appCSV = try await api.call(.get, "/v1/apps/ordentus/stats?\(range)&format=csv", key: key)
            #expect(appCSV.status == 200)
            #expect(appCSV.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(appCSV.headers[.contentDisposition] == "attachment; filename=\"linkd-stats-ordentus-\(before)-\(today).csv\"")
            let zeros = Array(repeating: "0", count: 11).joined(separator: ",")
            #expect(Self.lines(appCSV) == [
                header, "\(before),\(zeros)", "\(yesterday),\(zeros)", ([today] + Self.csvValues(appDay)).joined(separator: ","),
            ])

            // The same keys and ranges as the JSON; a format that is neither is a 400 with its code.
            #expect(try await api.call(.get, "/v1/links/\(link.id)/stats?format=csv").status == 401)
            #expect(try await api.call(.get, "/v1/apps/ordentus/stats?format=csv", key: try await api.clientKey(app: "handz")).status == 404)
            #expect(try await api.call(.get, "/v1/apps/ordentus/stats?format=csv&from=2026-13-01", key: key).status == 400)
            for path in ["/v1/links/\(link.id)/stats", "/v1/apps/ordentus/stats"] {
                for format in ["xml", "CSV", ""] {
                    let reply = try await api.call(.get, "\(path)?format=\(format)", key: key)
                    #expect(reply.status == 400, "\(path) \(format)")
                    #expect(reply.errorCode == "unsupported_format")
                }
            }
        }
    }
}
