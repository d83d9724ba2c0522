import HTTPTypes
import Hummingbird
import Logging

/// The outermost middleware: every error leaves as the API's JSON error shape.
///
/// - An `APIError` passes through (it renders itself).
/// - Hummingbird's own 4xx `HTTPError`s — the unmatched route above all, which Hummingbird answers 404 also for a
///   known path with a method it has no handler for (its router does not tell the two apart, so there is no 405) —
///   become `APIError`s of their status: `{"error":{"code":"not_found",…}}`.
/// - Anything else is a bug: logged at error level with the error, answered 500 `internal_error` with a message
///   that says nothing about the error.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTTPError where error.status.kind == .clientError {
            throw Self.apiError(for: error.status)
        } catch {
            context.logger.error(
                "request failed with an unexpected error",
                metadata: [
                    "error": "\(String(reflecting: error))", "method": "\(request.method.rawValue)",
                    "route": "\(context.endpointPath ?? "unmatched")",
                ])
            throw Self.internalError
        }
    }

    /// The answer to an unexpected error.
    static var internalError: APIError {
        APIError(.internalServerError, .internalError, "the server failed to answer this request; it has been logged")
    }

    /// The API error of one of Hummingbird's 4xx statuses (its own messages are not the API's).
    static func apiError(for status: HTTPResponse.Status) -> APIError {
        switch status {
        case .notFound: APIError(status, .notFound, "no such endpoint: check the method and path (docs/openapi.yaml)")
        case .contentTooLarge: APIError(status, .payloadTooLarge, "the body is over this endpoint's cap")
        case .unsupportedMediaType: APIError(status, .unsupportedMediaType, "the body has the wrong content type")
        case .unprocessableContent: APIError(status, .unprocessable, "the request cannot be done")
        default: APIError(status, .badRequest, "the request is refused")
        }
    }
}
