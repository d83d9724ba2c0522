import ArgumentParser
import LinkdAdmin

/// `linkd admin keys list|rotate|retire`: the daemon's signing keys.
struct AdminKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "The daemon's signing keys: list, rotate, retire.",
        subcommands: [List.self, Rotate.self, Retire.self])

    /// A table of signing keys (never their secrets).
    static func table(_ keys: [[String: Any]]) -> String {
        TextTable(keys, columns: [
            "APP": "app", "KID": "kid", "SUITE": "suite", "STATE": "state", "CREATED": "createdAt", "ACTIVATED": "activatedAt",
            "VERIFY UNTIL": "verifyUntil", "RETIRED": "retiredAt",
        ]).render()
    }

    struct List: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "List signing keys and their states (pending, active, verifyOnly, retired).")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "Only this app's keys.") var app: String?

        func request() -> AdminRequest { AdminRequest("GET", ["v1", "admin", "keys"], query: [("app", app)]) }
        func render(_ answer: [String: Any]) -> String { AdminKeysCommand.table(JSONText.items("keys", of: answer)) }
    }

    struct Rotate: AdminVerb {
        static let configuration = CommandConfiguration(
            abstract: "Make a new active key for an app; the old one verifies its tokens until they expire.",
            discussion: "After a leak, rotate, then retire the leaked key (linkd admin keys retire) to cut its tokens off at once.")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "The app.") var app: String
        @Option(help: "hmac-sha256 (default) or ed25519.") var suite: String?

        func request() -> AdminRequest {
            AdminRequest("POST", ["v1", "admin", "keys", app, "rotate"], json: suite.map { ["suite": $0] } ?? [:])
        }
        func render(_ answer: [String: Any]) -> String { "rotated: new active key\n" + AdminKeysCommand.table([answer]) }
    }

    struct Retire: AdminVerb {
        static let configuration = CommandConfiguration(
            abstract: "Retire a key: tokens signed with it are unknown from now on (the active key cannot be retired: rotate first).")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "The app.") var app: String
        @Option(help: "The key id (KID in 'keys list').") var kid: UInt32

        func request() -> AdminRequest { AdminRequest("POST", ["v1", "admin", "keys", app, String(kid), "retire"]) }
        func render(_ answer: [String: Any]) -> String { "retired\n" + AdminKeysCommand.table([answer]) }
    }
}
