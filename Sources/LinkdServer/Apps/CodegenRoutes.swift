import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
public import LinkRouter
import LinkStore
import NIOCore
public import RouteCodegen
import Synchronization

/// The code made from a manifest (`RouteCodegen`), the same way for both doors: `linkd codegen` on a file and
/// `GET /v1/apps/{app}/codegen/{lang}` on the version in force. The header's hash is the store's (`sha256:` of the
/// manifest's text), so a file and its published version name the same hash.
public enum ManifestCodegen {
    /// What `linkd codegen` prints for a manifest file: no version (a file is not a published version), the hash of
    /// the file's text.
    public static func generate(_ language: CodegenLanguage, file: ManifestLoader.LoadedFile) -> String {
        RouteCodegen.generate(
            language, manifest: file.manifest, identity: ManifestIdentity(version: nil, hash: ManifestPublisher.hash(file.source)))
    }
}

/// `GET /v1/apps/{app}/codegen/{lang}` (a client key of that app, or admin — as the app's stats): the code of `lang`
/// (`swift`, `typescript`, `kotlin`, `android-manifest`) made from the app's manifest in force, for build scripts.
/// `ETag` names the version, the hash and the generator's revision (the bytes are a function of them); with
/// `Cache-Control: no-cache` a build asks each time and gets `304` while nothing changed. Another app's key, an app
/// not loaded and a language there is not get `404 not_found` (the message lists the languages).
///
/// A client key is enough: the output says what the app's own binary and its well-known files already say (route
/// ids, patterns, tabs, states), and the app team's build should not hold an admin key.
final class CodegenRoutes: Sendable {
    let apps: AppsInForce
    let auth: APIKeyAuthenticator
    /// The outputs made, by language and entity tag: a build server polling the endpoint costs a lookup, not a
    /// generation (a manifest of thousands of routes takes a noticeable fraction of a second). Emptied when full.
    private let made = Mutex<[String: ByteBuffer]>([:])
    /// How many outputs `made` keeps (4 languages of a few apps and versions).
    static let cacheCapacity = 64

    /// - Parameters: see the properties.
    init(apps: AppsInForce, auth: APIKeyAuthenticator) {
        self.apps = apps
        self.auth = auth
    }

    func register(on router: some RouterMethods<LinkdRequestContext>) {
        router.get("v1/apps/{app}/codegen/{lang}") { request, context in
            let caller = try await self.auth.authenticate(request, client: context.clientAddress)
            return try self.answer(
                app: try context.parameters.require("app"), language: try context.parameters.require("lang"), caller: caller,
                ifNoneMatch: request.headers[.ifNoneMatch])
        }
    }

    /// The answer for `caller`: the code, or `304` when `ifNoneMatch` names its entity tag.
    func answer(app: String, language name: String, caller: Caller, ifNoneMatch: String?) throws -> Response {
        let snapshot = apps.snapshot
        guard let manifest = snapshot.router.manifest(app: app), caller.kind == .admin || caller.app == app else {
            // Another app's key sees what a missing app shows: no oracle across apps.
            throw APIError(.notFound, .notFound, "no app \(app.prefix(64))")
        }
        let language: CodegenLanguage
        do {
            language = try RouteCodegen.language(named: name)
        } catch {
            throw APIError(.notFound, .notFound, error.message)
        }
        let version = snapshot.versions[app]
        let identity = ManifestIdentity(version: version?.version, hash: version?.hash ?? "unknown")
        let tag = Self.entityTag(identity)
        let headers: HTTPFields = [.contentType: language.contentType, .cacheControl: "no-cache", .eTag: tag]
        if let ifNoneMatch, Self.matches(ifNoneMatch, tag) {
            return Response(status: .notModified, headers: [.cacheControl: "no-cache", .eTag: tag])
        }
        let key = "\(app) \(name) \(tag)"
        let body: ByteBuffer
        if let cached = made.withLock({ $0[key] }) {
            body = cached
        } else {
            body = ByteBuffer(string: RouteCodegen.generate(language, manifest: manifest, identity: identity))
            made.withLock { cache in
                if cache.count >= Self.cacheCapacity { cache.removeAll(keepingCapacity: true) }
                cache[key] = body
            }
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    /// `"<version>-<hash hex>-<generator revision>"`: the same for the same bytes of one language.
    static func entityTag(_ identity: ManifestIdentity) -> String {
        let hex = identity.hash.hasPrefix("sha256:") ? String(identity.hash.dropFirst("sha256:".count)) : "0"
        return "\"\(identity.version ?? 0)-\(hex)-\(RouteCodegen.revision)\""
    }

    /// Whether an `If-None-Match` value names `tag` (weakly, as RFC 9110 compares for it) or is `*`.
    static func matches(_ ifNoneMatch: String, _ tag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            var text = candidate.trimmingCharacters(in: .whitespaces)
            if text == "*" { return true }
            if text.hasPrefix("W/") { text.removeFirst(2) }
            return text == tag
        }
    }
}
