import Foundation
import LinkdTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `linkd admin …` as a process against a real `linkd serve` process: every verb, on SQLite and PostgreSQL, and every
/// way a call fails (no URL, no key, a wrong key, the daemon down or silent, loose or broken credentials files, 404).
@Suite("linkd admin CLI against a running daemon")
struct AdminCLITests {
    /// The variables that could carry a connection in from the environment running the tests.
    static let connectionVariables = ["LINKD_URL", "LINKD_ADMIN_KEY", "LINKD_CREDENTIALS", "XDG_CONFIG_HOME"]

    /// A place for credentials files: an empty private `XDG_CONFIG_HOME`, so no real one is read.
    struct Home {
        let config = temporaryDataDir() + "-config"
        init() throws {
            try FileManager.default.createDirectory(atPath: config + "/linkd", withIntermediateDirectories: true)
            chmod(config, 0o700)
        }
        /// The default credentials file's path.
        var defaultCredentials: String { config + "/linkd/credentials" }
    }

    /// Runs `linkd admin ARGUMENTS` with only `environment`'s connection variables (and an empty config home).
    static func admin(_ arguments: [String], _ environment: [String: String] = [:], home: Home) throws -> LinkdProcess.Output {
        try LinkdProcess.run(
            ["admin"] + arguments, unsetting: connectionVariables,
            environment: ["XDG_CONFIG_HOME": home.config].merging(environment) { $1 })
    }

