import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
import NIOCore
import LinkRouter
import LinkStore
import Logging
import TokenSigning
import UTCTime
import WebFallback

/// The console's pages and confirmations (`ConsoleRoutes` registers them): each reads through `AdminService` and
/// renders one template.
extension ConsoleRoutes {
    // MARK: Pages

    /// `GET /admin`: the instance's health.
    func overview(_ session: ConsoleSessions.Session) async throws -> Response {
        let health = await admin.health()
        let bound = KeyAdministration.seconds(health.propagationBound)
        return render("overview", session, nav: "overview", title: "Overview", [
            "storeKind": health.storeKind, "location": health.location,
            "storeOK": health.storeProblem == nil, "storeProblem": health.storeProblem ?? "",
            "ping": String(format: "%.1f", health.pingMilliseconds),
            "revocations": health.revocations, "links": health.linkCount.map { String($0) } ?? "unknown",
            "shared": bound > 0, "propagation": String(format: "%.0f", bound),
            "instanceCount": health.instances.count,
            "instances": health.instances.map { instance in [
                "id": instance.id, "host": instance.host, "started": Self.time(instance.started),
                "lastSeen": Self.time(instance.lastSeen), "this": instance.id == health.this.id,
            ] as [String: Any] },
            "thisInstance": health.this.id,
            "tls": !health.certificates.isEmpty || !health.acme.isEmpty, "hasACME": !health.acme.isEmpty,
            "certificates": health.certificates.map { entry in [
                "hosts": entry.hosts.joined(separator: ", "), "source": entry.source, "notAfter": Self.time(entry.notAfter),
            ] as [String: Any] },
            "acme": health.acme.sorted { $0.key < $1.key }.map { app, state in [
                "app": app, "hosts": state.hosts.joined(separator: ", "), "notAfter": state.notAfter.map(Self.time) ?? "none yet",
                "failing": state.lastError != nil, "lastError": state.lastError ?? "",
                "nextAttempt": state.nextAttempt.map(Self.time) ?? "",
            ] as [String: Any] },
        ])
    }

    /// `GET /admin/keys`: every app's signing keys with their life cycle.
    func keysPage(_ session: ConsoleSessions.Session, _ request: Request) throws -> Response {
        let query = request.uri.queryParameters
        // A notice names only what the store confirms (a loaded app and a key of it in the state the notice says):
        // the URL carries ids, never the text shown.
        var notice: String?
        if let app = query.get("app"), let kid = query.get("kid").flatMap(UInt32.init), admin.appIDs.contains(app),
           let key = try admin.signingKeys(app: app).first(where: { $0.kid == kid }) {
            switch query.get("notice") {
            case "rotated" where key.state == .active:
                notice = "Key \(kid) is now the active key of \(app). The previous key verifies only."
            case "retired" where key.state == .retired: notice = "Key \(kid) of \(app) is retired: its links no longer open."
            default: break
            }
        }
        let apps: [[String: Any]] = try admin.appIDs.map { app in
            let keys = try admin.signingKeys(app: app).sorted { $0.kid > $1.kid }
            let activeSuites = Set(keys.filter { $0.state == .active }.map(\.suite.name))
            let suites = (activeSuites.isEmpty ? ["hmac-sha256"] : activeSuites.sorted())
            return [
                "app": app, "name": admin.router.manifest(app: app)?.displayName ?? app,
                "keys": keys.map(Self.keyContext), "hasKeys": !keys.isEmpty,
                "rotations": suites.map { ["suite": $0, "href": "/admin/keys/\(Self.path(app))/rotate?suite=\($0)"] },
            ]
        }
        var values: [String: Any] = ["apps": apps]
        if let notice { values["notice"] = notice }
        return render("keys", session, nav: "keys", title: "Signing keys", values)
    }

    private static let lifeCycle: [KeyState] = [.pending, .active, .verifyOnly, .retired]

    private static func keyContext(_ key: KeyInfo) -> [String: Any] {
        let reached = lifeCycle.firstIndex(of: key.state) ?? 0
        var values: [String: Any] = [
            "kid": key.kid, "suite": key.suite.name, "state": key.state.rawValue, "stateLabel": stateLabel(key.state),
            "created": time(key.createdAt), "active": key.state == .active,
            "timeline": lifeCycle.enumerated().map { index, state in [
                "label": stateLabel(state), "done": index < reached, "current": index == reached,
            ] as [String: Any] },
            "canRetire": key.state == .verifyOnly || key.state == .pending,
            "retireHref": "/admin/keys/\(path(key.app))/\(key.kid)/retire",
        ]
        if let date = key.activatedAt { values["activated"] = time(date) }
        if let date = key.verifyUntil { values["verifyUntil"] = time(date) }
        if let date = key.retiredAt { values["retired"] = time(date) }
        return values
    }

