package import Hummingbird

/// Records every request into `HTTPMetrics`, with the matched route pattern (not the raw path) as label, and
/// logs it at debug level (`Logger.logRequest`).
package struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: HTTPMetrics

    /// The middleware recording into `metrics`.
    package init(metrics: HTTPMetrics) {
        self.metrics = metrics
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: response.status.code, start: start)
            return response
        } catch {
            let status = APIError.answering(error)?.status.code ?? 500
            record(request, context, status: status, start: start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, start: ContinuousClock.Instant) {
        let route = context.endpointPath ?? "unmatched"
        let duration = ContinuousClock.now - start
        metrics.recordRequest(method: request.method.rawValue, route: route, status: status, duration: duration)
        context.logger.logRequest(method: request.method.rawValue, route: route, status: status, duration: duration)
    }
}
