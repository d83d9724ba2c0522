import HTTPTypes
package import Hummingbird

/// A request whose path a route has but whose method none takes is answered `405 method_not_allowed` with `Allow`
/// listing the methods the path takes (`HEAD` wherever `GET` is), read from the routes as registered
/// (`RouteCatalog`); a path no route has stays Hummingbird's `404`. Added after every route, so it wraps only the
/// unmatched-request responder, inside `AppLinkPagesMiddleware` (an app-link page is only for a path no route has).
/// Counted in the request metrics under the matched route's pattern.
package struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The routes of the router this middleware is on.
    let routes: RouteCatalog

    /// The middleware answering from `routes`.
    package init(routes: RouteCatalog) {
        self.routes = routes
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let route = routes.match(path: request.uri.path), !route.methods.contains(request.method) else { throw error }
            context.coreContext.endpointPath.value = route.pattern
            throw APIError.methodNotAllowed(route)
        }
    }
}
