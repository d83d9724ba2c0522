import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
import LinkStore
import TokenSigning

// The console's webhooks pages: every endpoint with its state (active, failing, disabled), one endpoint's delivery
// log, and create, disable/enable and delete through `AdminService` (audited there). A new endpoint's signing secret
// is on the page its creation answers and nowhere else.
extension ConsoleRoutes {
    /// How many delivery attempts an endpoint's page lists.
    static let webhookLogShown = 50

    func registerWebhooks(on console: some RouterMethods<LinkdRequestContext>) {
        console.get("webhooks") { request, context in try await page(request, context) { try await webhooksPage($0, request) } }
        console.post("webhooks") { request, context in
            try await action(request, context) { session, form in try await createWebhook(session, form, context) }
        }
        console.get("webhooks/{id}") { request, context in
            try await page(request, context) { try await webhookPage($0, request, context) }
        }
        console.post("webhooks/{id}/state") { request, context in
            try await action(request, context) { session, form in
                let enabled = form["enabled"] == "true"
                let endpoint = try await admin.updateWebhook(
                    id: try context.parameters.require("id"), url: nil, events: nil, enabled: enabled, by: session.caller,
                    logger: context.logger)
                return Self.redirect("/admin/webhooks/\(Self.path(endpoint.id))?notice=\(enabled ? "enabled" : "disabled")")
            }
        }
        console.get("webhooks/{id}/delete") { request, context in
            try await page(request, context) { try await confirmDeleteWebhook($0, context) }
        }
        console.post("webhooks/{id}/delete") { request, context in
            try await action(request, context) { session, _ in
                let endpoint = try await admin.deleteWebhook(id: try context.parameters.require("id"), by: session.caller, logger: context.logger)
                return Self.redirect("/admin/webhooks?notice=deleted&id=\(Self.query(endpoint.id))")
            }
        }
    }

    /// `GET /admin/webhooks`: every endpoint and the form that makes one.
    func webhooksPage(_ session: ConsoleSessions.Session, _ request: Request) async throws -> Response {
        let endpoints = try await admin.webhooks(app: nil)
        var values: [String: Any] = [
            "endpoints": endpoints.map(Self.webhookContext), "hasEndpoints": !endpoints.isEmpty,
            "apps": admin.appIDs.enumerated().map { ["id": $1, "selected": $0 == 0] as [String: Any] },
            "events": WebhookEventType.allCases.map { ["name": $0.rawValue, "field": "event." + $0.rawValue] },
        ]
        let query = request.uri.queryParameters
        // The notice repeats only an id the store confirms is gone.
        if query.get("notice") == "deleted", let id = query.get("id"), id.hasPrefix("wh_"), id.utf8.count <= 64,
           !endpoints.contains(where: { $0.id == id }) {
            values["notice"] = "Webhook endpoint \(id) is deleted: nothing more is sent to it."
        }
        return render("webhooks", session, nav: "webhooks", title: "Webhooks", values)
    }

    /// `POST /admin/webhooks` `app, url, event.<type>=on…`: makes an endpoint and shows its secret, once.
    private func createWebhook(_ session: ConsoleSessions.Session, _ form: [String: String], _ context: LinkdRequestContext) async throws -> Response {
        let events = WebhookEventType.allCases.map(\.rawValue).filter { form["event." + $0] != nil }
        let (endpoint, secret) = try await admin.createWebhook(
            app: form["app"] ?? "", url: (form["url"] ?? "").trimmingCharacters(in: .whitespaces), events: events, enabled: true,
            by: session.caller, logger: context.logger)
        // The secret is on this page only: never in a URL, a redirect or another page.
        return render("webhook-created", session, nav: "webhooks", title: "Webhook endpoint created", [
            "endpoint": Self.webhookContext(endpoint), "secret": secret.text,
        ], status: .created)
    }

    /// `GET /admin/webhooks/{id}`: an endpoint, its state and its delivery log.
    func webhookPage(_ session: ConsoleSessions.Session, _ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let endpoint = try await admin.webhook(id: try context.parameters.require("id"))
        let attempts = try await admin.webhookAttempts(id: endpoint.id, limit: Self.webhookLogShown)
        var values: [String: Any] = [
            "endpoint": Self.webhookContext(endpoint),
            "attempts": attempts.map { attempt in [
                "at": Self.time(attempt.at), "type": attempt.type, "eventID": attempt.eventID, "attempt": attempt.attempt,
                "status": attempt.status.map(String.init) ?? "none", "outcome": attempt.outcome.rawValue,
                "duration": "\(attempt.durationMilliseconds) ms", "error": attempt.error ?? "",
            ] as [String: Any] },
            "hasAttempts": !attempts.isEmpty, "shown": Self.webhookLogShown,
        ]
        switch request.uri.queryParameters.get("notice") {
        case "disabled" where !endpoint.enabled: values["notice"] = "The endpoint is disabled: its deliveries wait until it is enabled."
        case "enabled" where endpoint.enabled: values["notice"] = "The endpoint is enabled: waiting deliveries go out again."
        default: break
        }
        return render("webhook", session, nav: "webhooks", title: "Webhook endpoint \(endpoint.id)", values)
    }

    /// `GET /admin/webhooks/{id}/delete`: what deleting an endpoint stops.
    private func confirmDeleteWebhook(_ session: ConsoleSessions.Session, _ context: LinkdRequestContext) async throws -> Response {
        let endpoint = try await admin.webhook(id: try context.parameters.require("id"))
        return confirm(session, title: "Delete webhook endpoint \(endpoint.id)?", consequences: [
            "Nothing more is sent to \(endpoint.url) for \(endpoint.app): its waiting deliveries and its delivery log are deleted with it.",
            "Its secret is gone for good: a new endpoint gets a new one. This cannot be undone.",
        ], action: "/admin/webhooks/\(Self.path(endpoint.id))/delete", fields: [:], button: "Delete the endpoint", danger: true,
           cancel: "/admin/webhooks/\(Self.path(endpoint.id))")
    }

    /// An endpoint for a template: its state is `disabled` (an admin turned it off), `failing` (an event ran out of
    /// retries: deliveries wait until it is enabled again) or `active`.
    static func webhookContext(_ endpoint: WebhookEndpoint) -> [String: Any] {
        let state = !endpoint.enabled ? "disabled" : endpoint.failingSince != nil ? "failing" : "active"
        var values: [String: Any] = [
            "id": endpoint.id, "app": endpoint.app, "url": endpoint.url, "events": endpoint.events.map(\.rawValue).joined(separator: ", "),
            "state": state, "stateClass": state == "active" ? "ok" : "bad", "enabled": endpoint.enabled,
            "created": time(endpoint.created), "href": "/admin/webhooks/\(path(endpoint.id))",
            "stateAction": "/admin/webhooks/\(path(endpoint.id))/state", "deleteHref": "/admin/webhooks/\(path(endpoint.id))/delete",
        ]
        if let since = endpoint.failingSince { values["failingSince"] = time(since) }
        return values
    }
}