    private static func stateLabel(_ state: KeyState) -> String {
        switch state {
        case .pending: "pending"
        case .active: "active"
        case .verifyOnly: "verify only"
        case .retired: "retired"
        }
    }

    /// `GET /admin/keys/{app}/rotate[?suite=]`: what a rotation does, and its form.
    func confirmRotate(_ session: ConsoleSessions.Session, _ request: Request, _ context: LinkdRequestContext) throws -> Response {
        let app = try context.parameters.require("app")
        let suiteName = request.uri.queryParameters.get("suite") ?? "hmac-sha256"
        guard let suite = TokenSuite(name: suiteName) else {
            throw APIError(.unprocessableContent, .unprocessable, "suite must be hmac-sha256 or ed25519")
        }
        let current = try admin.signingKeys(app: app).first { $0.suite == suite && $0.state == .active }
        var consequences = ["New share links of \(app) are signed with a new \(suite.name) key."]
        if let current {
            let until = Date().addingTimeInterval(TimeInterval(current.maxTokenLifetime))
            consequences.append(
                "Key \(current.kid) becomes verify-only: links already shared keep opening until they expire "
                    + "(at the latest \(Self.time(until))). Nothing stops working now.")
            consequences.append("Once key \(current.kid) has stopped verifying, retire it here.")
        } else {
            consequences.append("\(app) has no active \(suite.name) key yet: this makes its first one.")
        }
        return confirm(session, title: "Rotate the \(suite.name) key of \(app)?", consequences: consequences,
                       action: "/admin/keys/\(Self.path(app))/rotate", fields: ["suite": suite.name],
                       button: "Rotate the key", danger: false, cancel: "/admin/keys")
    }

    /// `GET /admin/keys/{app}/{kid}/retire`: what retiring a key stops, and its form.
    func confirmRetire(_ session: ConsoleSessions.Session, _ context: LinkdRequestContext) throws -> Response {
        let app = try context.parameters.require("app")
        guard let kid = context.parameters.get("kid").flatMap(UInt32.init),
              let key = try admin.signingKeys(app: app).first(where: { $0.kid == kid })
        else { throw APIError(.notFound, .notFound, "no such key of \(app)") }
        guard key.state != .active else {
            throw APIError(.conflict, .conflict, "key \(kid) is the active \(key.suite.name) key of \(app): rotate first")
        }
        var consequences = ["Every link of \(app) signed with key \(kid) (\(key.suite.name)) stops opening at once: "
            + "people see \"This link is no longer available\"."]
        if let until = key.verifyUntil, until > Date() {
            consequences.append("Some of them have not expired yet: key \(kid) would verify until \(Self.time(until)).")
        } else {
            consequences.append("Its longest-lived links have expired already (verify-until passed), so none still valid is cut off.")
        }
        consequences.append("This cannot be undone.")
        return confirm(session, title: "Retire key \(kid) of \(app)?", consequences: consequences,
                       action: "/admin/keys/\(Self.path(app))/\(kid)/retire", fields: [:],
                       button: "Retire key \(kid)", danger: true, cancel: "/admin/keys")
    }

