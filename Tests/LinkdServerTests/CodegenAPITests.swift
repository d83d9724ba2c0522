import Foundation
import HTTPTypes
import LinkRouter
import LinkdTestSupport
import RouteCodegen
import Testing

@testable import LinkdServer

/// `GET /v1/apps/{app}/codegen/{lang}` on a live server (real port, real HTTP): the code of the manifest in force —
/// the bytes the library makes for that version and hash, which are `linkd codegen`'s but for the version — its
/// `ETag` and `304`, who may ask, what an unknown language gets, and a publish changing the answer.
@Suite("codegen over the API")
struct CodegenAPITests {
    static let handzPath = exampleManifests.first { $0.hasSuffix("/handz.yaml") }!

    @Test("a client key of the app gets the manifest in force's code, as the library and the CLI make it")
    func servesTheManifestInForce() async throws {
        try await withAPI { api in
            let client = try await api.clientKey(app: "handz")
            let reply = try await api.call(.get, "/v1/apps/handz/codegen/typescript", key: client)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.headers[.contentType] == "text/typescript; charset=utf-8")
            #expect(reply.headers[.cacheControl] == "no-cache")
            let tag = try #require(reply.headers[.eTag])

            // The version in force is 1 (the file, published at the first start), its hash the store's.
            let manifest = try await api.call(.get, "/v1/admin/apps/handz/manifest", key: api.adminKey)
            let hash = try #require(manifest.headers[HTTPField.Name("Linkd-Manifest-Hash")!])
            #expect(manifest.headers[.eTag] == "\"1\"")
            let file = try ManifestLoader.loadFiles(paths: [Self.handzPath])[0]
            let library = RouteCodegen.generate(.typescript, manifest: file.manifest, identity: ManifestIdentity(version: 1, hash: hash))
            #expect(reply.text == library)
            #expect(reply.text.contains("// Manifest version: 1\n// Manifest hash: \(hash)\n"))
            // `linkd codegen` on the file prints the same but for the version, which a file does not have.
            let cli = ManifestCodegen.generate(.typescript, file: file)
            let asFromFile = reply.text
                .replacingOccurrences(of: "// Manifest version: 1\n", with: "// Manifest version: none (made from a file, not a published version)\n")
                .replacingOccurrences(of: "  version: 1,\n", with: "  version: null,\n")
            #expect(asFromFile == cli)

            // Unchanged: 304 without a body, the same tag; HEAD: the headers without a body.
            let again = try await api.call(.get, "/v1/apps/handz/codegen/typescript", key: client, headers: [.ifNoneMatch: tag])
            #expect(again.status == 304 && again.text.isEmpty && again.headers[.eTag] == tag)
            let head = try await api.call(.head, "/v1/apps/handz/codegen/typescript", key: client)
            #expect(head.status == 200 && head.text.isEmpty && head.headers[.eTag] == tag)
            // Asked again (from the endpoint's cache of what it made): the same bytes.
            let cached = try await api.call(.get, "/v1/apps/handz/codegen/typescript", key: client)
            #expect(cached.status == 200 && cached.text == reply.text && cached.headers[.eTag] == tag)

            // Every language, each with its type; an admin key may ask for any app.
            let types = ["swift": "text/x-swift", "typescript": "text/typescript", "kotlin": "text/x-kotlin", "android-manifest": "application/xml"]
            for language in CodegenLanguage.allCases {
                let answer = try await api.call(.get, "/v1/apps/coin/codegen/\(language.rawValue)", key: api.adminKey)
                #expect(answer.status == 200)
                #expect(answer.headers[.contentType] == "\(types[language.rawValue]!); charset=utf-8")
                #expect(answer.text.contains("App: coin (COIN)"))
            }
        }
    }

    @Test("no key: 401; another app's key, an app not loaded, a language there is not: 404")
    func refusals() async throws {
        try await withAPI { api in
            let handz = try await api.clientKey(app: "handz")
            let coin = try await api.clientKey(app: "coin")
            let none = try await api.call(.get, "/v1/apps/handz/codegen/typescript")
            #expect(none.status == 401 && none.errorCode == "unauthorized")
            let other = try await api.call(.get, "/v1/apps/handz/codegen/typescript", key: coin)
            let missing = try await api.call(.get, "/v1/apps/nope/codegen/typescript", key: api.adminKey)
            // Another app's key learns nothing: the answer of an app that is not loaded.
            #expect(other.status == 404 && other.errorCode == "not_found")
            #expect(missing.status == 404 && missing.errorCode == "not_found")
            #expect(other.text == missing.text.replacingOccurrences(of: "nope", with: "handz"))
            let unknown = try await api.call(.get, "/v1/apps/handz/codegen/rust", key: handz)
            #expect(unknown.status == 404 && unknown.errorCode == "not_found")
            #expect(unknown.text.contains("no code generator for 'rust': the languages are swift, typescript, kotlin, android-manifest"))
            #expect(try await api.call(.get, "/v1/apps/coin/codegen/swift", key: coin).status == 200)
        }
    }

    @Test("a publish changes the code: the new route, version 2, a new ETag")
    func followsAPublish() async throws {
        try await withAPI { api in
            let client = try await api.clientKey(app: "handz")
            let before = try await api.call(.get, "/v1/apps/handz/codegen/swift", key: client)
            let tag = try #require(before.headers[.eTag])
            #expect(!before.text.contains("Library/Extra1"))
            let edited = ManifestEdits.addingScreen(try ManifestEdits.example("handz"), 1)
            let published = try await api.call(.put, "/v1/admin/apps/handz/manifest", key: api.adminKey, json: ["manifest": edited])
            #expect(published.status == 200, "\(published.text)")
            let after = try await api.call(.get, "/v1/apps/handz/codegen/swift", key: client, headers: [.ifNoneMatch: tag])
            #expect(after.status == 200)
            #expect(after.headers[.eTag] != tag)
            #expect(after.text.contains("case libraryExtra1 = \"Library/Extra1\""))
            #expect(after.text.contains("// Manifest version: 2\n"))
            let manifest = try ManifestLoader.parse(yaml: edited, file: "handz.yaml")
            #expect(after.text == RouteCodegen.generate(.swift, manifest: manifest, identity: ManifestIdentity(version: 2, hash: ManifestPublisher.hash(edited))))
        }
    }
}
