import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
import LinkRouter
import LinkStore
import NIOCore

/// The apps' manifests through the admin API (admin key only; every change audited in its own transaction):
/// - `GET /v1/admin/apps`: every published app, its version in force, hash, who published it and when;
/// - `GET /v1/admin/apps/{app}/manifest[?version=N]`: the YAML in force (or of version N), `ETag` its version;
/// - `GET /v1/admin/apps/{app}/versions`: every version, newest first (without their text);
/// - `PUT /v1/admin/apps/{app}/manifest[?dryRun=true]`: publish — the YAML (`application/yaml`), or
///   `{"manifest": YAML, "moves": {…}, "force": false}` (`application/json`); `If-Match: "N"` makes it conditional;
/// - `POST /v1/admin/apps/{app}/manifest/rollback[?dryRun=true]` `{version, moves?, force?}`;
/// - `DELETE /v1/admin/apps/{app}`: retire an app that has no live links.
struct AppRoutes: Sendable {
    let admin: AdminService
    let auth: APIKeyAuthenticator

    /// The body cap of a publish: a manifest at its cap, escaped in JSON (every byte at most six), with the rest.
    static let maxPublishBytes = ManifestLoader.maxBytes * 6 + 65_536
    /// The most moves one publish may carry.
    static let maxMoves = 1000

    /// A move as JSON gives it: the new route's id, or `{route, params: {old: new}}`.
    private struct MoveSpec: Decodable {
        let route: String
        let params: [String: String]

        private enum CodingKeys: String, CodingKey { case route, params }

        init(from decoder: any Decoder) throws {
            if let route = try? decoder.singleValueContainer().decode(String.self) {
                self.route = route
                self.params = [:]
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            route = try container.decode(String.self, forKey: .route)
            params = try container.decodeIfPresent([String: String].self, forKey: .params) ?? [:]
        }
    }
    private struct PublishBody: Decodable {
        let manifest: String
        let moves: [String: MoveSpec]?
        let force: Bool?
    }
    private struct RollbackBody: Decodable {
        let version: Int
        let moves: [String: MoveSpec]?
        let force: Bool?
    }
    private struct AppList: Encodable { let apps: [AppVersionView] }
    private struct VersionView: Encodable {
        let app: String; let version: Int; let hash: String; let publishedAt: Date; let publishedBy: String; let retired: Bool
    }
    private struct VersionList: Encodable { let versions: [VersionView] }

    func register(on router: some RouterMethods<LinkdRequestContext>) {
        let apps = router.group("v1/admin/apps")
        apps.get { try await listApps($0, $1) }
        apps.get("{app}/manifest") { try await manifest($0, $1) }
        apps.get("{app}/versions") { try await versions($0, $1) }
        apps.put("{app}/manifest") { try await publish($0, $1) }
        apps.post("{app}/manifest/rollback") { try await rollback($0, $1) }
        apps.delete("{app}") { try await retire($0, $1) }
    }

    private func listApps(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        return try JSONBody.response(AppList(apps: try await admin.listApps()))
    }

