import HTTPTypes
import Hummingbird
import LinkdHTTP
import NIOCore
import WebFallback

/// The routes of deferred deep links:
/// - `GET /s/{token}/install/{platform}` (`ios`, `android`): the store redirect with a claim code (`DeferredLinks.install`);
/// - `POST /v1/claims/{code}` `{"state": …}`: the claim (`DeferredLinks.claim`). No API key: the app binary that
///   claims cannot keep one secret (as for `/v1/resolve`), and the code — 128 random bits, once, short-lived — is
///   the credential; limited per address;
/// - `GET /static/claim.js`: the claim page's copy button.
struct DeferredRoutes: Sendable {
    let deferred: DeferredLinks

    func register(on router: some RouterMethods<LinkdRequestContext>) {
        router.get("s/{token}/install/{platform}") { request, context in
            await deferred.install(
                token: try context.parameters.require("token"), platform: try context.parameters.require("platform"),
                host: request.head.authority, userAgent: request.headers[.userAgent], client: context.clientAddress,
                isHead: request.method == .head
            ).response
        }
        router.post("v1/claims/{code}") { request, context in
            let body: ByteBuffer
            if request.headers[.contentType] == nil {
                // No body at all is a claim without a state; any body must say it is JSON.
                do { body = try await request.body.collect(upTo: 0) } catch {
                    throw APIError(.unsupportedMediaType, .unsupportedMediaType, "send the body as application/json")
                }
            } else {
                body = try await JSONBody.collect(request, maxBytes: DeferredLinks.maxClaimBodyBytes)
            }
            return try await deferred.claim(
                code: try context.parameters.require("code"), body: body, client: context.clientAddress
            ).response
        }
        router.get("static/claim.js") { _, _ in
            Response(
                status: .ok,
                headers: [
                    .contentType: "application/javascript; charset=utf-8", .cacheControl: "public, max-age=3600",
                    .init("X-Content-Type-Options")!: "nosniff",
                ],
                body: .init(byteBuffer: ByteBuffer(string: deferred.claimPages.script)))
        }
    }
}
