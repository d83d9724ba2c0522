import HTTPTypes
package import Hummingbird

/// The last step of every answer Hummingbird's entrance gives: a `HEAD` request gets the status and header fields
/// of the answer its `GET` would get — `Content-Length` of that body included — and no body (RFC 9110 §9.3.2).
/// Whatever made the answer (a route, an error, the `405`/`404` of an unmatched request, an app-link page), the body
/// is dropped here, once, so that no `HEAD` answer carries body bytes into a kept-alive connection.
package struct HeadResponder<Base: HTTPResponder>: HTTPResponder {
    package typealias Context = Base.Context

    /// The router's responder.
    let base: Base

    /// `base`, with its `HEAD` answers made bodiless.
    package init(base: Base) {
        self.base = base
    }

    package func respond(to request: Request, context: Context) async throws -> Response {
        let response = try await base.respond(to: request, context: context)
        // `createHeadResponse` keeps the header fields, `Content-Length` of the dropped body with them.
        return request.method == .head ? response.createHeadResponse() : response
    }
}
