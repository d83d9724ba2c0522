import ArgumentParser
import LinkdAdmin

/// `linkd admin api-keys create|list|revoke`: the daemon's API keys.
struct AdminAPIKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api-keys", abstract: "API keys: create (the secret is shown once), list, revoke.",
        subcommands: [Create.self, List.self, Revoke.self])

    static func table(_ keys: [[String: Any]]) -> String {
        TextTable(keys, columns: [
            "ID": "id", "KIND": "kind", "APP": "app", "LABEL": "label", "CREATED": "createdAt", "REVOKED": "revokedAt",
        ]).render()
    }

    struct Create: AdminVerb {
        static let configuration = CommandConfiguration(
            abstract: "Create an API key: a client key for one app, or an admin key. Its secret is printed once.")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "client or admin.") var kind: String
        @Option(help: "The app of a client key.") var app: String?
        @Option(help: "What the key is for (1–200 characters).") var label: String

        func request() -> AdminRequest {
            var body: [String: Any] = ["kind": kind, "label": label]
            if let app { body["app"] = app }
            return AdminRequest("POST", ["v1", "admin", "api-keys"], json: body)
        }
        func render(_ answer: [String: Any]) -> String {
            let key = JSONText(answer)
            return FieldList([
                ("id", key["id"]), ("kind", key["kind"]), ("app", key["app"]), ("label", key["label"]),
                ("created", key["createdAt"]), ("key", key["key"]),
            ]).render() + "\n\nThe key is shown this once: store it in your secret store now."
        }
    }

    struct List: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "List API keys (never their secrets).")
        @OptionGroup var connection: ConnectionOptions

        func request() -> AdminRequest { AdminRequest("GET", ["v1", "admin", "api-keys"]) }
        func render(_ answer: [String: Any]) -> String { AdminAPIKeysCommand.table(JSONText.items("apiKeys", of: answer)) }
    }

    struct Revoke: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "Revoke an API key: refused from now on.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The key's id (ID in 'api-keys list').") var id: String

        func request() -> AdminRequest { AdminRequest("DELETE", ["v1", "admin", "api-keys", id]) }
        func render(_ answer: [String: Any]) -> String { "revoked\n" + AdminAPIKeysCommand.table([answer]) }
    }
}
