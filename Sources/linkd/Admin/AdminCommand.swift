import ArgumentParser
import Foundation
import LinkdAdmin

/// `linkd admin …`: the running daemon's admin API from the terminal.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Administer a running linkd daemon over its admin API.",
        discussion: """
            Connection: --url or LINKD_URL, --key or LINKD_ADMIN_KEY, else a credentials file (--credentials, \
            LINKD_CREDENTIALS, or $XDG_CONFIG_HOME/linkd/credentials, ~/.config/linkd/credentials) with lines \
            'url = …' and 'key = …', mode 0600. Tables by default, --json for the server's JSON. Exit codes: 0 ok, \
            1 other API error, 64 usage, 66 not found, 69 daemon unreachable, 73 output file not written, 75 retry later (429/503), \
            77 key refused (401/403), 78 connection not configured (docs/admin-cli.md).
            """,
        subcommands: [
            AdminKeysCommand.self, AdminLinksCommand.self, AdminRevokeOwner.self, AdminAPIKeysCommand.self, AdminAudit.self,
            AdminWebhooksCommand.self, AdminStatsCommand.self, AdminAppsCommand.self, AdminBackup.self, AdminExport.self,
            AdminImport.self,
        ])
}

/// The options every `linkd admin` verb takes: where the daemon is, the key, the time limit, the output form.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "The daemon's base URL (default: $LINKD_URL, else the credentials file).")
    var url: String?
    @Option(help: "An admin API key (default: $LINKD_ADMIN_KEY, else the credentials file). Prefer those: a flag shows in ps.")
    var key: String?
    @Option(help: "A credentials file (default: $LINKD_CREDENTIALS, else $XDG_CONFIG_HOME/linkd/credentials or ~/.config/linkd/credentials).")
    var credentials: String?
    @Option(help: "The longest a call may take, in seconds (default 15, at most 300).")
    var timeout: Double?
    @Flag(help: "Print the server's JSON instead of a table.")
    var json = false

    /// A client of the connection these options, the environment and the credentials file give.
    func client() throws(AdminFailure) -> AdminClient {
        let connection = try AdminConnection.resolve(
            url: url, key: key, credentials: credentials, timeoutSeconds: timeout,
            environment: ProcessInfo.processInfo.environment)
        return AdminClient(connection: connection, transport: CurlAdminTransport())
    }
}

/// One `linkd admin` verb: the request it sends and how its answer reads as text. A verb declares its arguments,
/// `connection` (an `@OptionGroup`), `request()` and `render(_:)`; running it is common to all.
protocol AdminVerb: AsyncParsableCommand {
    /// The connection options.
    var connection: ConnectionOptions { get }
    /// The call this verb makes; a `usage` failure for arguments the server would refuse for their shape.
    func request() throws(AdminFailure) -> AdminRequest
    /// The answer as text for a terminal.
    func render(_ answer: [String: Any]) -> String
}

extension AdminVerb {
    func run() async throws {
        try await AdminRun.reporting { () async throws(AdminFailure) in try await send() }
    }

    /// Sends `request()` and prints the answer (`--json`: as it came; else `render` of it).
    func send() async throws(AdminFailure) {
        let response = try await connection.client().send(try request())
        AdminRun.print(response, json: connection.json) { render($0) }
    }
}

/// Running verbs: output and failures.
enum AdminRun {
    /// Runs `body`; an `AdminFailure` is printed to standard error as `error: …` and exits with its kind's code.
    static func reporting(_ body: () async throws(AdminFailure) -> Void) async throws {
        do {
            try await body()
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(error.kind.exitCode)
        }
    }

    /// Prints an answer: the server's JSON as it came (`json`), else `render` of it.
    static func print(_ response: AdminResponse, json: Bool, render: ([String: Any]) -> String) {
        if json {
            var bytes = response.body
            if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
            FileHandle.standardOutput.write(bytes)
        } else {
            Swift.print(render(response.json))
        }
    }
}
