import Foundation
import LinkRouter
import LinkdTestSupport
import Testing

@testable import LinkdServer

/// The well-known files `linkd serve` answers per `Host`: apple-app-site-association and assetlinks.json cover exactly
/// the paths linkd resolves there, read as iOS and Android read them (`AppleLinkMatcher`, `AndroidLinkMatcher`).
@Suite("Well-known files served by linkd", .serialized)
struct WellKnownFilesTests {
    @Test("apple-app-site-association and assetlinks.json per host cover exactly the paths linkd resolves there")
    func wellKnownFiles() async throws {
        let router = try ServerBootstrap.loadRouter(exampleManifests, environment: [:])
        // The Host header decides the file: the daemon as a process, asked through libcurl with each host.
        let daemon = try LinkdDaemon(dataDir: temporaryDataDir())
        defer { daemon.stop() }
        func get(_ path: String, host: String) async throws -> (status: Int, type: String?, body: Data) {
            let reply = try await TestHTTP.send("GET", daemon.baseURL + path, headers: ["Host": host])
            return (reply.status, reply.headers["content-type"], reply.body)
        }
        for manifest in router.manifests {
            for host in Set(manifest.hosts + manifest.shareHosts) {
                let aasa = try await get("/.well-known/apple-app-site-association", host: host)
                #expect(aasa.status == 200 && aasa.type == "application/json", "\(host)")
                #expect(aasa.body.count < 128 * 1024)
                let document = try JSONSerialization.jsonObject(with: aasa.body) as? [String: Any]
                let details = (document?["applinks"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
                #expect(details.first?["appIDs"] as? [String] == manifest.iosAppIDs, "\(host)")
                #expect((document?["webcredentials"] != nil) == manifest.iosWebCredentials)
                // iOS's reading of the served file (components in order, first match wins, excludes).
                let matcher = try AppleLinkMatcher(json: aasa.body)

                for path in samplePaths(manifest) {
                    let resolution = router.resolve(url: "https://\(host)\(path)", state: manifest.unauthenticatedState, app: nil) { _ in .unknown }
                    let resolves = resolution.problem?.code != .noMatch
                    #expect(resolves, "\(host)\(path) should resolve")
                    #expect(matcher.opensInApp(path: path) == resolves, "\(host)\(path): AASA \(matcher.details)")
                    #expect(!matcher.opensInApp(path: path + "/extra/segments"), "\(host)\(path)/extra/segments is covered")
                }
                let stray = "/zz-not-a-route/\(UUID().uuidString)"
                #expect(router.resolve(url: "https://\(host)\(stray)", state: manifest.unauthenticatedState, app: nil) { _ in .unknown }.problem?.code == .noMatch)
                #expect(!matcher.opensInApp(path: stray), "\(host): AASA covers a path linkd does not resolve")

                let links = try await get("/.well-known/assetlinks.json", host: host)
                #expect(links.status == 200 && links.type == "application/json")
                let statements = try JSONSerialization.jsonObject(with: links.body) as? [[String: Any]] ?? []
                if let package = manifest.androidPackage {
                    let target = statements.first?["target"] as? [String: Any]
                    #expect(target?["package_name"] as? String == package)
                    #expect(target?["sha256_cert_fingerprints"] as? [String] == manifest.androidFingerprints)
                    #expect(statements.first?["relation"] as? [String] == ["delegate_permission/common.handle_all_urls"])
                    // Android 15+'s reading of the served rules (decoded path, first match wins, no match: the browser).
                    let android = try AndroidLinkMatcher(json: links.body)
                    for path in samplePaths(manifest) {
                        #expect(android.opensInApp(package: package, path: path) == true, "\(host)\(path)")
                        #expect(android.opensInApp(package: package, path: path + "/extra/segments") == false, "\(host)\(path)/extra/segments")
                    }
                    #expect(android.opensInApp(package: package, path: stray) == false)
                } else {
                    #expect(statements.isEmpty)
                }
            }
        }
        #expect(try await get("/.well-known/apple-app-site-association", host: "evil.example").status == 404)
        #expect(try await get("/.well-known/assetlinks.json", host: "links.handz.example:443").status == 200)
    }
}
