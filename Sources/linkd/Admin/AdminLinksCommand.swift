import ArgumentParser
import Foundation
import LinkdAdmin

/// `linkd admin links create|show|revoke|list`: share links of any app.
struct AdminLinksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links", abstract: "Share links: create, show (the inspector), revoke, list and search.",
        subcommands: [Create.self, Show.self, Revoke.self, List.self])

    /// One link as the inspector shows it.
    static func fields(_ link: [String: Any]) -> String {
        let text = JSONText(link)
        return FieldList([
            ("id", text["id"]), ("app", text["app"]), ("route", text["route"]), ("params", text.pairs("params")),
            ("owner", text["owner"]), ("title", text["title"]), ("status", text["status"]), ("created", text["createdAt"]),
            ("expires", text["expiresAt"]), ("clicks", text["clicks"]), ("last opened", text["lastOpenedAt"] ?? "never"),
            ("short url", text["shortURL"]), ("path url", text["pathURL"]),
        ]).render()
    }

    /// A table of links.
    static func table(_ links: [[String: Any]]) -> String {
        TextTable(links, columns: [
            "ID": "id", "APP": "app", "OWNER": "owner", "STATUS": "status", "CLICKS": "clicks", "CREATED": "createdAt",
            "EXPIRES": "expiresAt", "TITLE": "title",
        ]).render()
    }

    struct Create: AdminVerb {
        static let configuration = CommandConfiguration(
            abstract: "Create a share link of an app (the route and params its manifest shares).",
            discussion: "Without --route the link opens the manifest's share.route. Prints the id, URL and token.")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "The app.") var app: String
        @Option(help: "A shareable route of the app's manifest (default: its share.route).") var route: String?
        @Option(name: .customLong("param"), help: "A route param as name=value (repeat for more).") var params: [String] = []
        @Option(help: "The owner (the app's user id), for revoke-owner.") var owner: String?
        @Option(help: "A display title.") var title: String?
        @Option(help: "Lifetime: a number and s, m, h or d (default: the daemon's defaultTTLSeconds).") var ttl: String?
        @Option(help: "hmac-sha256 (default) or ed25519.") var suite: String?
        @Option(help: "A custom path on the app's share host (/guard-pass: letters, digits, -, _, /; at most 128 bytes).")
        var path: String?

        func request() throws(AdminFailure) -> AdminRequest {
            var pairs: [String: String] = [:]
            for param in params {
                guard let equals = param.firstIndex(of: "="), equals != param.startIndex else {
                    throw AdminFailure(.usage, "--param '\(param.prefix(80))': expected name=value")
                }
                pairs[String(param[..<equals])] = String(param[param.index(after: equals)...])
            }
            var body: [String: Any] = ["app": app, "params": pairs]
            if let route { body["route"] = route }
            if let owner { body["owner"] = owner }
            if let title { body["title"] = title }
            if let suite { body["suite"] = suite }
            if let path { body["path"] = path }
            if let ttl {
                do { body["ttlSeconds"] = Int(try TTL.parse(ttl)) } catch { throw AdminFailure(.usage, "\(error)") }
            }
            return AdminRequest("POST", ["v1", "links"], json: body)
        }
        func render(_ answer: [String: Any]) -> String {
            let link = JSONText(answer)
            return FieldList([
                ("id", link["id"]), ("app", link["app"]), ("url", link["url"]), ("short url", link["shortURL"]),
                ("path url", link["pathURL"]), ("token", link["token"]), ("expires", link["expiresAt"]),
            ]).render()
        }
    }

    struct Show: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "Show a link: status, clicks, last opened, expiry.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The link id (32 hex characters).") var id: String

        func request() -> AdminRequest { AdminRequest("GET", ["v1", "links", id]) }
        func render(_ answer: [String: Any]) -> String { AdminLinksCommand.fields(answer) }
    }

    struct Revoke: AdminVerb {
        static let configuration = CommandConfiguration(abstract: "Revoke a link: it stops opening at once.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The link id (32 hex characters).") var id: String

        func request() -> AdminRequest { AdminRequest("DELETE", ["v1", "links", id]) }
        func render(_ answer: [String: Any]) -> String { "revoked\n" + AdminLinksCommand.fields(answer) }
    }

    struct List: AdminVerb {
        static let configuration = CommandConfiguration(
            abstract: "List and search links, newest first, a page at a time.",
            discussion: """
                Filters combine. A page holds --limit links (default 50, at most 200); the next page is \
                --cursor with the value printed under the table (or nextCursor in --json). --all follows every page \
                (at most \(maxPages) pages) and prints one table, or one {"links": […]} object with --json.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "Only this app's links.") var app: String?
        @Option(help: "Only this owner's links.") var owner: String?
        @Option(help: "active, expired, revoked or deleted.") var status: String?
        @Option(help: "Only links created after this RFC 3339 time (2026-11-24T10:00:00Z).") var createdAfter: String?
        @Option(help: "Only links created before this RFC 3339 time.") var createdBefore: String?
        @Option(help: "Links per page (1–200, default 50).") var limit: Int?
        @Option(help: "Start after the page this cursor ends (nextCursor of the previous page).") var cursor: String?
        @Flag(help: "Follow every page.") var all = false

        /// The most pages `--all` follows.
        static let maxPages = 1000

        func request() -> AdminRequest { page(after: cursor) }

        func page(after cursor: String?) -> AdminRequest {
            AdminRequest("GET", ["v1", "links"], query: [
                ("app", app), ("owner", owner), ("status", status), ("createdAfter", createdAfter),
                ("createdBefore", createdBefore), ("limit", limit.map(String.init)), ("cursor", cursor),
            ])
        }

        func render(_ answer: [String: Any]) -> String {
            let table = AdminLinksCommand.table(JSONText.items("links", of: answer))
            guard let next = answer["nextCursor"] as? String else { return table }
            return table + "\nmore: --cursor \(TextTable.printable(next))"
        }

        func run() async throws {
            guard all else { return try await AdminRun.reporting { () async throws(AdminFailure) in try await send() } }
            try await AdminRun.reporting { () async throws(AdminFailure) in
                let client = try connection.client()
                var links: [[String: Any]] = []
                var next = cursor
                for _ in 0..<Self.maxPages {
                    let answer = try await client.send(page(after: next)).json
                    links += JSONText.items("links", of: answer)
                    next = answer["nextCursor"] as? String
                    if next == nil { break }
                }
                if connection.json {
                    var object: [String: Any] = ["links": links]
                    if let next { object["nextCursor"] = next }
                    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
                    FileHandle.standardOutput.write(data + Data("\n".utf8))
                } else {
                    Swift.print(render(["links": links, "nextCursor": next as Any]))
                }
            }
        }
    }
}