    /// `GET /admin/links[?id=][&app=&owner=&status=]`: find a link by id, or an owner's links (with "disable user").
    func linksPage(_ session: ConsoleSessions.Session, _ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        if let id = query.get("id")?.trimmingCharacters(in: .whitespaces), !id.isEmpty {
            return Self.redirect("/admin/links/\(Self.path(String(id.prefix(64))))")
        }
        let app = query.get("app").flatMap { $0.isEmpty ? nil : $0 }
        let owner = query.get("owner").flatMap { $0.isEmpty ? nil : $0 }
        let status = query.get("status").flatMap { $0.isEmpty ? nil : $0 }
        var values: [String: Any] = [
            "apps": admin.appIDs.map { ["id": $0, "selected": $0 == app] },
            "owner": owner ?? "",
            "statuses": ["active", "revoked", "deleted", "expired"].map { (id: String) in ["id": id, "selected": id == status] },
        ]
        // The owner is in the filter above; the notice repeats no text from the URL but the count.
        if query.get("notice") == "owner-revoked", let count = query.get("count").flatMap(Int.init), count >= 0, owner != nil {
            values["notice"] = "Revoked \(count) link\(count == 1 ? "" : "s") of this owner."
        }
        // No filter ("any" everywhere, or the page just opened) lists every link, newest first.
        let page = try await admin.searchLinks(app: app, owner: owner, status: status, cursor: query.get("cursor"))
        values["hasResults"] = !page.links.isEmpty
        values["noResults"] = page.links.isEmpty
        values["results"] = page.links.map { link in
            var row: [String: Any] = [
                "id": link.id, "status": link.status, "route": link.route,
                "owner": link.owner ?? "", "created": Self.time(link.createdAt), "expires": Self.time(link.expiresAt),
            ]
            if let title = link.title, !title.isEmpty { row["linkTitle"] = title }
            return row
        }
        if let next = page.nextCursor {
            let filters = [("app", app), ("owner", owner), ("status", status), ("cursor", next)]
            values["next"] = "/admin/links?" + filters.compactMap { name, value in value.map { "\(name)=\(Self.query($0))" } }
                .joined(separator: "&")
        }
        if let app, let owner {
            let count = try await admin.activeLinkCount(app: app, owner: owner)
            values["owner"] = owner
            values["ownerPanel"] = [
                "app": app, "owner": owner, "active": count, "plural": count != 1,
                "revokeHref": "/admin/owners/revoke?app=\(Self.query(app))&owner=\(Self.query(owner))", "canRevoke": count > 0,
            ] as [String: Any]
        }
        return render("links", session, nav: "links", title: "Links", values)
    }

    /// `GET /admin/links/{id}`: the inspector.
    func linkPage(_ session: ConsoleSessions.Session, _ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        let link = try await admin.link(id: try context.parameters.require("id"), by: session.caller)
        var values = Self.linkContext(link)
        let shareURLs = try await admin.shareURLs(id: link.id, by: session.caller)
        values["shareURLs"] = shareURLs.map { ["host": $0.host, "url": $0.url] }
        values["hasShareURLs"] = !shareURLs.isEmpty
        let totals = try await stats.linkStats(id: link.id, caller: session.caller, from: nil, to: nil)
        values["tiles"] = ConsoleStatsPage.tiles(totals.totals)
        values["statsRange"] = "\(totals.fields.from) to \(totals.fields.to)"
        values["statsHref"] = "/admin/links/\(link.id)/stats"
        if request.uri.queryParameters.get("notice") == "revoked" { values["notice"] = "The link is revoked: it no longer opens." }
        return render("link", session, nav: "links", title: "Link \(link.id)", values)
    }

    private static func linkContext(_ link: LinkView) -> [String: Any] {
        var values: [String: Any] = [
            "id": link.id, "app": link.app, "route": link.route, "owner": link.owner ?? "", "hasOwner": link.owner != nil,
            "linkTitle": link.title ?? "", "status": link.status, "isActive": link.status == "active",
            "created": time(link.createdAt), "expires": time(link.expiresAt), "clicksText": "\(link.clicks) time\(link.clicks == 1 ? "" : "s")",
            "lastOpened": link.lastOpenedAt.map(time) ?? "never",
            "params": link.params.sorted { $0.key < $1.key }.map { ["name": $0.key, "value": $0.value] },
            "revokeHref": "/admin/links/\(link.id)/revoke",
        ]
        if let owner = link.owner {
            values["ownerHref"] = "/admin/links?app=\(query(link.app))&owner=\(query(owner))"
        }
        return values
    }

    /// `GET /admin/links/{id}/revoke`: what revoking a link stops.
    func confirmRevokeLink(_ session: ConsoleSessions.Session, _ context: LinkdRequestContext) async throws -> Response {
        let link = try await admin.link(id: try context.parameters.require("id"), by: session.caller)
        return confirm(session, title: "Revoke link \(link.id)?", consequences: [
            "The link (\(link.app) \(link.route)\(link.title.map { ", “\($0)”" } ?? "")) stops opening at once, on every instance "
                + "within the store's propagation time: people see \"This link is no longer available\".",
            "It has been opened \(link.clicks) time\(link.clicks == 1 ? "" : "s"). This cannot be undone.",
        ], action: "/admin/links/\(link.id)/revoke", fields: [:], button: "Revoke the link", danger: true,
           cancel: "/admin/links/\(link.id)")
    }

