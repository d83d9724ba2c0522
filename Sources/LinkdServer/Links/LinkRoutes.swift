import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
import LinkRouter
import LinkStore
import Logging

/// `POST /v1/links`, `GET /v1/links` (list and search, a page at a time), `GET /v1/links/export` (every link of an
/// app, streamed: `LinkRoutes+Export`), `GET /v1/links/{id}` (the share-link inspector), `DELETE /v1/links/{id}`
/// (revoke).
/// A client key manages the links of its app; an admin key those of every app (`app` in the body then).
struct LinkRoutes: Sendable {
    let links: LinkService
    let auth: APIKeyAuthenticator
    let maxBodyBytes: Int
    /// The exports running on this instance.
    let exports = LinkExportGate()

    /// The body of `POST /v1/links` with an admin key: the app must be named.
    private struct AppField: Decodable { var app: String? }

    func register(on router: some RouterMethods<LinkdRequestContext>) {
        let group = router.group("v1/links")
        group.post { request, context in
            let caller = try await auth.authenticate(request, client: context.clientAddress)
            var request = request
            let body = try await JSONBody.collect(request, maxBytes: maxBodyBytes)
            request.body = .init(buffer: body)
            let app: String
            if caller.kind == .admin {
                let named = try await JSONBody.decode(AppField.self, from: request, maxBytes: maxBodyBytes, allowedKeys: CreateLinkRequest.keys.union(["app"]))
                guard let given = named.app, links.router.manifest(app: given) != nil else {
                    throw APIError(.unprocessableContent, .unprocessable, "an admin key must name a loaded app in 'app'")
                }
                app = given
            } else {
                guard let scoped = caller.app, links.router.manifest(app: scoped) != nil else {
                    throw APIError(.forbidden, .forbidden, "this key's app is not loaded")
                }
                app = scoped
            }
            let allowed = caller.kind == .admin ? CreateLinkRequest.keys.union(["app"]) : CreateLinkRequest.keys
            let create = try await JSONBody.decode(CreateLinkRequest.self, from: request, maxBytes: maxBodyBytes, allowedKeys: allowed)
            return try JSONBody.response(try await links.create(create, app: app), status: .created)
        }
        group.get { request, context in
            let caller = try await auth.authenticate(request, client: context.clientAddress)
            let query = try LinkListQuery(parameters: request.uri.queryParameters, caller: caller)
            return try JSONBody.response(try await links.list(query))
        }
        group.get("export") { request, context in
            try await export(request, context: context)
        }
        group.get("{id}") { request, context in
            let caller = try await auth.authenticate(request, client: context.clientAddress)
            return try JSONBody.response(try await links.view(id: try context.parameters.require("id"), caller: caller))
        }
        group.delete("{id}") { request, context in
            let caller = try await auth.authenticate(request, client: context.clientAddress)
            let revoked = try await links.revoke(id: try context.parameters.require("id"), caller: caller)
            context.logger.logAdminAction(.linkRevoke, actor: caller.keyID, ["app": "\(revoked.app)", "link": "\(revoked.id)"])
            return try JSONBody.response(revoked)
        }
    }
}
