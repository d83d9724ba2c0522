import HTTPTypes
package import Hummingbird
import Logging

/// The outermost middleware: every error leaves as the API's JSON error shape (`APIError.answering(_:)` says which).
/// Anything it does not know is a bug: logged at error level with the error, answered 500 `internal_error` with a
/// message that says nothing about the error.
package struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The middleware.
    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            if let answer = APIError.answering(error) { throw answer }
            context.logger.error(
                "request failed with an unexpected error",
                metadata: [
                    "error": "\(String(reflecting: error))", "method": "\(request.method.rawValue)",
                    "route": "\(context.endpointPath ?? "unmatched")",
                ])
            throw APIError.internalError
        }
    }
}