    /// `GET /admin/owners/revoke?app=&owner=`: "disable user", with the number of links it will revoke.
    func confirmRevokeOwner(_ session: ConsoleSessions.Session, _ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let app = query.get("app") ?? "", owner = query.get("owner") ?? ""
        let count = try await admin.activeLinkCount(app: app, owner: owner)
        return confirm(session, title: "Disable \(owner) in \(app)?", consequences: [
            "This revokes \(count) active link\(count == 1 ? "" : "s") of \(owner) in \(app): they stop opening at once.",
            "Links \(owner) creates afterwards are not affected. This cannot be undone.",
        ], action: "/admin/owners/revoke", fields: ["app": app, "owner": owner],
           button: "Revoke \(count) link\(count == 1 ? "" : "s")", danger: true,
           cancel: "/admin/links?app=\(Self.query(app))&owner=\(Self.query(owner))", count: count)
    }

    /// `GET /admin/api-keys`: every API key, and the form that makes one.
    func apiKeysPage(_ session: ConsoleSessions.Session, _ request: Request) async throws -> Response {
        let keys = try await admin.allAPIKeys()
        var values: [String: Any] = [
            "keys": keys.map { key in [
                "id": key.id, "kind": key.kind.rawValue, "app": key.app ?? "—", "label": key.label,
                "created": Self.time(key.created), "revoked": key.revoked.map(Self.time) ?? "",
                "isRevoked": key.revoked != nil, "isYou": key.id == session.caller.keyID,
                "revokeHref": "/admin/api-keys/\(Self.path(key.id))/revoke",
            ] as [String: Any] },
            "apps": admin.appIDs.enumerated().map { ["id": $1, "first": $0 == 0] as [String: Any] },
        ]
        let query = request.uri.queryParameters
        if query.get("notice") == "revoked", let id = query.get("id"), keys.contains(where: { $0.id == id && $0.revoked != nil }) {
            values["notice"] = "API key \(id) is revoked."
        }
        return render("api-keys", session, nav: "api-keys", title: "API keys", values)
    }

    /// `GET /admin/api-keys/{id}/revoke`: what revoking an API key stops.
    func confirmRevokeAPIKey(_ session: ConsoleSessions.Session, _ context: LinkdRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        guard let key = try await admin.allAPIKeys().first(where: { $0.id == id }) else {
            throw APIError(.notFound, .notFound, "no API key \(id.prefix(64))")
        }
        var consequences = [key.kind == .admin
            ? "Every request made with admin key \(key.id) (“\(key.label)”) is refused from now on, and its console sessions end."
            : "Every request of the \(key.app ?? "") app's client key \(key.id) (“\(key.label)”) is refused from now on: "
                + "that client can no longer create or manage links."]
        if key.id == session.caller.keyID { consequences.append("This is the key you are signed in with: you will be signed out.") }
        consequences.append("Links already made keep working. This cannot be undone.")
        return confirm(session, title: "Revoke API key \(key.id)?", consequences: consequences,
                       action: "/admin/api-keys/\(Self.path(key.id))/revoke", fields: [:], button: "Revoke the key", danger: true,
                       cancel: "/admin/api-keys")
    }

    /// `GET /admin/audit[?actor=&action=&app=&limit=]`: the audit log, filtered.
    func auditPage(_ session: ConsoleSessions.Session, _ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        func field(_ name: String) -> String? { query.get(name).flatMap { $0.isEmpty ? nil : $0 } }
        let filter = AuditFilter(actor: field("actor"), action: field("action"), app: field("app"))
        let limit = field("limit").flatMap(Int.init) ?? 100
        let entries = try await admin.auditLog(filter: filter, limit: limit)
        let actions = AuditAction.allCases.map(\.rawValue)
        return render("audit", session, nav: "audit", title: "Audit log", [
            "actor": filter.actor ?? "", "limit": limit,
            "actions": actions.map { ["id": $0, "selected": $0 == filter.action] },
            "apps": admin.appIDs.map { ["id": $0, "selected": $0 == filter.app] },
            "entries": entries.map { entry in [
                "seq": entry.seq.map(String.init) ?? "", "at": Self.time(entry.at), "actor": entry.actor, "action": entry.action,
                "app": entry.app ?? "", "detail": entry.detail, "isYou": entry.actor == session.caller.keyID,
            ] as [String: Any] },
            "empty": entries.isEmpty,
        ])
    }
}