    /// The JSON object a `--json` run printed.
    static func json(_ output: LinkdProcess.Output, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(output.status == 0, "exit \(output.status): \(output.stderr)", sourceLocation: sourceLocation)
        return try #require(
            try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], "not JSON: \(output.stdout)",
            sourceLocation: sourceLocation)
    }

    /// A daemon on `store`: SQLite in its data directory, or a fresh PostgreSQL database.
    static func daemon(_ store: String) throws -> LinkdDaemon {
        var environment: [String: String] = [:]
        if store == "postgres" { environment["LINKD_DATABASE_URL"] = try TestPostgres.shared().freshDatabase() }
        return try LinkdDaemon(dataDir: temporaryDataDir(), environment: environment)
    }

    /// Sets a link's title in the daemon's store with the database's own client (python3's sqlite3, or psql): what an
    /// older linkd, which took control characters, may have stored.
    static func storeTitle(_ title: String, linkID: String, daemon: LinkdDaemon, store: String) throws {
        let sql = "UPDATE links SET title = '\(title.replacingOccurrences(of: "'", with: "''"))' WHERE id = '\(linkID)'"
        if store == "postgres" {
            let url = try #require(daemon.environment["LINKD_DATABASE_URL"].flatMap { URLComponents(string: $0) })
            let database = String(url.path.dropFirst())
            _ = try TestPostgres.shared().psql(sql, database: database)
        } else {
            let file = try #require(daemon.dataDir) + "/linkd.sqlite"
            let script = "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()"
            _ = try ExternalTool.run("/usr/bin/python3", ["-c", script, file, sql])
        }
    }

    @Test("every verb, tables and --json, against a real daemon", arguments: ["sqlite", "postgres"])
    func everyVerb(store: String) throws {
        let daemon = try Self.daemon(store)
        defer { daemon.stop() }
        let home = try Home()
        let env = ["LINKD_URL": daemon.baseURL, "LINKD_ADMIN_KEY": try #require(daemon.initialAdminKey)]
        func run(_ arguments: [String]) throws -> LinkdProcess.Output { try Self.admin(arguments, env, home: home) }

        // API keys: create (the secret shown once), list, revoke.
        let made = try Self.json(try run(["api-keys", "create", "--kind", "client", "--app", "handz", "--label", "cli test", "--json"]))
        let clientKey = try #require(made["key"] as? String), clientID = try #require(made["id"] as? String)
        #expect(clientKey.hasPrefix("lkd_"))
        let adminMade = try run(["api-keys", "create", "--kind", "admin", "--label", "spare admin"])
        #expect(adminMade.status == 0 && adminMade.stdout.contains("key:") && adminMade.stdout.contains("shown this once"), "\(adminMade.stdout)")
        let keyList = try run(["api-keys", "list"])
        #expect(keyList.status == 0 && keyList.stdout.hasPrefix("ID") && keyList.stdout.contains(clientID) && keyList.stdout.contains("cli test"))
        #expect(!keyList.stdout.contains(clientKey), "a secret in the list")
        let keysJSON = try Self.json(try run(["api-keys", "list", "--json"]))
        #expect((keysJSON["apiKeys"] as? [[String: Any]])?.contains { $0["id"] as? String == clientID } == true)

        // Links: create, show, list (pages, filters), revoke.
        let flow = UUID().uuidString.lowercased()
        let link = try Self.json(try run([
            "links", "create", "--app", "handz", "--param", "flowId=\(flow)", "--owner", "ana", "--title", "Guard pass", "--ttl", "1d", "--json",
        ]))
        let linkID = try #require(link["id"] as? String)
        #expect((link["url"] as? String)?.hasPrefix("https://links.handz.example/s/") == true)
        let created = try run(["links", "create", "--app", "handz", "--param", "flowId=\(UUID().uuidString.lowercased())", "--owner", "ana"])
        #expect(created.status == 0 && created.stdout.contains("url:") && created.stdout.contains("token:"), "\(created.stdout)")
        #expect(created.stdout.contains("short url:  https://links.handz.example/s/"), "\(created.stdout)")
        let shown = try run(["links", "show", linkID])
        #expect(shown.status == 0 && shown.stdout.contains("status:") && shown.stdout.contains("active") && shown.stdout.contains("flowId=\(flow)"), "\(shown.stdout)")
        let shownJSON = try Self.json(try run(["links", "show", linkID, "--json"]))
        #expect(shownJSON["status"] as? String == "active" && shownJSON["clicks"] as? Int == 0 && shownJSON["title"] as? String == "Guard pass")
        for _ in 0..<3 {
            _ = try Self.json(try run(["links", "create", "--app", "handz", "--param", "flowId=\(UUID().uuidString.lowercased())", "--owner", "bo", "--json"]))
        }
        let page = try run(["links", "list", "--app", "handz", "--limit", "2"])
        #expect(page.status == 0 && page.stdout.hasPrefix("ID") && page.stdout.contains("more: --cursor "), "\(page.stdout)")
        let cursor = try #require(page.stdout.split(separator: "\n").last?.split(separator: " ").last.map(String.init))
        let next = try Self.json(try run(["links", "list", "--app", "handz", "--limit", "2", "--cursor", cursor, "--json"]))
        #expect((next["links"] as? [[String: Any]])?.count == 2 && next["nextCursor"] != nil)
        let all = try Self.json(try run(["links", "list", "--app", "handz", "--limit", "2", "--all", "--json"]))
        #expect((all["links"] as? [[String: Any]])?.count == 5 && all["nextCursor"] == nil)
        let ana = try Self.json(try run(["links", "list", "--owner", "ana", "--status", "active", "--json"]))
        #expect(Set((ana["links"] as? [[String: Any]] ?? []).compactMap { $0["owner"] as? String }) == ["ana"])
        #expect((ana["links"] as? [[String: Any]])?.count == 2)
        // Control and bidirectional characters are refused by the API, named with their position.
        let hostileTitle = "red\u{1B}[31m\nforged line\u{202E}"
        let refused = try run([
            "links", "create", "--app", "handz", "--param", "flowId=\(UUID().uuidString.lowercased())", "--owner", "eve",
            "--title", hostileTitle,
        ])
        #expect(refused.status != 0 && refused.stderr.contains("title must not contain control") && refused.stderr.contains("U+001B at character 4"),
                "\(refused.stderr)")
        // A title stored before they were refused (written into the store directly, as an older linkd could have)
        // cannot drive the terminal either: shown escaped.
        let hostile = try Self.json(try run([
            "links", "create", "--app", "handz", "--param", "flowId=\(UUID().uuidString.lowercased())", "--owner", "eve", "--json",
        ]))
        try Self.storeTitle(hostileTitle, linkID: try #require(hostile["id"] as? String), daemon: daemon, store: store)
        let hostileListed = try run(["links", "list", "--owner", "eve"])
        #expect(!hostileListed.stdout.contains("\u{1B}") && !hostileListed.stdout.contains("\u{202E}")
                && hostileListed.stdout.contains(#"red\u{1B}[31m\nforged line\u{202E}"#), "\(hostileListed.stdout)")
        #expect(hostileListed.stdout.split(separator: "\n").count == 2, "one row for one link")

        let revoked = try run(["links", "revoke", linkID])
        #expect(revoked.status == 0 && revoked.stdout.contains("revoked"), "\(revoked.stdout)")
        #expect(try Self.json(try run(["links", "show", linkID, "--json"]))["status"] as? String == "revoked")
        let revokedOnly = try run(["links", "list", "--status", "revoked"])
        #expect(revokedOnly.stdout.contains(linkID) && revokedOnly.stdout.split(separator: "\n").count == 2, "\(revokedOnly.stdout)")

        // A custom path: printed with the link, shown by the inspector; the same path again is refused, naming its holder.
        let withPath = try run([
            "links", "create", "--app", "handz", "--param", "flowId=\(UUID().uuidString.lowercased())", "--owner", "cy", "--path", "/cli-poster",
        ])
        #expect(withPath.status == 0 && withPath.stdout.contains("path url:   https://links.handz.example/cli-poster"), "\(withPath.stdout)")
        let pathLinkID = try #require(withPath.stdout.split(separator: "\n").first { $0.hasPrefix("id:") }?.split(separator: " ").last.map(String.init))
        #expect(try run(["links", "show", pathLinkID]).stdout.contains("path url:     https://links.handz.example/cli-poster"))
        let pathTaken = try run([
            "links", "create", "--app", "handz", "--param", "flowId=\(UUID().uuidString.lowercased())", "--path", "/cli-poster",
        ])
        #expect(pathTaken.status != 0 && pathTaken.stderr.contains("path_taken") && pathTaken.stderr.contains(pathLinkID), "\(pathTaken.stderr)")

        // Disable a user: every active link of the owner.
        let disabled = try run(["revoke-owner", "--app", "handz", "--owner", "bo"])
        #expect(disabled.status == 0 && disabled.stdout.contains("revoked 3 links of owner bo in handz"), "\(disabled.stdout)")
        #expect(try Self.json(try run(["revoke-owner", "--app", "handz", "--owner", "bo", "--json"]))["revoked"] as? Int == 0)

        // Signing keys: list, rotate, retire (the active one is refused: 409, exit 1).
        let keys = try Self.json(try run(["keys", "list", "--app", "handz", "--json"]))
        let oldKid = try #require((keys["keys"] as? [[String: Any]])?.first { $0["state"] as? String == "active" && $0["suite"] as? String == "hmac-sha256" }?["kid"] as? Int)
        let table = try run(["keys", "list"])
        #expect(table.status == 0 && table.stdout.hasPrefix("APP") && table.stdout.contains("coin") && table.stdout.contains("active"))
        let rotated = try Self.json(try run(["keys", "rotate", "--app", "handz", "--json"]))
        let newKid = try #require(rotated["kid"] as? Int)
        #expect(newKid != oldKid && rotated["state"] as? String == "active")
        let activeRetire = try run(["keys", "retire", "--app", "handz", "--kid", "\(newKid)"])
        #expect(activeRetire.status == 1 && activeRetire.stderr.contains("conflict (HTTP 409)"), "\(activeRetire.stderr)")
        let retired = try run(["keys", "retire", "--app", "handz", "--kid", "\(oldKid)"])
        #expect(retired.status == 0 && retired.stdout.contains("retired"), "\(retired.stdout)")
        let edRotated = try run(["keys", "rotate", "--app", "coin", "--suite", "ed25519"])
        #expect(edRotated.status == 0 && edRotated.stdout.contains("ed25519"), "\(edRotated.stderr)")

        // Revoke the client key: the daemon refuses it from now on.
        #expect(try run(["api-keys", "revoke", clientID]).status == 0)
        let withRevoked = try Self.admin(["links", "list"], ["LINKD_URL": daemon.baseURL, "LINKD_ADMIN_KEY": clientKey], home: home)
        #expect(withRevoked.status == 77 && withRevoked.stderr.contains("unauthorized"), "\(withRevoked.stderr)")

        // The audit: every change above, with its actor.
        let audit = try Self.json(try run(["audit", "--limit", "50", "--json"]))
        let actions = Set((audit["entries"] as? [[String: Any]] ?? []).compactMap { $0["action"] as? String })
        #expect(actions.isSuperset(of: ["apikey.create", "apikey.revoke", "link.revoke", "owner.revoke", "key.rotate", "key.retire"]), "\(actions)")
        let auditTable = try run(["audit", "--limit", "3"])
        #expect(auditTable.status == 0 && auditTable.stdout.hasPrefix("SEQ") && auditTable.stdout.split(separator: "\n").count == 4, "\(auditTable.stdout)")

        // Not found (exit 66), other API errors (exit 1), usage (exit 64).
        let missing = try run(["links", "show", String(repeating: "0", count: 32)])
        #expect(missing.status == 66 && missing.stderr.contains("not_found (HTTP 404)"), "\(missing.stderr)")
        #expect(try run(["api-keys", "revoke", "key_000000000000"]).status == 66)
        #expect(try run(["keys", "list", "--app", "nope"]).status == 66)
        let badLimit = try run(["audit", "--limit", "0"])
        #expect(badLimit.status == 1 && badLimit.stderr.contains("bad_request (HTTP 400)"), "\(badLimit.stderr)")
        let badCursor = try run(["links", "list", "--cursor", "forged"])
        #expect(badCursor.status == 1 && badCursor.stderr.contains("bad_cursor"), "\(badCursor.stderr)")
        let badParam = try run(["links", "create", "--app", "handz", "--param", "no-equals"])
        #expect(badParam.status == 64 && badParam.stderr.contains("expected name=value"), "\(badParam.stderr)")
        #expect(try run(["links", "create"]).status == 64, "a missing required option")
        #expect(try run(["links", "list", "--timeout", "0"]).status == 64)
    }

    @Test("webhooks and stats verbs: an endpoint made (secret once), listed, updated, its deliveries read, deleted; a link's and an app's counters after an opening")
    func webhookAndStatsVerbs() async throws {
        let daemon = try Self.daemon("sqlite")
        defer { daemon.stop() }
        let home = try Home()
        let env = ["LINKD_URL": daemon.baseURL, "LINKD_ADMIN_KEY": try #require(daemon.initialAdminKey)]
        func run(_ arguments: [String]) throws -> LinkdProcess.Output { try Self.admin(arguments, env, home: home) }

        // Webhooks (the URL never resolves: nothing is delivered, and nothing needs to be for these verbs).
        let made = try run(["webhooks", "create", "--app", "handz", "--endpoint", "https://hooks.example.invalid/linkd", "--events", "link.created, link.revoked"])
        #expect(made.status == 0, "\(made.stdout) \(made.stderr)")
        #expect(made.stdout.contains("secret") && made.stdout.contains("whsec_") && made.stdout.contains("shown this once"))
        let listed = try Self.json(try run(["webhooks", "list", "--app", "handz", "--json"]))
        let hook = try #require((listed["webhooks"] as? [[String: Any]])?.first)
        let id = try #require(hook["id"] as? String)
        #expect(hook["events"] as? [String] == ["link.created", "link.revoked"] && hook["secret"] == nil)
        let table = try run(["webhooks", "list"])
        #expect(table.stdout.contains(id) && table.stdout.contains("link.created,link.revoked") && table.stdout.contains("yes"))
        #expect(!table.stdout.contains("whsec_"))
        let disabled = try Self.json(try run(["webhooks", "update", id, "--disable", "--events", "link.claimed", "--json"]))
        #expect(disabled["enabled"] as? Bool == false && disabled["events"] as? [String] == ["link.claimed"])
        let shown = try run(["webhooks", "show", id])
        #expect(shown.stdout.contains("enabled") && shown.stdout.contains("no") && shown.stdout.contains("link.claimed"))
        let nothing = try run(["webhooks", "update", id])
        #expect(nothing.status == 64 && nothing.stderr.contains("nothing to change"))
        #expect(try run(["webhooks", "create", "--app", "handz", "--endpoint", "https://10.0.0.1/hook", "--events", "link.created"]).status == 1)
        let deliveries = try run(["webhooks", "deliveries", id])
        #expect(deliveries.status == 0 && deliveries.stdout.contains("OUTCOME"))
        #expect(try run(["webhooks", "delete", id]).status == 0)
        #expect(try run(["webhooks", "show", id]).status == 66)

        // Stats: a link opened once by an iPhone and fetched once by a preview bot.
        let link = try Self.json(try run(["links", "create", "--app", "handz", "--param", "flowId=\(UUID().uuidString.lowercased())", "--json"]))
        let linkID = try #require(link["id"] as? String), url = try #require(link["url"] as? String)
        let path = try #require(URLComponents(string: url)?.path)
        let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
        #expect(try await TestHTTP.send(
            "GET", daemon.baseURL + path + "?utm_source=Chat&utm_campaign=beta",
            headers: ["User-Agent": iphone, "Referer": "https://forum.example.org/t/1"]).status == 200)
        #expect(try await TestHTTP.send("GET", daemon.baseURL + path, headers: ["User-Agent": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"]).status == 200)
        var stats: [String: Any] = [:]
        for _ in 0..<50 {
            stats = try Self.json(try run(["stats", "link", linkID, "--json"]))
            if stats["clicks"] as? Int == 1, stats["previews"] as? Int == 1 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(stats["clicks"] as? Int == 1 && stats["previews"] as? Int == 1)
        #expect((stats["byPlatform"] as? [String: Any])?["ios"] as? Int == 1)
        let linkTable = try run(["stats", "link", linkID])
        #expect(linkTable.stdout.contains("clicks") && linkTable.stdout.contains("ios=1") && linkTable.stdout.contains("DATE"))
        #expect(linkTable.stdout.contains("claims:") && linkTable.stdout.contains("claimed=0,expired=0,made=0"), "\(linkTable.stdout)")
        let campaignRow = linkTable.stdout.components(separatedBy: "\n").first { $0.hasPrefix("beta") }
        #expect(campaignRow?.split(separator: " ", omittingEmptySubsequences: true) == ["beta", "chat", "-", "1"], "\(linkTable.stdout)")
        #expect(linkTable.stdout.contains("REFERRING HOST") && linkTable.stdout.contains("forum.example.org"))
        let app = try run(["stats", "app", "handz", "--top", "5"])
        #expect(app.status == 0 && app.stdout.contains("Top links") && app.stdout.contains(linkID))
        #expect(try run(["stats", "link", linkID, "--from", "yesterday"]).status == 1)
        #expect(try run(["stats", "link", String(repeating: "0", count: 32)]).status == 66)
    }

    @Test("no URL, no key, a wrong or client key: configuration (78) and refusal (77) exits, naming what is missing")
    func connectionFailures() throws {
        let daemon = try Self.daemon("sqlite")
        defer { daemon.stop() }
        let admin = try #require(daemon.initialAdminKey)
        let home = try Home()

        let noURL = try Self.admin(["keys", "list"], ["LINKD_ADMIN_KEY": admin], home: home)
        #expect(noURL.status == 78 && noURL.stderr.contains("no daemon URL") && noURL.stderr.contains("LINKD_URL")
                && noURL.stderr.contains(home.defaultCredentials), "\(noURL.stderr)")
        let noKey = try Self.admin(["keys", "list"], ["LINKD_URL": daemon.baseURL], home: home)
        #expect(noKey.status == 78 && noKey.stderr.contains("no admin API key") && noKey.stderr.contains("LINKD_ADMIN_KEY"), "\(noKey.stderr)")
        let badURL = try Self.admin(["keys", "list"], ["LINKD_URL": "ftp://example.com", "LINKD_ADMIN_KEY": admin], home: home)
        #expect(badURL.status == 78 && badURL.stderr.contains("not an http(s) URL"), "\(badURL.stderr)")

        let wrong = try Self.admin(["keys", "list"], ["LINKD_URL": daemon.baseURL, "LINKD_ADMIN_KEY": "lkd_wrong"], home: home)
        #expect(wrong.status == 77 && wrong.stderr.contains("refused the key: unauthorized (HTTP 401)"), "\(wrong.stderr)")
        let made = try Self.json(try Self.admin(
            ["api-keys", "create", "--kind", "client", "--app", "handz", "--label", "c", "--json"],
            ["LINKD_URL": daemon.baseURL, "LINKD_ADMIN_KEY": admin], home: home))
        let client = try #require(made["key"] as? String)
        let forbidden = try Self.admin(["audit"], ["LINKD_URL": daemon.baseURL, "LINKD_ADMIN_KEY": client], home: home)
        #expect(forbidden.status == 77 && forbidden.stderr.contains("forbidden (HTTP 403)") && forbidden.stderr.contains("admin key"), "\(forbidden.stderr)")

        // Flags before the environment: a wrong LINKD_URL is overridden by --url, a wrong LINKD_ADMIN_KEY by --key.
        let flags = try Self.admin(
            ["keys", "list", "--url", daemon.baseURL, "--key", admin], ["LINKD_URL": "http://127.0.0.1:1", "LINKD_ADMIN_KEY": "lkd_wrong"], home: home)
        #expect(flags.status == 0, "\(flags.stderr)")

        // Wrong keys until the address is locked out: 429, "retry later", exit 75; a valid key is still served.
        var statuses: [Int32] = []
        var locked: LinkdProcess.Output?
        for _ in 0..<15 where statuses.last != 75 {
            let attempt = try Self.admin(["audit"], ["LINKD_URL": daemon.baseURL, "LINKD_ADMIN_KEY": "lkd_wrong"], home: home)
            statuses.append(attempt.status)
            locked = attempt
        }
        #expect(statuses.last == 75 && Set(statuses.dropLast()) == [77], "\(statuses)")
        #expect(locked?.stderr.contains("rate_limited (HTTP 429)") == true && locked?.stderr.contains("retry later") == true, "\(locked?.stderr ?? "")")
        #expect(try Self.admin(["audit"], ["LINKD_URL": daemon.baseURL, "LINKD_ADMIN_KEY": admin], home: home).status == 0)
    }

    @Test("the daemon down, a name that does not resolve, a daemon that never answers: exit 69 within the time limit")
    func unreachable() throws {
        let daemon = try Self.daemon("sqlite")
        let admin = try #require(daemon.initialAdminKey)
        let url = daemon.baseURL
        daemon.stop()
        let home = try Home()

        let down = try Self.admin(["keys", "list"], ["LINKD_URL": url, "LINKD_ADMIN_KEY": admin], home: home)
        #expect(down.status == 69 && down.stderr.contains("cannot reach the daemon at \(url)") && down.stderr.contains("no connection"), "\(down.stderr)")
        let unknown = try Self.admin(["keys", "list", "--timeout", "10"], ["LINKD_URL": "http://linkd.invalid:8080", "LINKD_ADMIN_KEY": admin], home: home)
        #expect(unknown.status == 69 && unknown.stderr.contains("does not resolve"), "\(unknown.stderr)")

        // A socket that accepts connections (the kernel's backlog) but never answers.
        let silent = try SilentListener()
        defer { silent.close() }
        let started = Date()
        let timedOut = try Self.admin(
            ["keys", "list", "--timeout", "1.5"], ["LINKD_URL": "http://127.0.0.1:\(silent.port)", "LINKD_ADMIN_KEY": admin], home: home)
        let took = Date().timeIntervalSince(started)
        #expect(timedOut.status == 69 && timedOut.stderr.contains("did not answer within 1.5 s"), "\(timedOut.stderr)")
        #expect(took < 8, "took \(took) s")
    }

    @Test("credentials files: the default one, a named one, loose, linked, not a file, missing, malformed")
    func credentialsFiles() throws {
        let daemon = try Self.daemon("sqlite")
        defer { daemon.stop() }
        let admin = try #require(daemon.initialAdminKey)
        let home = try Home()
        let contents = "# linkd admin\nurl = \(daemon.baseURL)\nkey = \(admin)\n"
        func write(_ path: String, _ text: String, mode: mode_t) throws {
            try? FileManager.default.removeItem(atPath: path)
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            chmod(path, mode)
        }

        // The default file, 0600: no variable needed.
        try write(home.defaultCredentials, contents, mode: 0o600)
        let fromDefault = try Self.admin(["keys", "list", "--json"], home: home)
        #expect(fromDefault.status == 0, "\(fromDefault.stderr)")
        _ = try Self.json(fromDefault)
        // The environment wins over the file, field by field.
        let envWins = try Self.admin(["keys", "list"], ["LINKD_ADMIN_KEY": "lkd_wrong"], home: home)
        #expect(envWins.status == 77, "\(envWins.stderr)")

        // Loose: group or world readable, refused naming the mode.
        for mode: mode_t in [0o644, 0o640, 0o604] {
            chmod(home.defaultCredentials, mode)
            let loose = try Self.admin(["keys", "list"], home: home)
            let octal = "0" + String(mode, radix: 8)
            #expect(loose.status == 78 && loose.stderr.contains("\(home.defaultCredentials) has mode \(octal)")
                    && loose.stderr.contains("chmod 600"), "\(loose.stderr)")
        }
        chmod(home.defaultCredentials, 0o400)
        #expect(try Self.admin(["keys", "list"], home: home).status == 0, "0400 is stricter")

        // Named by --credentials and by LINKD_CREDENTIALS.
        let named = temporaryDataDir() + "-creds"
        try write(named, contents, mode: 0o600)
        try? FileManager.default.removeItem(atPath: home.defaultCredentials)
        #expect(try Self.admin(["keys", "list", "--credentials", named], home: home).status == 0)
        #expect(try Self.admin(["keys", "list"], ["LINKD_CREDENTIALS": named], home: home).status == 0)
        // A named file that is missing is an error (a missing default file is not).
        let missing = try Self.admin(["keys", "list", "--credentials", named + ".nope"], home: home)
        #expect(missing.status == 78 && missing.stderr.contains("\(named).nope") && missing.stderr.contains("No such file"), "\(missing.stderr)")
        // A symbolic link, a directory: refused.
        let link = named + ".link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: named)
        let linked = try Self.admin(["keys", "list", "--credentials", link], home: home)
        #expect(linked.status == 78 && linked.stderr.contains("symbolic link"), "\(linked.stderr)")
        let directory = named + ".dir"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let notFile = try Self.admin(["keys", "list", "--credentials", directory], home: home)
        #expect(notFile.status == 78 && notFile.stderr.contains("is a directory"), "\(notFile.stderr)")
        // Malformed: a line without '=', an unknown name, an empty value — each named with its line.
        for (text, message) in [("url \(daemon.baseURL)\n", ":1: expected 'name = value'"), ("# c\ntoken = x\n", ":2: unknown name 'token'"), ("key =\n", ":1: key is empty")] {
            try write(named, text, mode: 0o600)
            let malformed = try Self.admin(["keys", "list", "--credentials", named], home: home)
            #expect(malformed.status == 78 && malformed.stderr.contains(named + message), "\(malformed.stderr)")
        }
    }

    @Test("the offline keyring verbs refuse a daemon's data directory and point to linkd admin; linkd keys is gone", arguments: ["sqlite", "postgres"])
    func offlineKeyringRefusesDaemonDirectory(store: String) throws {
        var environment: [String: String] = [:]
        if store == "postgres" { environment["LINKD_DATABASE_URL"] = try TestPostgres.shared().freshDatabase() }
        let dir = temporaryDataDir()
        let daemon = try LinkdDaemon(dataDir: dir, environment: environment)
        daemon.stop()
        let expectedFile = "LINKD-DAEMON.txt"  // the marker every daemon writes, on either store
        for verb in [["token", "keyring", "list"], ["token", "keyring", "rotate", "--app", "handz"], ["token", "keyring", "generate", "--app", "handz"],
                     ["token", "issue", "--app", "handz"]] {
            let refused = try LinkdProcess.run(verb + ["--data-dir", dir], unsetting: ["LINKD_MASTER_KEY", "LINKD_DATA_DIR"])
            #expect(refused.status != 0 && refused.stderr.contains("\(dir) is a linkd daemon's data directory")
                    && refused.stderr.contains("\(dir)/\(expectedFile)") && refused.stderr.contains("linkd admin keys"), "\(verb): \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/keys.json"), "\(verb) wrote a keyring into the daemon's directory")
        }
        // LINKD_DATA_DIR (the daemon's variable) is refused the same way.
        let byVariable = try LinkdProcess.run(["token", "keyring", "list"], unsetting: ["LINKD_MASTER_KEY"], environment: ["LINKD_DATA_DIR": dir])
        #expect(byVariable.status != 0 && byVariable.stderr.contains("linkd admin keys"), "\(byVariable.stderr)")
        // The old verbs say where each use went.
        for old in [["keys", "list"], ["keys", "rotate", "--app", "handz", "--data-dir", dir], ["keys"]] {
            let gone = try LinkdProcess.run(old, unsetting: ["LINKD_MASTER_KEY"])
            #expect(gone.status == 1 && gone.stderr.contains("linkd admin keys") && gone.stderr.contains("linkd token keyring"), "\(old): \(gone.stderr)")
        }
        // A SQLite store alone (a daemon of an older version, no marker) is refused too, naming it.
        if store == "sqlite" {
            try FileManager.default.removeItem(atPath: dir + "/LINKD-DAEMON.txt")
            let older = try LinkdProcess.run(["token", "keyring", "list", "--data-dir", dir], unsetting: ["LINKD_MASTER_KEY", "LINKD_DATA_DIR"])
            #expect(older.status != 0 && older.stderr.contains("\(dir)/linkd.sqlite"), "\(older.stderr)")
        }
    }
}

/// A TCP socket on 127.0.0.1 that listens and never accepts or answers: connections complete in the kernel's
/// backlog and then hear nothing.
final class SilentListener {
    let fd: Int32
    let port: Int

    init() throws {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socketFD, 16) == 0 else { throw HarnessError("cannot listen: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
        }
        fd = socketFD
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(fd) }
}