    private func manifest(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        let app = try context.parameters.require("app")
        var version: Int?
        if let text = request.uri.queryParameters.get("version") {
            guard let number = Int(text), number > 0 else { throw APIError(.badRequest, .badRequest, "version must be a positive integer") }
            version = number
        }
        let record = try await admin.manifest(app: app, version: version)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/yaml; charset=utf-8", .cacheControl: "no-store", .eTag: "\"\(record.version)\"",
                HTTPField.Name("Linkd-Manifest-Hash")!: record.hash,
            ],
            body: .init(byteBuffer: ByteBuffer(string: record.source)))
    }

    private func versions(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        _ = try await auth.admin(request, client: context.clientAddress)
        let app = try context.parameters.require("app")
        let versions = try await admin.manifestVersions(app: app).map {
            VersionView(app: $0.app, version: $0.version, hash: $0.hash, publishedAt: $0.publishedAt, publishedBy: $0.publishedBy, retired: $0.retired)
        }
        return try JSONBody.response(VersionList(versions: versions))
    }

    private func publish(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let app = try context.parameters.require("app")
        var publish = ManifestPublisher.Request(app: app, source: "", actor: caller.keyID, fileName: "\(app).yaml")
        if JSONBody.hasMediaType(request.headers[.contentType], "application/json") {
            let body = try await JSONBody.decode(
                PublishBody.self, from: request, maxBytes: Self.maxPublishBytes, allowedKeys: ["manifest", "moves", "force"])
            publish.source = body.manifest
            publish.moves = try Self.moves(body.moves)
            publish.force = body.force ?? false
        } else {
            let yaml = ["application/yaml", "application/x-yaml", "text/yaml"].first {
                JSONBody.hasMediaType(request.headers[.contentType], $0)
            }
            guard let yaml else {
                throw APIError(.unsupportedMediaType, .unsupportedMediaType, "send the manifest as application/yaml, or as JSON {manifest, moves, force}")
            }
            let buffer = try await JSONBody.collect(request, maxBytes: ManifestLoader.maxBytes, contentType: yaml)
            publish.source = String(decoding: buffer.readableBytesView, as: UTF8.self)
        }
        guard publish.source.utf8.count <= ManifestLoader.maxBytes else {
            throw APIError(.contentTooLarge, .payloadTooLarge, "the manifest is larger than \(ManifestLoader.maxBytes) bytes")
        }
        publish.dryRun = try Self.dryRun(request)
        publish.expectedVersion = try Self.ifMatch(request)
        let outcome = try await admin.publishManifest(publish)
        return try JSONBody.response(outcome, status: outcome.unchanged || outcome.dryRun || outcome.version > 1 ? .ok : .created)
    }

    private func rollback(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let app = try context.parameters.require("app")
        let body = try await JSONBody.decode(RollbackBody.self, from: request, maxBytes: 1 << 20, allowedKeys: ["version", "moves", "force"])
        let outcome = try await admin.rollbackManifest(
            app: app, to: body.version, moves: try Self.moves(body.moves), force: body.force ?? false, dryRun: try Self.dryRun(request),
            expectedVersion: try Self.ifMatch(request), by: caller)
        return try JSONBody.response(outcome)
    }

    private func retire(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let caller = try await auth.admin(request, client: context.clientAddress)
        let app = try context.parameters.require("app")
        let record = try await admin.retireApp(app, expectedVersion: try Self.ifMatch(request), by: caller)
        return try JSONBody.response(VersionView(
            app: record.app, version: record.version, hash: record.hash, publishedAt: record.publishedAt,
            publishedBy: record.publishedBy, retired: true))
    }

    // MARK: Request parts

    private static func moves(_ specs: [String: MoveSpec]?) throws -> [LinkMove] {
        let specs = specs ?? [:]
        guard specs.count <= maxMoves else { throw APIError(.badRequest, .badRequest, "at most \(maxMoves) moves") }
        return specs.sorted { $0.key < $1.key }.map { LinkMove(from: $0.key, to: $0.value.route, params: $0.value.params) }
    }

    private static func dryRun(_ request: Request) throws -> Bool {
        switch request.uri.queryParameters.get("dryRun") {
        case nil, "false": false
        case "true": true
        default: throw APIError(.badRequest, .badRequest, "dryRun must be true or false")
        }
    }

    /// The version `If-Match` names (`"3"`, `3` or `W/"3"`); nil without the header.
    static func ifMatch(_ request: Request) throws -> Int? {
        guard let value = request.headers[.ifMatch] else { return nil }
        var text = value.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("W/") { text.removeFirst(2) }
        text = text.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        guard let version = Int(text), version >= 0 else {
            throw APIError(.badRequest, .badRequest, "If-Match must name a manifest version, as the ETag of its manifest gives it (3, quoted)")
        }
        return version
    }
}
