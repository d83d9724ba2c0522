import Hummingbird
import LinkdHTTP

extension HotRouteTable {
    /// linkd's hot routes — the share path, resolution and the health check — each declared once. The routes with a
    /// memory-only handler are the ones the event-loop fast path may answer.
    static func linkdRoutes(resolve: ResolveRoutes, share: ShareRoutes) -> [HotRoute] {
        let resolveBody = HotRoute.Body(maxBytes: ResolveRoutes.maxResolveBodyBytes, mediaType: "application/json")
        let calendarBody = HotRoute.Body(maxBytes: ResolveRoutes.maxCalendarBodyBytes, mediaType: "text/calendar")
        return [
            HotRoute(
                .get, "/healthz", rateLimit: .none,
                answer: { _ in HealthRoutes.healthy.response },
                answerFromMemory: { _ in HealthRoutes.healthy }),
            HotRoute(
                .get, "/v1/resolve", rateLimit: .perClient(RequestCost.byToken),
                answer: { request in await resolve.answer(try ResolveRoutes.Query(uri: request.uri)).response },
                answerFromMemory: { request in (try? ResolveRoutes.Query(uri: request.uri)).flatMap(resolve.answerInMemory) }),
            HotRoute(
                .post, "/v1/resolve", rateLimit: .perClient(RequestCost.byToken), body: resolveBody,
                answer: { request in await resolve.answer(try ResolveRoutes.Query(body: request.body)).response },
                answerFromMemory: { request in ResolveRoutes.Query(flatBody: request.body).flatMap(resolve.answerInMemory) }),
            HotRoute(
                .post, "/v1/resolve/ics", rateLimit: .perClient(RequestCost.byCalendarSize), body: calendarBody,
                answer: { request in try await resolve.calendar(request.body, query: request.uri.queryParameters) }),
            HotRoute(
                .get, "/s/{token}", rateLimit: .perClient(RequestCost.byToken),
                answer: { request in
                    await share.page(
                        token: request.parameter ?? "", host: request.host, userAgent: request.userAgent,
                        origin: ShareOrigin(query: request.query, referer: request.referer), countsClick: !request.isHead
                    ).response
                },
                answerFromMemory: { request in
                    share.pageInMemory(
                        token: request.parameter ?? "", host: request.host, userAgent: request.userAgent,
                        origin: ShareOrigin(query: request.query, referer: request.referer))
                }),
            HotRoute(
                .get, "/s/{token}/qr.svg", rateLimit: .perClient(RequestCost.byToken),
                answer: { request in await share.qrCode(token: request.parameter ?? "", host: request.host) }),
        ]
    }
}
