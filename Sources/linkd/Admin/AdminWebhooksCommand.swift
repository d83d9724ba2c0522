import ArgumentParser
import Foundation
import LinkdAdmin

/// `linkd admin webhooks create|list|show|update|delete|deliveries`: an app's webhook endpoints (docs/webhooks.md).
struct AdminWebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Webhook endpoints: create (the signing secret is shown once), list, show, update, delete, deliveries.",
        subcommands: [Create.self, List.self, Show.self, Update.self, Delete.self, Deliveries.self])

    /// A `true`/`false` field as `yes`/`no`.
    static func yesNo(_ value: Any?) -> String {
        guard let flag = value as? Bool else { return "-" }
        return flag ? "yes" : "no"
    }

    static func table(_ endpoints: [[String: Any]]) -> String {
        TextTable(
            columns: ["ID", "APP", "URL", "EVENTS", "ENABLED", "FAILING"],
            rows: endpoints.map { endpoint in
                let text = JSONText(endpoint)
                return [
                    text["id"] ?? "-", text["app"] ?? "-", text["url"] ?? "-",
                    (endpoint["events"] as? [String])?.joined(separator: ",") ?? "-",
                    yesNo(endpoint["enabled"]), yesNo(endpoint["failing"]),
                ]
            }
        ).render()
    }

    static func fields(_ endpoint: [String: Any]) -> FieldList {
        let text = JSONText(endpoint)
        return FieldList([
            ("id", text["id"]), ("app", text["app"]), ("url", text["url"]),
            ("events", (endpoint["events"] as? [String])?.joined(separator: ",")),
            ("enabled", yesNo(endpoint["enabled"])), ("failing", yesNo(endpoint["failing"])),
            ("failing since", text["failingSince"]), ("created", text["createdAt"]), ("updated", text["updatedAt"]),
        ])
    }

    /// The events a comma-separated list names.
    static func events(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    struct Create: AdminVerb {
        static let configuration = CommandConfiguration(
            abstract: "Register an endpoint for an app's events; prints its signing secret (whsec_…) once.")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "The app whose events it hears.") var app: String
        @Option(name: .customLong("endpoint"), help: "The https URL the events are posted to (--url is the daemon's).") var endpoint: String
        @Option(help: "Comma-separated events: link.created, link.revoked, link.deleted, link.claimed, key.rotated, key.retired, owner.revoked.")
        var events: String

        func request() -> AdminRequest {
            AdminRequest("POST", ["v1", "admin", "webhooks"], json: ["app": app, "url": endpoint, "events": AdminWebhooksCommand.events(events)])
        }
        func render(_ answer: [String: Any]) -> String {
            var fields = AdminWebhooksCommand.fields(answer)
            fields.fields.append(("secret", JSONText(answer)["secret"]))
            return fields.render() + "\n\nThe signing secret is shown this once: give it to the receiver now."
        }
    }

    struct List: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "List webhook endpoints (never their secrets).")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "Only this app's.") var app: String?

        func request() -> AdminRequest { AdminRequest("GET", ["v1", "admin", "webhooks"], query: [("app", app)]) }
        func render(_ answer: [String: Any]) -> String { AdminWebhooksCommand.table(JSONText.items("webhooks", of: answer)) }
    }

    struct Show: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "One webhook endpoint.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The endpoint's id (wh_…).") var id: String

        func request() -> AdminRequest { AdminRequest("GET", ["v1", "admin", "webhooks", id]) }
        func render(_ answer: [String: Any]) -> String { AdminWebhooksCommand.fields(answer).render() }
    }

    struct Update: AdminVerb {
        static let configuration = CommandConfiguration(
            abstract: "Change an endpoint's URL or events, or enable it again after it was marked failing (--enable).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The endpoint's id (wh_…).") var id: String
        @Option(name: .customLong("endpoint"), help: "A new https URL for the events (--url is the daemon's).") var endpoint: String?
        @Option(help: "A new comma-separated list of events.") var events: String?
        @Flag(help: "Enable the endpoint (also clears 'failing': its waiting deliveries go out again).") var enable = false
        @Flag(help: "Disable the endpoint: nothing is queued or sent until it is enabled.") var disable = false

        func request() throws(AdminFailure) -> AdminRequest {
            var body: [String: Any] = [:]
            if let endpoint { body["url"] = endpoint }
            if let events { body["events"] = AdminWebhooksCommand.events(events) }
            if enable && disable { throw AdminFailure(.usage, "give --enable or --disable, not both") }
            if enable || disable { body["enabled"] = enable }
            guard !body.isEmpty else { throw AdminFailure(.usage, "nothing to change: give --endpoint, --events, --enable or --disable") }
            return AdminRequest("PATCH", ["v1", "admin", "webhooks", id], json: body)
        }
        func render(_ answer: [String: Any]) -> String { AdminWebhooksCommand.fields(answer).render() }
    }

    struct Delete: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "Delete an endpoint and the deliveries it still had waiting.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The endpoint's id (wh_…).") var id: String

        func request() -> AdminRequest { AdminRequest("DELETE", ["v1", "admin", "webhooks", id]) }
        func render(_ answer: [String: Any]) -> String { "deleted\n" + AdminWebhooksCommand.fields(answer).render() }
    }

    struct Deliveries: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "An endpoint's newest delivery attempts, newest first.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The endpoint's id (wh_…).") var id: String
        @Option(help: "How many attempts (1–100, default 20).") var limit: Int?

        func request() -> AdminRequest {
            AdminRequest("GET", ["v1", "admin", "webhooks", id, "deliveries"], query: [("limit", limit.map(String.init))])
        }
        func render(_ answer: [String: Any]) -> String {
            TextTable(JSONText.items("deliveries", of: answer), columns: [
                "AT": "at", "EVENT": "eventId", "TYPE": "type", "ATTEMPT": "attempt", "STATUS": "status",
                "OUTCOME": "outcome", "MS": "durationMs", "ERROR": "error",
            ]).render()
        }
    }
}
