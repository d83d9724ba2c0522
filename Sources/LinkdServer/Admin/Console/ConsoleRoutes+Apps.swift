import Foundation
import Hummingbird
import LinkdHTTP
import LinkStore

// The console's apps page: every published app with its versions (who published each and when), and the impact
// report of putting an earlier version back in force (a dry run: nothing changes; publishing is the admin API's and
// `linkd admin apps`').
extension ConsoleRoutes {
    /// `GET /admin/apps`: every published app, its version in force and its versions.
    func appsPage(_ session: ConsoleSessions.Session) async throws -> Response {
        let apps = try await admin.listApps()
        var sections: [[String: Any]] = []
        for app in apps {
            let versions = try await admin.manifestVersions(app: app.app)
            sections.append([
                "app": app.app, "name": app.displayName ?? app.app, "version": app.version, "retired": app.retired,
                "hosts": app.hosts.joined(separator: ", "), "routes": app.routes,
                "statsHref": "/admin/apps/\(Self.path(app.app))/stats",
                "versions": versions.map { version in [
                    "version": version.version, "hash": String(version.hash.prefix(19)), "at": Self.time(version.publishedAt),
                    "by": version.publishedBy, "retired": version.retired, "inForce": version.version == app.version,
                    "canCheck": version.version != app.version && !version.retired,
                    "checkAction": "/admin/apps/\(Self.path(app.app))/check",
                ] as [String: Any] },
            ])
        }
        return render("apps", session, nav: "apps", title: "Apps", ["apps": sections, "empty": sections.isEmpty, "csrf": session.csrfToken])
    }

    /// `POST /admin/apps/{app}/check` `version=N`: what putting version N back in force would do (a dry run).
    func manifestCheck(
        _ session: ConsoleSessions.Session, _ form: [String: String], _ context: LinkdRequestContext
    ) async throws -> Response {
        let app = try context.parameters.require("app")
        guard let version = form["version"].flatMap(Int.init), version > 0 else {
            throw APIError(.badRequest, .badRequest, "version must be a positive integer")
        }
        let outcome = try await admin.rollbackManifest(
            app: app, to: version, moves: [], force: false, dryRun: true, expectedVersion: nil, by: session.caller)
        let impact = outcome.impact
        return render("apps-impact", session, nav: "apps", title: "\(app): version \(version) again?", [
            "app": app, "version": version, "from": impact.fromVersion.map(String.init) ?? "none", "refused": outcome.refused,
            "liveLinks": impact.liveLinks, "strandedLinks": impact.strandedLinks,
            "stranded": impact.stranded.map { ["route": $0.route, "reason": $0.reason, "detail": $0.detail, "count": $0.count,
                                               "sample": $0.sample.joined(separator: ", ")] as [String: Any] },
            "lostStates": impact.lostStates.map { ["route": $0.route, "states": $0.states.joined(separator: ", "), "count": $0.count] as [String: Any] },
            "changedURLCount": impact.changedURLCount,
            "changed": impact.changedURLs.prefix(25).map { ["url": $0.url, "state": $0.state, "before": $0.before, "after": $0.after] },
            "uncovered": impact.uncoveredPatterns.joined(separator: ", "), "hasUncovered": !impact.uncoveredPatterns.isEmpty,
            "command": "linkd admin apps rollback \(app) \(version)",
            "hasStranded": !impact.stranded.isEmpty, "hasLost": !impact.lostStates.isEmpty, "hasChanged": !impact.changedURLs.isEmpty,
        ])
    }
}
