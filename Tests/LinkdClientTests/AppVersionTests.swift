import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LinkdClient
import LinkdTestSupport
import Testing

/// The app's version through `LinkdClient` against the running daemon: an older app gets `.updateRequired` for a
/// route its version lacks, and its plan shows the fallback (docs/matching.md, "App versions"; the Handz Inbox's
/// `since` is ours: seed 001 §1 leaves the Inbox's place open).
@Suite("LinkdClient sends the app's version")
struct AppVersionTests {
    @Test("an older app: updateRequired, the App Store page, and a plan of the fallback; a newer one: the route")
    func olderAndNewer() async throws {
        let daemon = try await ClientDaemon.start()
        defer { daemon.stop() }
        let base = try #require(URL(string: daemon.daemon.baseURL))
        let url = try #require(URL(string: "https://links.handz.example/inbox/\(UUID().uuidString.lowercased())"))

        let old = LinkdClient(baseURL: base, session: URLSession(configuration: .ephemeral),
                              configuration: .init(appVersion: "1.1", platform: "ios"))
        let resolution = try await old.resolve(url, state: "free")
        #expect(resolution.outcome == .updateRequired && resolution.route == "Library/InboxItem")
        #expect(resolution.update == .init(requiredVersion: "1.2", platform: "ios", storeURL: "https://apps.apple.com/app/id6470000001"))
        #expect(resolution.fallback?.route == "Library/Home")
        let plan = resolution.plan(for: "free")
        #expect(plan.outcome == .updateRequired && plan.update?.requiredVersion == "1.2")
        #expect(plan.target?.route == "Library/Home" && plan.tab == "library", "the plan shows the fallback: \(plan)")

        let new = LinkdClient(baseURL: base, session: URLSession(configuration: .ephemeral),
                              configuration: .init(appVersion: "1.2.0", platform: "ios"))
        #expect(try await new.resolve(url, state: "free").route == "Library/InboxItem")
        #expect(try await new.resolve(url, state: "free").outcome == .route)

        let unversioned = LinkdClient(baseURL: base, session: URLSession(configuration: .ephemeral), configuration: .init(appVersion: nil))
        #expect(try await unversioned.resolve(url, state: "free").outcome == .route, "no appVersion: today's answer")
        #expect(LinkdClient.Configuration().appVersion == LinkdClient.Configuration.bundleVersion)

        let malformed = LinkdClient(baseURL: base, session: URLSession(configuration: .ephemeral),
                                    configuration: .init(retry: .never, appVersion: "1.x"))
        do throws(LinkdClientError) {
            _ = try await malformed.resolve(url, state: "free")
            Issue.record("a malformed version was accepted")
        } catch {
            #expect(error.serverError?.code == .badAppVersion && error.serverError?.status == 400, "\(error)")
        }
    }
}
